// The doc examples check their results with `console.assert`, which only logs
// by default: without tests/_assert_preload.ts every wrong example passes
// (as happened for five days after the preload's code was lost in a move).

import { assert, assertThrows } from "../_assert.ts";
import "../_assert_preload.ts";

Deno.test("the preload makes a failed console.assert throw, and a holding one pass", () => {
  assertThrows(
    () => console.assert(false, "wrong example"),
    "console.assert failed: wrong example",
  );
  console.assert(true, "a holding assertion");
});

Deno.test("a doc example whose console.assert fails fails its test under the test task's preload", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const task: string = config.tasks.test.command;
  assert(
    task.includes("--preload tests/_assert_preload.ts --doc"),
    `the test task runs the doc examples without the assert preload: ${task}`,
  );
  const folder = await Deno.makeTempDir({ prefix: "evtsim-assert-preload-" });
  try {
    const example = (claim: string) =>
      `/**\n * @example\n * \`\`\`ts\n * console.assert(${claim});\n * \`\`\`\n */\nexport const x = 1;\n`;
    await Deno.writeTextFile(`${folder}/wrong.ts`, example("1 + 1 === 3"));
    await Deno.writeTextFile(`${folder}/right.ts`, example("1 + 1 === 2"));
    const preload = new URL("../_assert_preload.ts", import.meta.url).pathname;
    const run = (file: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["test", "--quiet", "--no-config", "--preload", preload, "--doc", file],
        cwd: folder,
        stdout: "null",
        stderr: "null",
      }).output();
    assert(!(await run("wrong.ts")).success, "a wrong doc example passed");
    assert((await run("right.ts")).success, "a right doc example failed");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

// The fuzz report's "CLI view" works from the user's own folder (issue 27):
// the printed command, run by a shell in a folder outside the repository,
// writes the schedule the failing run had. Without an installed `evtsim` it
// is this clone's task (`deno task --cwd CLONE evtsim ...`); with one on the
// PATH it is `evtsim simulate ...`. Paths are absolute.

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";
import { idleOnly } from "../_lazy_policies.ts";
import { fuzzScheduler } from "../../testing/mod.ts";
import { absolutePath, evtsimCommand } from "../../testing/_cli_command.ts";

Deno.test("the CLI view's command: evtsim when installed, else the clone's task; absolute paths", () => {
  const clone = "/src/my evtsim";
  const q = (s: string) => /\s/.test(s) ? `'${s}'` : s;
  assertEquals(evtsimCommand({ installed: true, clone }), "evtsim");
  assertEquals(
    evtsimCommand({ installed: false, clone }, q),
    "deno task --cwd '/src/my evtsim' evtsim",
  );
  assertEquals(evtsimCommand({ installed: false }), "deno run -A jsr:@evtsim/evtsim/cli");
  assertEquals(
    absolutePath("a/../b/t.csv", { installed: false, cwd: "/home/u" }),
    "/home/u/b/t.csv",
  );
  assertEquals(absolutePath("/x/t.csv", { installed: false, cwd: "/home/u" }), "/x/t.csv");
  assertEquals(absolutePath("t.csv", { installed: false }), "t.csv");
});

async function bash(script: string, cwd: string, path: string): Promise<string> {
  const r = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    env: { PATH: path, INIT_CWD: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(r.stderr);
  assertEquals(r.code, 0, `${script}\n${err}`);
  return err;
}

Deno.test("the printed command runs from a folder outside the repository", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repro-" });
  try {
    const work = `${dir}/study`;
    const elsewhere = `${dir}/elsewhere`;
    await Deno.mkdir(work);
    await Deno.mkdir(elsewhere);
    await Deno.writeTextFile(
      `${work}/policies.ts`,
      `export * from "${ROOT}tests/_lazy_policies.ts";\n`,
    );
    const r = fuzzScheduler({ admission: idleOnly }, {
      numRuns: 300,
      seed: 11,
      policyModule: `${work}/policies.ts`,
      tracePath: `${work}/case.csv`,
    });
    assert(!r.ok);
    await Deno.writeTextFile(`${work}/case.csv`, r.traceCsv);
    assert(r.command.includes(` ${work}/case.csv `) && r.command.endsWith(` ${work}/case_sim.csv`));
    const path = `${Deno.execPath().replace(/\/[^/]*$/, "")}:/usr/bin:/bin`;
    const expected = r.jobRows!.map((j) =>
      [j.submitTime, j.beginTime, j.endTime, j.numNodes, 0, j.timeLimit].join(",")
    );
    const schedule = async () =>
      (await Deno.readTextFile(`${work}/case_sim.csv`)).trim().split("\n").slice(1);
    // As printed (the clone's task here, or evtsim if this machine has it installed).
    await bash(r.command, elsewhere, path);
    assertEquals(await schedule(), expected);
    await Deno.remove(`${work}/case_sim.csv`);
    // The installed form: an `evtsim` on the PATH, as `deno task install` makes it.
    const bin = `${dir}/bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/evtsim`,
      `#!/bin/sh\nexec "${Deno.execPath()}" run -A --config "${ROOT}deno.json" "${ROOT}cli/main.ts" "$@"\n`,
      { mode: 0o755 },
    );
    const installed = r.command.replace(/^deno task --cwd \S+ evtsim /, "evtsim ");
    assert(installed.startsWith("evtsim simulate "), installed);
    await bash(installed, elsewhere, `${bin}:${path}`);
    assertEquals(await schedule(), expected);
    assertEquals([...Deno.readDirSync(elsewhere)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The yaml package reads LOG_TOKENS and LOG_STREAM on every parse. A library
// user's program run with --allow-read only used to fail inside the package
// ("not valid YAML: Requires env access"), blaming the file; the readers now
// name the permission instead, and with it the same file reads.

import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function readWith(dir: string, permissions: string[]) {
  const program = `${dir}/read.ts`;
  await Deno.writeTextFile(
    program,
    `import { readMachine } from "${ROOT}io/mod.ts";\n` +
      `try {\n  const m = await readMachine("${ROOT}examples/gpu_machine.yaml");\n` +
      `  console.log("groups " + m.groups.length);\n} catch (e) {\n  console.log((e as Error).message);\n}\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--config", `${ROOT}deno.json`, ...permissions, program],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("YAML readers without env access name the permission; with it the file reads", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const denied = await readWith(dir, ["--allow-read"]);
    assert(
      denied.endsWith(
        "gpu_machine.yaml: reading YAML needs env access to LOG_TOKENS and LOG_STREAM (the yaml package reads them): run with --allow-env=LOG_TOKENS,LOG_STREAM",
      ),
      denied,
    );
    assertEquals(
      await readWith(dir, ["--allow-read", "--allow-env=LOG_TOKENS,LOG_STREAM"]),
      "groups 3",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

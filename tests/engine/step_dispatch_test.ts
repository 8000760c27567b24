// `step`'s dispatch is exhaustive: a kind of `Input` without its case in
// core/step.ts's switch is a compile error, not an input silently ignored.
// Checked the only way a missing case can be: a copy of core/step.ts with
// one case taken out is type checked (`deno check`) and must fail at the
// switch's `never` default, while the untouched copy checks clean.

import { assert, assertThrows } from "../_assert.ts";
import { initialState, type Input, step } from "../../mod.ts";

const CORE = new URL("../../core/", import.meta.url);
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

// core/step.ts with its relative imports made absolute, so that a copy in a
// temp folder type checks against the real core.
async function stepSource(): Promise<string> {
  const text = await Deno.readTextFile(new URL("step.ts", CORE));
  return text.replace(/from "\.\/([^"]+)"/g, (_, file) => `from "${new URL(file, CORE).href}"`);
}

// Takes out `case "KIND":` and its body (up to the next `case` or `default`).
function withoutCase(source: string, kind: string): string {
  const start = source.indexOf(`    case "${kind}":`);
  assert(start >= 0, `no case for ${kind} in core/step.ts`);
  const rest = source.slice(start + 1);
  const end = start + 1 + rest.search(/\n {4}(case |default:)/) + 1;
  return source.slice(0, start) + source.slice(end);
}

async function check(folder: string, name: string, source: string) {
  const file = `${folder}/${name}`;
  await Deno.writeTextFile(file, source);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", CONFIG, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { success: out.success, message: new TextDecoder().decode(out.stderr) };
}

Deno.test("a kind of Input without its case in step's switch fails to type check", async () => {
  const folder = await Deno.makeTempDir();
  try {
    const source = await stepSource();
    const whole = await check(folder, "step_whole.ts", source);
    assert(whole.success, `the untouched copy of core/step.ts must check:\n${whole.message}`);
    const missing = await check(folder, "step_missing.ts", withoutCase(source, "flush"));
    assert(!missing.success, "step.ts without the flush case type checked");
    // The error is the exhaustiveness check's, not some other breakage.
    for (const part of [`"flush"`, "never", "unhandledInput(input)"]) {
      assert(missing.message.includes(part), `expected ${part} in:\n${missing.message}`);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("an input of no known kind is refused with the kinds step takes", () => {
  const s = initialState({ totalNodes: 4 });
  const e = assertThrows(
    () => step(s, { kind: "pauseQueue" } as unknown as Input),
    "step: expected an input kind (",
  );
  assert(e.message.includes(`got "pauseQueue"`), e.message);
});

// Every ```ts block of README.md is a program that checks its own results
// (it throws on a wrong result). Each one is written next to this file, with
// its "./" imports rewritten to "../", type-checked and run in a child Deno
// without permissions; it must exit 0. The files are removed afterwards (and
// excluded from fmt and lint in deno.json in case a run is interrupted).

import { assert, assertEquals } from "./_assert.ts";

const README = new URL("../README.md", import.meta.url);

/** The bodies of the ```ts blocks of a Markdown text, with the line each starts on. */
function tsBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    if (end === lines.length) throw new Error(`README.md:${i + 1}: unclosed code block`);
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") + "\n" });
    i = end;
  }
  return blocks;
}

/** Rewrites imports relative to the repository root so they resolve from tests/. */
function fromTests(code: string): string {
  return code.replace(/(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(["'])\.\//g, "$1$2../");
}

Deno.test("README: the ts blocks are found and import the package from ./mod.ts", async () => {
  const blocks = tsBlocks(await Deno.readTextFile(README));
  assert(blocks.length >= 1, "README.md has no ts block");
  assert(blocks.some((b) => b.code.includes('from "./mod.ts"')), "no block imports ./mod.ts");
  assertEquals(fromTests('import { a } from "./mod.ts";'), 'import { a } from "../mod.ts";');
  assertEquals(
    fromTests('import "./x.ts"; await import("./y.ts");'),
    'import "../x.ts"; await import("../y.ts");',
  );
  assertEquals(fromTests('import fc from "fast-check";'), 'import fc from "fast-check";');
});

Deno.test("README: every ts block type-checks, runs and passes its own checks", async (t) => {
  const blocks = tsBlocks(await Deno.readTextFile(README));
  // The pid keeps concurrent test runs from sharing files.
  const files = blocks.map((_, n) =>
    new URL(`./.readme_example_${Deno.pid}_${n + 1}.ts`, import.meta.url).pathname
  );
  try {
    for (const [n, block] of blocks.entries()) {
      await Deno.writeTextFile(files[n], fromTests(block.code));
    }
    // One type-check for all blocks is much faster than `run --check` for each.
    await t.step("type-check", async () => {
      const out = await deno(["check", "--quiet", ...files]);
      assert(out.code === 0, `deno check of the README blocks failed:\n${out.text}`);
    });
    for (const [n, block] of blocks.entries()) {
      await t.step(`block ${n + 1} (README.md:${block.line})`, async () => {
        const out = await deno(["run", "--no-check", "--quiet", files[n]]);
        assert(out.code === 0, `README.md:${block.line}: exited with ${out.code}:\n${out.text}`);
      });
    }
  } finally {
    for (const f of files) await Deno.remove(f).catch(() => {});
  }
});

/** Runs the current Deno executable from the repository root, without permissions. */
async function deno(args: string[]): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, text: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

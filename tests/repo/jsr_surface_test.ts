// The published surface (issue 8 item 9): the four entries pass
// `deno doc --lint` with a module doc, the engine's internal structures are
// not exported, and every JSDoc example imports the package by name
// ("@evtsim/evtsim", "/io", "/testing", "/cli") so it can be copied from the
// published docs. An example may import a module by relative path only for
// what no entry exports (the doc of an internal helper).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

/** The package's entries, by the specifier a user imports. */
const ENTRIES: Record<string, string> = {
  "@evtsim/evtsim": "mod.ts",
  "@evtsim/evtsim/testing": "testing/mod.ts",
  "@evtsim/evtsim/io": "io/mod.ts",
  "@evtsim/evtsim/cli": "cli/main.ts",
};

/** Internals that must stay out of every entry. */
const INTERNAL = [
  "OrderedSet",
  "OrderSpec",
  "Owner",
  "TreeNode",
  "Vec",
  "RowStack",
  "JobStore",
  "ResourceEvent",
  "RngState",
  "StatisticsAccumulator",
  "RngCursor",
  "resolveConfig",
  "userFolder",
];

/** Folders whose JSDoc examples run as doc tests (deno task test --doc). */
const SOURCE_DIRS = ["core", "api", "schedulers", "io", "testing", "cli"];

async function deno(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout), err: d.decode(r.stderr) };
}

interface DocJson {
  nodes: Record<
    string,
    { module_doc?: { tags?: { kind: string }[] }; symbols: { name: string }[] }
  >;
}

/** Exported names per entry specifier, and whether each entry has a @module doc. */
async function surface(): Promise<Map<string, { names: Set<string>; moduleDoc: boolean }>> {
  const r = await deno(["doc", "--json", ...Object.values(ENTRIES)]);
  assert(r.code === 0, r.err);
  const json = JSON.parse(r.out) as DocJson;
  const out = new Map<string, { names: Set<string>; moduleDoc: boolean }>();
  for (const [spec, file] of Object.entries(ENTRIES)) {
    const node = json.nodes[new URL(file, `file://${ROOT}`).href];
    assert(node !== undefined, `deno doc gave nothing for ${file}`);
    out.set(spec, {
      names: new Set(node.symbols.map((s) => s.name)),
      moduleDoc: node.module_doc?.tags?.some((t) => t.kind === "module") ?? false,
    });
  }
  return out;
}

/** One import of an example: its names, specifier and where it is. */
interface ExampleImport {
  where: string;
  names: string[];
  specifier: string;
}

/** The ```ts code blocks of the JSDoc comments of a source text, with their first line. */
function jsdocExamples(text: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*\*\s?```(ts|typescript|js)?\s*$/.exec(lines[i]);
    if (m === null || m[1] === undefined) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*\*\s?```\s*$/.test(lines[j]); j++) {
      body.push(lines[j].replace(/^\s*\*\s?/, ""));
    }
    blocks.push({ line: i + 2, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The static imports of a code block. */
function importsOf(code: string): { names: string[]; specifier: string }[] {
  const out: { names: string[]; specifier: string }[] = [];
  const re =
    /\bimport\s+(?:type\s+)?(?:\{([^}]*)\}|(\w+)|\*\s+as\s+\w+)\s+from\s+["']([^"']+)["']/g;
  for (const m of code.matchAll(re)) {
    const names = m[1] !== undefined
      ? m[1].split(",").map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0])
        .filter((n) => n !== "")
      : m[2] !== undefined
      ? [m[2]]
      : [];
    out.push({ names, specifier: m[3] });
  }
  return out;
}

async function exampleImports(): Promise<ExampleImport[]> {
  const files = ["mod.ts"];
  for (const dir of SOURCE_DIRS) {
    for await (const e of Deno.readDir(`${ROOT}${dir}`)) {
      if (e.isFile && e.name.endsWith(".ts")) files.push(`${dir}/${e.name}`);
    }
  }
  const out: ExampleImport[] = [];
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(`${ROOT}${file}`);
    for (const block of jsdocExamples(text)) {
      for (const imp of importsOf(block.code)) {
        out.push({ where: `${file}:${block.line}`, ...imp });
      }
    }
  }
  return out;
}

Deno.test("JSR surface: the example scanner finds JSDoc blocks and their imports", () => {
  const text = [
    "/**",
    " * @example",
    " * ```ts",
    ' * import { a, type B as C } from "@evtsim/evtsim";',
    ' * import fc from "fast-check";',
    " * ```",
    " */",
  ].join("\n");
  const blocks = jsdocExamples(text);
  assertEquals(blocks.length, 1);
  assertEquals(importsOf(blocks[0].code), [
    { names: ["a", "B"], specifier: "@evtsim/evtsim" },
    { names: ["fc"], specifier: "fast-check" },
  ]);
});

Deno.test("JSR surface: deno publish --dry-run passes (JSR's own checks: no triple-slash lib directives, no slow types)", async () => {
  const r = await deno(["publish", "--dry-run", "--allow-dirty"]);
  assert(r.code === 0, `deno publish --dry-run failed:\n${r.out}${r.err}`);
  assert(/Dry run complete/.test(r.out + r.err), r.out + r.err);
});

Deno.test("JSR surface: every entry passes deno doc --lint and has a @module doc", async () => {
  const lint = await deno(["doc", "--lint", ...Object.values(ENTRIES)]);
  assert(lint.code === 0, `deno doc --lint failed:\n${lint.out}${lint.err}`);
  for (const [spec, entry] of await surface()) {
    assert(entry.moduleDoc, `${spec} (${ENTRIES[spec]}) has no @module doc`);
    assert(entry.names.size > 0, `${spec} exports nothing`);
  }
});

Deno.test("JSR surface: the engine's internals are not exported", async () => {
  for (const [spec, entry] of await surface()) {
    const leaked = INTERNAL.filter((n) => entry.names.has(n));
    assertEquals(leaked, [], `${spec} exports internals`);
  }
});

Deno.test("JSR surface: JSDoc examples import the package, not relative paths", async () => {
  const entries = await surface();
  const isPublic = (name: string) => [...entries.values()].some((e) => e.names.has(name));
  const imports = await exampleImports();
  assert(imports.length > 100, `only ${imports.length} example imports found`);
  const problems: string[] = [];
  for (const imp of imports) {
    if (imp.specifier.startsWith("@evtsim/")) {
      if (!(imp.specifier in ENTRIES)) problems.push(`${imp.where}: no entry ${imp.specifier}`);
      const entry = entries.get(imp.specifier);
      for (const n of imp.names) {
        if (entry !== undefined && !entry.names.has(n)) {
          problems.push(`${imp.where}: ${imp.specifier} does not export ${n}`);
        }
      }
    } else if (imp.specifier.startsWith(".")) {
      for (const n of imp.names.filter(isPublic)) {
        problems.push(`${imp.where}: imports public ${n} from ${imp.specifier}`);
      }
    }
  }
  assertEquals(problems, []);
});

Deno.test("JSR surface: docs/public-surface.md lists every export of every entry", async () => {
  // The whole page is the list.
  const section = await Deno.readTextFile(`${ROOT}docs/public-surface.md`);
  // Each entry's part starts with a line naming it in backticks.
  const parts = new Map<string, string>();
  const heads = [...section.matchAll(/^`(@evtsim\/evtsim(?:\/\w+)?)` \(/gm)];
  for (const [i, m] of heads.entries()) {
    parts.set(m[1], section.slice(m.index, heads[i + 1]?.index));
  }
  const missing: string[] = [];
  for (const [spec, entry] of await surface()) {
    const part = parts.get(spec);
    assert(part !== undefined, `the section has no part for ${spec}`);
    const named = new Set(
      [...part.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1].match(/[A-Za-z_$][\w$]*/g) ?? []),
    );
    for (const n of entry.names) if (!named.has(n)) missing.push(`${spec}: ${n}`);
  }
  assertEquals(missing, []);
});

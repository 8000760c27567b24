// Lists the JSDoc `@example` blocks that show no use: blocks that never call
// a function, constructor or method of evtsim, so they can only assert a
// value they wrote themselves (a typed literal checked against itself tests
// nothing and teaches little). tests/doc_examples_test.ts fails when such a
// block is added; run this file to see the list:
//
//   deno run --allow-read tests/_example_audit.ts [--all]
//
// `--all` also lists every block with the evtsim names it calls.
//
// What counts as a call of evtsim: a value name the block imports from
// evtsim (`@evtsim/evtsim`, `@evtsim/evtsim/io`, `@evtsim/evtsim/testing`,
// `@evtsim/evtsim/cli` or a relative path) or a value the documented file
// exports (a doc test may use those without importing them), written as
// `name(`, `new name`, or `name.member…(` (a method of an exported object).
// Strings and comments are blanked first, so a name in a message is no call.

/** One `@example` block: where it is, what it documents, what it calls. */
export interface ExampleBlock {
  /** Path relative to the repository root, `/`-separated. */
  readonly file: string;
  /** 1-based line of the `@example` tag. */
  readonly line: number;
  /** The name the JSDoc block documents (the declaration after it). */
  readonly symbol: string;
  /** The evtsim names the block calls (empty: it shows no use). */
  readonly calls: readonly string[];
}

/** The folders and files whose doc examples `deno task test` runs (bench/ aside). */
export const AUDITED_ROOTS: readonly string[] = [
  "mod.ts",
  "api",
  "core",
  "io",
  "schedulers",
  "testing",
  "cli",
];

const ROOT = new URL("../", import.meta.url);

/** Every `@example` block of the audited files, in file and line order. */
export async function auditExamples(
  roots: readonly string[] = AUDITED_ROOTS,
): Promise<ExampleBlock[]> {
  const files: string[] = [];
  for (const root of roots) await collect(root, files);
  files.sort();
  const blocks: ExampleBlock[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    blocks.push(...examplesOf(file, text));
  }
  return blocks;
}

async function collect(path: string, out: string[]): Promise<void> {
  const info = await Deno.stat(new URL(path, ROOT));
  if (info.isFile) {
    if (path.endsWith(".ts") && !path.endsWith("_test.ts")) out.push(path);
    return;
  }
  for await (const entry of Deno.readDir(new URL(path + "/", ROOT))) {
    await collect(`${path}/${entry.name}`, out);
  }
}

/** The `@example` blocks of one source file. */
export function examplesOf(file: string, text: string): ExampleBlock[] {
  const exported = exportedValues(text);
  const blocks: ExampleBlock[] = [];
  const jsdoc = /\/\*\*([\s\S]*?)\*\//g;
  for (let m = jsdoc.exec(text); m !== null; m = jsdoc.exec(text)) {
    const body = m[1].split("\n").map((l) => l.replace(/^\s*\* ?/, "")).join("\n");
    const symbol = /@module\b/.test(body)
      ? "(module)"
      : symbolAfter(text.slice(m.index + m[0].length));
    const startLine = text.slice(0, m.index).split("\n").length;
    const bodyLines = body.split("\n");
    for (let i = 0; i < bodyLines.length; i++) {
      if (!/^@example\b/.test(bodyLines[i].trim())) continue;
      const code = fencedCode(bodyLines.slice(i + 1));
      if (code === undefined) continue;
      blocks.push({ file, line: startLine + i, symbol, calls: evtsimCalls(code, exported) });
    }
  }
  return blocks;
}

// The code of the first fenced block after the tag, up to the next tag.
function fencedCode(lines: readonly string[]): string | undefined {
  const code: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (!inside && /^@\w/.test(line.trim())) return undefined;
    if (/^\s*```/.test(line)) {
      if (inside) return code.join("\n");
      inside = true;
      continue;
    }
    if (inside) code.push(line);
  }
  return undefined;
}

function symbolAfter(rest: string): string {
  const m = rest.match(
    /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:static\s+)?(?:readonly\s+)?(?:get\s+|set\s+)?(?:(?:function\*?|class|interface|type|const|let|var|enum)\s+)?([A-Za-z_$][\w$]*)/,
  );
  return m?.[1] ?? "(module)";
}

// The value names a file exports (a doc test may use them unimported).
function exportedValues(text: string): Set<string> {
  const names = new Set<string>();
  const decl =
    /^export\s+(?:async\s+)?(?:function\*?|class|const|let|var|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (let m = decl.exec(text); m !== null; m = decl.exec(text)) names.add(m[1]);
  const list = /^export\s*\{([^}]*)\}/gm;
  for (let m = list.exec(text); m !== null; m = list.exec(text)) {
    for (const name of valueNames(m[1])) names.add(name);
  }
  return names;
}

// The value names of an import or export list (`type` ones left out).
function valueNames(list: string): string[] {
  const names: string[] = [];
  for (const raw of list.split(",")) {
    const part = raw.trim();
    if (part === "" || /^type\s/.test(part)) continue;
    const alias = part.match(/\bas\s+([A-Za-z_$][\w$]*)$/);
    names.push(alias ? alias[1] : part.split(/\s/)[0]);
  }
  return names;
}

const EVTSIM_SPECIFIER = /^(?:@evtsim\/evtsim(?:\/.*)?|\.\.?\/.*)$/;

/** The evtsim names `code` calls (imported ones and `exported`). */
export function evtsimCalls(code: string, exported: ReadonlySet<string> = new Set()): string[] {
  const names = new Set(exported);
  const imports = /import\s+(type\s+)?([\s\S]*?)\s+from\s+["']([^"']+)["']/g;
  for (let m = imports.exec(code); m !== null; m = imports.exec(code)) {
    if (m[1] !== undefined || !EVTSIM_SPECIFIER.test(m[3])) continue;
    const clause = m[2];
    const braces = clause.match(/\{([\s\S]*)\}/);
    if (braces) { for (const name of valueNames(braces[1])) names.add(name); }
    const star = clause.match(/\*\s+as\s+([A-Za-z_$][\w$]*)/);
    if (star) names.add(star[1]);
    const plain = clause.replace(/\{[\s\S]*\}/, "").replace(/\*\s+as\s+\w+/, "")
      .split(",").map((s) => s.trim()).filter((s) => /^[A-Za-z_$][\w$]*$/.test(s));
    for (const name of plain) names.add(name);
  }
  const body = blankStringsAndComments(code.replace(imports, ""));
  const called: string[] = [];
  for (const name of names) {
    const n = name.replace(/\$/g, "\\$");
    const call = new RegExp(
      `(?<![\\w$])(?<![^.]\\.)(?:new\\s+${n}\\b|${n}\\s*(?:<[^;()]*?>)?\\s*\\(|${n}(?:\\s*\\??\\.\\s*[A-Za-z_$][\\w$]*|\\s*\\[[^\\]]*\\])+\\s*\\()`,
    );
    if (call.test(body)) called.push(name);
  }
  return called.sort();
}

// Blanks string literals, template text and comments, keeping `${…}` code.
function blankStringsAndComments(code: string): string {
  let out = "";
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === "/" && code[i + 1] === "/") {
      while (i < code.length && code[i] !== "\n") i++;
    } else if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      i = end < 0 ? code.length : end + 2;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < code.length && code[i] !== c && code[i] !== "\n") i += code[i] === "\\" ? 2 : 1;
      i++;
      out += '""';
    } else if (c === "`") {
      i++;
      out += '""';
      while (i < code.length && code[i] !== "`") {
        if (code[i] === "\\") i += 2;
        else if (code[i] === "$" && code[i + 1] === "{") {
          let depth = 1;
          i += 2;
          let inner = "";
          while (i < code.length && depth > 0) {
            if (code[i] === "{") depth++;
            if (code[i] === "}") depth--;
            if (depth > 0) inner += code[i];
            i++;
          }
          out += " (" + blankStringsAndComments(inner) + ") ";
        } else i++;
      }
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

if (import.meta.main) {
  const blocks = await auditExamples();
  const none = blocks.filter((b) => b.calls.length === 0);
  const all = Deno.args.includes("--all");
  for (const b of all ? blocks : none) {
    console.log(`${b.file}:${b.line} ${b.symbol}${all ? "  " + (b.calls.join(",") || "-") : ""}`);
  }
  console.log(`${none.length} of ${blocks.length} @example blocks call nothing of evtsim`);
}

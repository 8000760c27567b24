// Lists the JSDoc `@example` blocks that show no use: blocks that never call
// a function, constructor or method of evtsim, so they can only assert a
// value they wrote themselves (a typed literal checked against itself tests
// nothing and teaches little). tests/repo/doc_examples_test.ts fails when such a
// block is added; run this file to see the list:
//
//   deno run --allow-read tests/_example_audit.ts [--all]
//
// `--all` lists every block with the evtsim names it calls.
//
// What counts as a call of evtsim: a value name the block imports from
// evtsim (`@evtsim/evtsim`, `@evtsim/evtsim/io`, `@evtsim/evtsim/testing`,
// `@evtsim/evtsim/cli` or a relative path) or a value the documented file
// exports (a doc test may use those without importing them), written as
// `name(`, `new name`, or `name.member…(` (a method of an exported object).
// Strings and comments are blanked first, so a name in a message is no call.
//
// It also lists the blocks that call evtsim but assert only values they
// wrote (a call made to no purpose, then a literal checked): an assertion
// must mention a call's result, or a name that a statement mentioning one
// binds or fills (declares, assigns, uses in a callback, pushes to, passes
// bare to a call; files read back through `Deno`; see `checksComputed`). A
// value written inside a call's arguments (`{ outcome }`) is no result. The
// reading is by statements and names, not types: a literal that also holds
// a call's result passes.

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
  /** Whether its assertions check something those calls computed (see {@link checksComputed}). */
  readonly checksComputed: boolean;
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
      const { calls, checksComputed } = analyse(code, exported);
      blocks.push({ file, line: startLine + i, symbol, calls, checksComputed });
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
  return analyse(code, exported).calls;
}

/**
 * Whether `code` asserts something an evtsim call computed: some assertion
 * (`console.assert`, `assert…(`, `if (…) throw`) mentions an evtsim call or
 * a name that a statement with such a call (or with such a name) binds or
 * fills (a callback's array counts). True when it asserts nothing.
 */
export function checksComputed(code: string, exported: ReadonlySet<string> = new Set()): boolean {
  return analyse(code, exported).checksComputed;
}

function analyse(
  code: string,
  exported: ReadonlySet<string>,
): { calls: string[]; checksComputed: boolean } {
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
  called.sort();
  return { calls: called, checksComputed: assertsComputed(body, called) };
}

const KEYWORDS = new Set(
  ("const let var if else for of in while do return throw new typeof instanceof void await async " +
    "function true false null undefined this class extends import export from as type interface " +
    "readonly keyof break continue switch case default try catch finally yield delete").split(" "),
);

// The identifiers a statement mentions (not as a member after `.`, not keywords).
function identifiers(statement: string): Set<string> {
  const out = new Set<string>();
  for (const m of statement.matchAll(/(?<![\w$])(?<![^.]\.)[A-Za-z_$][\w$]*/g)) {
    if (!KEYWORDS.has(m[0])) out.add(m[0]);
  }
  return out;
}

// Top-level statements: a new line at bracket depth 0 ends one, unless the
// line ends or the next begins with an operator that continues it.
function statements(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    for (const c of line) {
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth--;
    }
    current += line + "\n";
    const next = (lines[i + 1] ?? "").trim();
    const continues = /(?:[=(\[{,+\-*/&|?:<>!]|=>)\s*$/.test(line.trim()) ||
      /^(?:[.)\]}?:+\-*/&|]|=>)/.test(next);
    if (depth <= 0 && !continues) {
      if (current.trim() !== "") out.push(current);
      current = "";
      depth = 0;
    }
  }
  if (current.trim() !== "") out.push(current);
  return out;
}

// The names a statement binds or fills: what it declares or assigns, the
// names in its callbacks (after `=>`), and arrays, sets and maps it adds to.
function targets(statement: string): Set<string> {
  const out = new Set<string>();
  const decl = statement.match(/^\s*(?:const|let|var)\s+([\s\S]*?)\s*(?::[^=]*)?=(?![=>])/);
  if (decl) { for (const id of identifiers(decl[1])) out.add(id); }
  for (const m of statement.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*[-+*/]?=(?![=>])/g)) {
    out.add(m[1]);
  }
  // A bare name passed to a call may be changed by it (`sortFloat64(xs)`);
  // a value written in the call (`{ outcome }`) is not a result.
  for (const m of statement.matchAll(/[(,]\s*([A-Za-z_$][\w$]*)\s*(?=[),])/g)) out.add(m[1]);
  const loop = statement.match(/^\s*for\s*\(\s*(?:const|let|var)\s+([\s\S]*?)\s+of\b/);
  if (loop) { for (const id of identifiers(loop[1])) out.add(id); }
  const arrow = statement.indexOf("=>");
  if (arrow >= 0) { for (const id of identifiers(statement.slice(arrow + 2))) out.add(id); }
  for (const m of statement.matchAll(/([A-Za-z_$][\w$]*)\s*\.\s*(?:push|add|set|unshift)\s*\(/g)) {
    out.add(m[1]);
  }
  for (const id of GLOBALS) out.delete(id);
  return out;
}

// Globals no example computes.
const GLOBALS = new Set(
  "console Math JSON Error Object Array Set Map String Number Boolean Promise Infinity NaN"
    .split(" "),
);

const ASSERTION = /\bconsole\.assert\s*\(|(?<![\w$.])assert\w*\s*\(|\bthrow\b/;

function assertsComputed(body: string, called: readonly string[]): boolean {
  const parts = statements(body).map((text) => ({
    text,
    ids: new Set([...identifiers(text)].filter((id) => !GLOBALS.has(id))),
  }));
  // What a call did to files is read back through Deno.
  const computed = new Set([...called, "Deno"]);
  for (let changed = true; changed;) {
    changed = false;
    for (const part of parts) {
      if (ASSERTION.test(part.text)) continue;
      if (![...part.ids].some((id) => computed.has(id))) continue;
      for (const id of targets(part.text)) {
        if (!computed.has(id)) {
          computed.add(id);
          changed = true;
        }
      }
    }
  }
  const asserting = parts.filter((p) => ASSERTION.test(p.text));
  return asserting.length === 0 ||
    asserting.some((p) => [...p.ids].some((id) => computed.has(id)));
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
  const literal = blocks.filter((b) => b.calls.length > 0 && !b.checksComputed);
  const all = Deno.args.includes("--all");
  const show = (b: ExampleBlock) => `${b.file}:${b.line} ${b.symbol}`;
  if (all) { for (const b of blocks) console.log(`${show(b)}  ${b.calls.join(",") || "-"}`); }
  else {
    for (const b of none) console.log(`${show(b)}  (calls nothing of evtsim)`);
    for (const b of literal) console.log(`${show(b)}  (asserts only values it wrote)`);
  }
  console.log(`${none.length} of ${blocks.length} @example blocks call nothing of evtsim`);
  console.log(`${literal.length} more call evtsim but assert only values they wrote themselves`);
}

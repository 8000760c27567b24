// No function in cli/ over 80 lines, except the ones listed below with the
// reason each is still long. The list only shrinks: a function that got
// shorter than the limit must leave it (the test says so), and a new long
// function fails until it is split along the steps a run has (options ->
// inputs -> configuration -> run -> outputs).
//
// A simple scan, not a parser: comments, strings and template text are
// blanked, then a function's body is matched brace for brace from its
// header (`function f(`, `const f = (` / `async (`, or a method `f(...) {`).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

const LIMIT = 80;

/** `file:function` → why it is still over the limit. */
const ALLOWED = new Map<string, string>([]);

/** `src` with comments, strings and template text blanked (newlines kept). */
export function codeOnly(src: string): string {
  let out = "";
  const templates: number[] = []; // the brace depth at which each open `${` began
  let depth = 0;
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  const templateText = () => {
    let j = i;
    while (j < src.length && src[j] !== "`" && !(src[j] === "$" && src[j + 1] === "{")) {
      j += src[j] === "\\" ? 2 : 1;
    }
    out += blank(src.slice(i, j));
    if (src[j] === "`") {
      out += " ";
      i = j + 1;
    } else {
      out += "  ";
      templates.push(depth);
      depth++;
      i = j + 2;
    }
  };
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      const nl = src.indexOf("\n", i);
      const end = nl < 0 ? src.length : nl;
      out += blank(src.slice(i, end));
      i = end;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2) + 2;
      out += blank(src.slice(i, end));
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      out += blank(src.slice(i, j + 1));
      i = j + 1;
    } else if (c === "`") {
      out += " ";
      i++;
      templateText();
    } else if (c === "}" && templates.at(-1) === depth - 1) {
      templates.pop();
      depth--;
      out += " ";
      i++;
      templateText();
    } else {
      if (c === "{") depth++;
      else if (c === "}") depth--;
      out += c;
      i++;
    }
  }
  return out;
}

const HEADER = new RegExp(
  [
    String.raw`^\s*(?:export\s+)?(?:async\s+)?function\*?\s+(\w+)`,
    String.raw`^\s*(?:export\s+)?(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?(?:\(|function)`,
    String.raw`^\s+(?:async\s+)?(\w+)\s*\([^)]*$`,
    String.raw`^\s+(?:async\s+)?(\w+)\s*\(.*\)\s*(?::\s*[\w<>\[\]| ]+)?\s*\{\s*$`,
  ].join("|"),
);
const NOT_A_FUNCTION = new Set(["if", "for", "while", "switch", "catch", "return"]);

/** The functions of `src` longer than `limit` lines: name and length. */
export function longFunctions(src: string, limit: number): [string, number][] {
  const lines = codeOnly(src).split("\n");
  const found: [string, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i]);
    if (m === null) continue;
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (NOT_A_FUNCTION.has(name)) continue;
    // The body is the first `{` outside the parameter list's parentheses.
    let parens = 0;
    let depth = 0;
    let body = false;
    let j = i;
    scan: for (; j < lines.length; j++) {
      for (const ch of lines[j]) {
        if (!body) {
          if (ch === "(") parens++;
          else if (ch === ")") parens--;
          else if (ch === "{" && parens === 0) {
            body = true;
            depth = 1;
          }
        } else if (ch === "{") depth++;
        else if (ch === "}" && --depth === 0) break scan;
      }
      if (!body && parens === 0 && /[;,]\s*$/.test(lines[j])) break;
    }
    if (body && j - i + 1 > limit) found.push([name, j - i + 1]);
  }
  return found;
}

Deno.test("the scan counts a function's lines brace for brace, past braces in strings and comments", () => {
  const body = Array.from({ length: 5 }, (_, k) => `  const s${k} = "}{" + \`\${"}"}\`; // }`);
  const src = [
    "export async function long(",
    "  a = {},",
    "): Promise<void> {",
    ...body,
    "  if (a) {",
    "  }",
    "}",
    "const short = (x: number) => {",
    "  return x;",
    "};",
    "class K {",
    "  method(y: string): number {",
    "    /* { */ return 1;",
    "  }",
    "}",
  ].join("\n");
  assertEquals(longFunctions(src, 3), [["long", 11]]);
  assertEquals(longFunctions(src, 2), [["long", 11], ["short", 3], ["method", 3]]);
});

Deno.test(`no function in cli/ over ${LIMIT} lines but the allowed ones, and the list only shrinks`, () => {
  const long = new Map<string, number>();
  for (const entry of Deno.readDirSync(`${ROOT}cli`)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const src = Deno.readTextFileSync(`${ROOT}cli/${entry.name}`);
    for (const [name, n] of longFunctions(src, LIMIT)) long.set(`${entry.name}:${name}`, n);
  }
  const unexpected = [...long].filter(([f]) => !ALLOWED.has(f));
  assertEquals(unexpected, [], "split these along the steps of a run, or allow them with a reason");
  const shrunk = [...ALLOWED.keys()].filter((f) => !long.has(f));
  assertEquals(shrunk, [], `now ${LIMIT} lines or fewer: take them off ALLOWED`);
  for (const [f, why] of ALLOWED) assert(why.length > 0, f);
});

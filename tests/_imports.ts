// The repository's static import graph, read from the source (no type
// checker): what tests/repo/core_boundary_test.ts and tests/repo/import_circles_test.ts
// check. Static imports and re-exports (`from "..."`, `import "..."`) and
// dynamic `import("...")` with a literal path all count, `import type` too:
// a module that needs another's types cannot be read, moved or split without
// it either, so a type-only circle is still a circle. JSDoc examples (lines
// starting with ` * `) and line comments are documentation, not imports.

import { ROOT } from "./_cli.ts";

/** The folders whose modules make the graph (tests/ included: a helper can close a circle too). */
export const SOURCE_FOLDERS = [
  "api",
  "bench",
  "cli",
  "core",
  "docs",
  "fuzz",
  "io",
  "schedulers",
  "testing",
  "tests",
];

/** One import of a module: its specifier, and whether only types are imported. */
export interface Import {
  readonly spec: string;
  /** `import type`, `export type`, or braces holding only `type X` names: erased when compiled. */
  readonly typeOnly: boolean;
}

/** The imports of `source`, in order (see the header for what counts). */
export function importsOf(source: string): Import[] {
  const code = source.split("\n").filter((l) => !/^\s*\*/.test(l) && !/^\s*\/\//.test(l))
    .join("\n");
  const out: { at: number; spec: string; typeOnly: boolean }[] = [];
  const statement =
    /(?:^|[\n;])\s*(import|export)\s+(type\s+)?([^;"'`]*?)\s*from\s*["']([^"']+)["']/g;
  for (const m of code.matchAll(statement)) {
    const names = m[3].trim();
    const braces = /^\{([^}]*)\}$/.exec(names);
    const items = braces?.[1].split(",").map((x) => x.trim()).filter((x) => x !== "") ?? [];
    const typeOnly = m[2] !== undefined ||
      (braces !== null && items.length > 0 && items.every((x) => x.startsWith("type ")));
    out.push({ at: m.index!, spec: m[4], typeOnly });
  }
  for (const m of code.matchAll(/(?:^|[\n;])\s*import\s*["']([^"']+)["']/g)) {
    out.push({ at: m.index!, spec: m[1], typeOnly: false });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) {
    out.push({ at: m.index!, spec: m[1], typeOnly: false });
  }
  return out.sort((x, y) => x.at - y.at).map(({ spec, typeOnly }) => ({ spec, typeOnly }));
}

/** Every .ts module of the repository (the root's and SOURCE_FOLDERS'), as paths from the root. */
export async function modules(root = ROOT): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(root)) {
    if (e.isFile && e.name.endsWith(".ts")) out.push(e.name);
  }
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(root + dir)) {
      if (e.isDirectory && e.name !== "fixtures") await walk(`${dir}/${e.name}`);
      else if (e.isFile && e.name.endsWith(".ts")) out.push(`${dir}/${e.name}`);
    }
  };
  for (const f of SOURCE_FOLDERS) await walk(f);
  return out.sort();
}

/** `a/b/../c.ts` as `a/c.ts`. */
function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

/** An edge of the import graph: the imported module (a path from the root) and how. */
export interface Edge {
  readonly to: string;
  readonly typeOnly: boolean;
}

/**
 * The import graph: each module to the repository files it imports
 * (relative specifiers that name an existing file; packages such as "yaml"
 * or "@evtsim/evtsim" are outside the graph). A module importing another
 * both for types and for values has one edge, not type-only.
 */
export async function importGraph(root = ROOT): Promise<Map<string, Edge[]>> {
  const exists = async (f: string) => await Deno.stat(root + f).then((s) => s.isFile, () => false);
  const graph = new Map<string, Edge[]>();
  for (const m of await modules(root)) {
    const dir = m.includes("/") ? m.slice(0, m.lastIndexOf("/") + 1) : "";
    const edges = new Map<string, boolean>();
    for (const i of importsOf(await Deno.readTextFile(root + m))) {
      if (!i.spec.startsWith("./") && !i.spec.startsWith("../")) continue;
      const to = normalise(dir + i.spec);
      if (!await exists(to)) continue;
      edges.set(to, (edges.get(to) ?? true) && i.typeOnly);
    }
    graph.set(m, [...edges].map(([to, typeOnly]) => ({ to, typeOnly })));
  }
  return graph;
}

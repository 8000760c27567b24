// core/ defines the contracts and knows none of their implementations: no
// file under core/ may import from schedulers/, io/, cli/ or api/ (or the
// package entry points, which re-export them).

import { assertEquals } from "./_assert.ts";

const FORBIDDEN = ["schedulers/", "io/", "cli/", "api/", "mod.ts", "testing/"];

function importsOf(source: string): string[] {
  const out: string[] = [];
  // Static imports and re-exports (`from "..."`) and dynamic `import("...")`;
  // JSDoc examples (lines starting with ` * `) are documentation, not imports.
  for (const line of source.split("\n")) {
    if (/^\s*\*/.test(line) || /^\s*\/\//.test(line)) continue;
    for (const m of line.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
      out.push(m[1]);
    }
  }
  return out;
}

Deno.test("no file under core/ imports schedulers/, io/, cli/ or api/", async () => {
  const coreDir = new URL("../core/", import.meta.url);
  const violations: string[] = [];
  let files = 0;
  for await (const entry of Deno.readDir(coreDir)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    files++;
    const source = await Deno.readTextFile(new URL(entry.name, coreDir));
    for (const spec of importsOf(source)) {
      const resolved = new URL(spec, new URL(entry.name, coreDir)).pathname;
      const relative = resolved.slice(new URL("../", import.meta.url).pathname.length);
      if (spec.startsWith(".") && FORBIDDEN.some((f) => relative.startsWith(f))) {
        violations.push(`core/${entry.name} imports ${spec}`);
      }
      if (spec.startsWith("@evtsim/")) violations.push(`core/${entry.name} imports ${spec}`);
    }
  }
  if (files < 10) throw new Error(`only ${files} core files found`);
  assertEquals(violations, []);
});

Deno.test("the import scan sees a forbidden import when there is one", () => {
  const sample =
    'import { x } from "../schedulers/registry.ts";\n * import { y } from "../mod.ts";\n';
  assertEquals(importsOf(sample), ["../schedulers/registry.ts"]);
});

// io/ reads and writes formats for every front: it may use core/ and
// schedulers/ (the topology types live beside the topology cluster), never
// the fronts above it (api/, cli/).
Deno.test("no file under io/ imports api/ or cli/", async () => {
  const ioDir = new URL("../io/", import.meta.url);
  const violations: string[] = [];
  let files = 0;
  for await (const entry of Deno.readDir(ioDir)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    files++;
    const source = await Deno.readTextFile(new URL(entry.name, ioDir));
    for (const spec of importsOf(source)) {
      const resolved = new URL(spec, new URL(entry.name, ioDir)).pathname;
      const relative = resolved.slice(new URL("../", import.meta.url).pathname.length);
      if (
        spec.startsWith(".") &&
        ["api/", "cli/", "mod.ts"].some((f) => relative.startsWith(f))
      ) {
        violations.push(`io/${entry.name} imports ${spec}`);
      }
    }
  }
  if (files < 10) throw new Error(`only ${files} io files found`);
  assertEquals(violations, []);
});

// Every JSDoc `@example` shows use: it calls a function, constructor or
// method of evtsim and checks what the call computed, rather than writing a
// typed literal and asserting it back (tests/_example_audit.ts says how a
// call is recognised; run it to list the blocks). A type's example builds
// its value with a real call (a `Simulation` run, a reader, `fuzzScheduler`
// with few runs); ALLOWED is only for a block that truly has nothing to call.

import { assertEquals } from "../_assert.ts";
import { auditExamples, checksComputed, evtsimCalls, examplesOf } from "../_example_audit.ts";

// "file:symbol" -> why the example can call nothing of evtsim.
const ALLOWED: Readonly<Record<string, string>> = {};

Deno.test("every @example block calls evtsim (or is allowed, with a reason)", async () => {
  const blocks = await auditExamples();
  const bare = blocks.filter((b) => b.calls.length === 0);
  const unexplained = bare.filter((b) => !(`${b.file}:${b.symbol}` in ALLOWED))
    .map((b) => `${b.file}:${b.line} ${b.symbol}`);
  assertEquals(unexplained, [], "these @example blocks call nothing of evtsim: show real use");
  // An allowance whose block now calls evtsim (or is gone) is dropped.
  const stale = Object.keys(ALLOWED).filter((key) =>
    !bare.some((b) => `${b.file}:${b.symbol}` === key)
  );
  assertEquals(stale, [], "ALLOWED lists blocks that no longer need it");
});

Deno.test("every @example that calls evtsim asserts something a call computed", async () => {
  const blocks = await auditExamples();
  const literal = blocks.filter((b) => b.calls.length > 0 && !b.checksComputed)
    .map((b) => `${b.file}:${b.line} ${b.symbol}`);
  assertEquals(literal, [], "these @example blocks assert only values they wrote themselves");
});

Deno.test("the audit tells a literal asserted back from a call", () => {
  // The two forms the review found, then real use.
  assertEquals(
    evtsimCalls(
      'import type { PendReasonCode } from "@evtsim/evtsim";\n' +
        'const code: PendReasonCode = "insufficient_nodes";\n' +
        'if (code !== "insufficient_nodes") throw new Error("code");',
    ),
    [],
  );
  assertEquals(
    evtsimCalls(
      'import { fuzzScheduler, type FuzzSchedulerOptions } from "@evtsim/evtsim/testing";\n' +
        "const o: FuzzSchedulerOptions = { numRuns: 500 };\n" +
        "// fuzzScheduler(o) in a comment is no call\n" +
        'console.assert(o.path === undefined, "fuzzScheduler(o)");',
    ),
    [],
  );
  assertEquals(
    evtsimCalls(
      'import { fuzzScheduler } from "@evtsim/evtsim/testing";\n' +
        "const r = fuzzScheduler({}, { numRuns: 2, seed: 1 });\nconsole.assert(r.ok);",
    ),
    ["fuzzScheduler"],
  );
  // A constructor, a method of an exported object, a value the file exports.
  assertEquals(
    evtsimCalls(
      'import { Simulation } from "./simulation.ts";\nnew Simulation({ totalNodes: 1 });',
    ),
    ["Simulation"],
  );
  assertEquals(
    evtsimCalls('import { defaultRegistry as r } from "@evtsim/evtsim";\nr.pickers.get("fcfs");'),
    ["r"],
  );
  assertEquals(evtsimCalls("console.assert(f(1) === 2);", new Set(["f"])), ["f"]);
  assertEquals(
    evtsimCalls(
      'import { defaultRegistry } from "@evtsim/evtsim";\n[...defaultRegistry().pickers];',
    ),
    ["defaultRegistry"],
  );
  // A method of something else that has the same name is no call of evtsim.
  assertEquals(evtsimCalls('import { step } from "@evtsim/evtsim";\nother.step(1);'), []);
  // A non-evtsim import calls nothing of evtsim.
  assertEquals(evtsimCalls('import fc from "fast-check";\nfc.integer();'), []);
});

Deno.test("the audit tells an assertion on a call's result from one on a literal", () => {
  const sim =
    'import { Simulation } from "@evtsim/evtsim";\nconst sim = new Simulation({ totalNodes: 1 });\n';
  assertEquals(checksComputed(sim + "const x = 5;\nconsole.assert(x === 5);"), false);
  assertEquals(checksComputed(sim + "console.assert(sim.availableNodes === 1);"), true);
  // A value written into a call's arguments is no result; a bare name the call may change is.
  assertEquals(
    checksComputed(
      sim +
        'const outcome = "killed";\nsim.endJob(0, 1, { outcome });\nconsole.assert(outcome === "killed");',
    ),
    false,
  );
  assertEquals(
    checksComputed(
      'import { sortFloat64 } from "./_float_sort.ts";\nconst xs = Float64Array.of(2, 1);\nsortFloat64(xs);\nconsole.assert(xs[0] === 1);',
    ),
    true,
  );
  // A name a statement with a call fills (a callback's array) is computed too.
  assertEquals(
    checksComputed(
      'import { Simulation } from "@evtsim/evtsim";\nconst seen: number[] = [];\n' +
        "new Simulation({ totalNodes: 1 }, { onDecision: (d) => seen.push(d.jobId) });\n" +
        "if (seen.length !== 0) throw new Error();",
    ),
    true,
  );
});

Deno.test("the audit finds the block, its line and its symbol", () => {
  const text = [
    "/**",
    " * A code.",
    " *",
    " * @example",
    " * ```ts",
    ' * const c: Code = "a";',
    ' * console.assert(c === "a");',
    " * ```",
    " */",
    'export type Code = "a" | "b";',
  ].join("\n");
  assertEquals(examplesOf("x.ts", text), [
    { file: "x.ts", line: 4, symbol: "Code", calls: [], checksComputed: false },
  ]);
});

// `deno task fuzz`: runs every property of fuzz/properties.ts with many runs
// and a random (printed) seed. On failure it writes the shrunk counterexample
// (fuzz/counterexample.ts), prints the note with the commands that reproduce
// it, and exits 1.
//
//   deno task fuzz [--runs N] [--seed S] [--only NAME] [--path P] [--out DIR] [--list]

import fc from "fast-check";
import { intArg, parseScriptArgs } from "../bench/_args.ts";
import { type Failure, writeCounterexample } from "./counterexample.ts";
import { type FuzzCase, type FuzzProperty, PROPERTIES } from "./properties.ts";

/** Where the runner writes its text. */
export interface FuzzConsole {
  out(line: string): void;
  err(line: string): void;
}

/** Options of a fuzz run. */
export interface FuzzOptions {
  readonly runs: number;
  readonly seed: number;
  /** Property name to run alone. */
  readonly only?: string;
  /** fast-check path of a counterexample to replay (needs `only` and `seed`). */
  readonly path?: string;
  readonly out: string;
}

const USAGE = "usage: deno task fuzz [--runs N] [--seed S] [--only NAME] [--path P] " +
  "[--out DIR] [--list]";

/** Default number of runs per property. */
export const DEFAULT_RUNS = 5000;
/** Default folder for counterexamples. */
export const DEFAULT_OUT = "fuzz-failures/";

/** Parses the command line; throws an Error with a one-line message on a bad one. */
export function parseFuzzArgs(
  args: readonly string[],
  randomSeed: () => number,
  names: readonly string[] = PROPERTIES.map((p) => p.name),
): FuzzOptions | "list" | "help" {
  const { values: v, positionals } = parseScriptArgs(args, {
    runs: { type: "string" },
    seed: { type: "string" },
    only: { type: "string" },
    path: { type: "string" },
    out: { type: "string" },
    list: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (positionals.length > 0) throw new Error(`unknown argument '${positionals[0]}'`);
  if (v.help === true) return "help";
  if (v.list === true) return "list";
  const runs = intArg("--runs", v.runs, 1) ?? DEFAULT_RUNS;
  const seed = intArg("--seed", v.seed, -(2 ** 31));
  if (seed !== undefined && seed >= 2 ** 31) {
    throw new Error(`--seed must fit in 32 bits, got ${seed}`);
  }
  const only = v.only;
  const path = v.path;
  if (path !== undefined && !/^\d+(:\d+)*$/.test(path)) {
    throw new Error(`--path looks like 12:0:3, got '${path}'`);
  }
  const out = v.out ?? DEFAULT_OUT;
  if (only !== undefined && !names.includes(only)) {
    throw new Error(`unknown property '${only}' (see --list)`);
  }
  if (path !== undefined && (only === undefined || seed === undefined)) {
    throw new Error("--path replays one counterexample: give --only and --seed too");
  }
  return { runs, seed: seed ?? randomSeed(), only, path, out };
}

/**
 * Runs one property; returns undefined when it held, or the shrunk failure.
 * With `path`, fast-check replays that counterexample (and shrinks further).
 */
export function runProperty(
  p: FuzzProperty,
  o: { readonly runs: number; readonly seed: number; readonly path?: string },
): Failure | undefined {
  const details = fc.check(fc.property(p.arbitrary, (c: FuzzCase) => p.check(c)), {
    seed: o.seed,
    numRuns: o.runs,
    path: o.path,
  });
  if (!details.failed) return undefined;
  const [counterexample] = details.counterexample ?? [];
  const e = details.errorInstance;
  if (counterexample === undefined) {
    // fast-check failed without a value (for example an interrupted run): nothing to write.
    throw e instanceof Error ? e : new Error(`property ${p.name} failed without a counterexample`);
  }
  return {
    property: p.name,
    description: p.description,
    seed: details.seed,
    path: details.counterexamplePath ?? "",
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    error: e instanceof Error ? e.message : String(e),
    counterexample,
  };
}

/**
 * The runner. Runs `properties` (all of them, or `--only` one), writes a
 * counterexample for each failure and returns the exit code (0 all held, 1 a
 * property failed, 2 usage error).
 */
export async function fuzzMain(
  args: readonly string[],
  con: FuzzConsole,
  properties: readonly FuzzProperty[] = PROPERTIES,
  randomSeed: () => number = () => Math.floor(Math.random() * 2 ** 31),
): Promise<number> {
  let o: ReturnType<typeof parseFuzzArgs>;
  try {
    o = parseFuzzArgs(args, randomSeed, properties.map((p) => p.name));
  } catch (e) {
    con.err(`fuzz: ${(e as Error).message}`);
    con.err(USAGE);
    return 2;
  }
  if (o === "help" || o === "list") {
    if (o === "help") con.out(USAGE);
    for (const p of properties) con.out(`  ${p.name.padEnd(26)} ${p.description}`);
    return 0;
  }
  const selected = properties.filter((p) => o.only === undefined || p.name === o.only);
  con.out(`fuzz: seed ${o.seed}, ${o.path !== undefined ? `path ${o.path}` : `${o.runs} runs`}`);
  let failed = 0;
  for (const p of selected) {
    const started = performance.now();
    const failure = runProperty(p, o);
    const ms = Math.round(performance.now() - started);
    if (failure === undefined) {
      con.out(`ok    ${p.name} (${ms} ms)`);
      continue;
    }
    failed++;
    con.out(`FAIL  ${p.name} (${ms} ms)`);
    const written = await writeCounterexample(o.out, failure);
    for (const line of written.note.trimEnd().split("\n")) con.out(`      ${line}`);
  }
  con.out(failed === 0 ? "fuzz: every property held" : `fuzz: ${failed} property(ies) failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  const encoder = new TextEncoder();
  const con: FuzzConsole = {
    out: (line) => Deno.stdout.writeSync(encoder.encode(line + "\n")),
    err: (line) => Deno.stderr.writeSync(encoder.encode(line + "\n")),
  };
  Deno.exit(await fuzzMain(Deno.args, con));
}

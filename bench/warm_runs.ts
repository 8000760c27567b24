// The same trace simulated several times in one process: the first run pays
// for V8's tiering (interpreter → baseline → optimised code) and for growing
// the heap; later runs show what the engine costs once its code is hot. The
// gap between them is the part of a short whole-CLI run (KTH: ~28k jobs)
// that no change to the engine's data structures can remove.
//
// Each run reads the trace from the file and feeds it as the `simulate`
// command does (cli/run_loop.ts): chunks of 512 jobs with the clock run up to
// each chunk's first submit time, then to completion. Rows are produced but
// not written. Each run's CPU time (user + system, all threads: V8's
// compiler and GC threads included) is printed beside its wall time, since
// on a shared machine wall times say little; the last line is the median
// CPU time of the runs after the first.
//
// usage: deno run -A bench/warm_runs.ts TRACE.csv --nodes N [--policy easy]
//          [--runs 4] [--run_time_mode actual]

import process from "node:process";
import { initialState, type JobSpec, type SimState, step } from "../mod.ts";
import { readTrace } from "../io/trace_csv.ts";
import type { BackfillPolicy, RunTimeMode } from "../core/types.ts";
import { intArg, parseScriptArgs } from "./_args.ts";

// The command's FEED_CHUNK (cli/run_loop.ts): as many step boundaries.
const CHUNK = 512;
const USAGE =
  "usage: deno run -A bench/warm_runs.ts TRACE.csv --nodes N [--policy easy|conservative|none] [--runs 4] [--run_time_mode actual|limit]";

/** Timings of one run, in milliseconds, and the rows it produced. */
export interface WarmRun {
  /** Reading and parsing the trace. */
  readonly readMs: number;
  /** Feeding every job and running to the end. */
  readonly simulateMs: number;
  /** CPU time (user + system) of the same. */
  readonly simulateCpuMs: number;
  /** Schedule plus resource rows produced (the same for every run). */
  readonly rows: number;
}

/**
 * Simulates `jobs` from scratch as the command does; returns the row count.
 *
 * @example
 * ```ts
 * import { simulateLikeCli } from "./warm_runs.ts";
 * const jobs = [{ submitTime: 0, numNodes: 2, timeLimit: 10, actualRunTime: 5 }];
 * console.assert(simulateLikeCli(jobs, 4, "easy", "actual") === 4); // 1 schedule row; resource rows: idle machine, start, end
 * ```
 */
export function simulateLikeCli(
  jobs: readonly JobSpec[],
  totalNodes: number,
  backfillPolicy: BackfillPolicy,
  runTimeMode: RunTimeMode,
): number {
  let s: SimState = initialState({ totalNodes, backfillPolicy, runTimeMode });
  let rows = 0;
  const apply = (input: Parameters<typeof step>[1]) => {
    const r = step(s, input);
    s = r.state;
    rows += r.rows.jobs.length + r.rows.resources.length;
  };
  for (let i = 0; i < jobs.length; i += CHUNK) {
    const chunk = jobs.slice(i, i + CHUNK);
    if (chunk[0].submitTime > s.time) {
      apply({ kind: "runUntilExclusive", time: chunk[0].submitTime });
    }
    apply({ kind: "appendJobs", jobs: chunk });
  }
  apply({ kind: "runToCompletion" });
  apply({ kind: "finish" });
  return rows;
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseScriptArgs(args, {
    nodes: { type: "string" },
    policy: { type: "string", default: "easy" },
    runs: { type: "string", default: "4" },
    run_time_mode: { type: "string", default: "actual" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const nodes = intArg("--nodes", values.nodes, 1);
  const runs = intArg("--runs", values.runs, 1)!;
  if (positionals.length !== 1 || nodes === undefined) {
    console.error(USAGE);
    return 2;
  }
  const policy = values.policy as BackfillPolicy;
  if (!["easy", "conservative", "none"].includes(policy)) {
    throw new Error(`--policy expects easy, conservative or none, got '${policy}'`);
  }
  const mode = values.run_time_mode as "actual" | "limit";
  if (mode !== "actual" && mode !== "limit") {
    throw new Error(`--run_time_mode expects actual or limit, got '${mode}'`);
  }
  const warmCpu: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const t0 = performance.now();
    const trace = await readTrace(positionals[0], { runTimeMode: mode });
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const rows = simulateLikeCli(trace.jobs, nodes, policy, mode);
    const t2 = performance.now();
    const c2 = process.cpuUsage(c1);
    const r: WarmRun = {
      readMs: t1 - t0,
      simulateMs: t2 - t1,
      simulateCpuMs: (c2.user + c2.system) / 1000,
      rows,
    };
    if (run > 1) warmCpu.push(r.simulateCpuMs);
    console.log(
      `run ${run}: read ${r.readMs.toFixed(0)} ms, simulate ${r.simulateMs.toFixed(0)} ms (CPU ${
        r.simulateCpuMs.toFixed(0)
      } ms), ${r.rows} rows`,
    );
  }
  if (warmCpu.length > 0) {
    warmCpu.sort((a, b) => a - b);
    const median = warmCpu[(warmCpu.length - 1) >> 1];
    console.log(`runs 2-${runs}: median simulate CPU ${median.toFixed(0)} ms`);
  }
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (e) {
    console.error(`warm_runs: ${(e as Error).message}`);
    Deno.exit(1);
  }
}

// Seeded synthetic workloads for benchmarks and differential checks: Poisson
// arrivals, a mix of serial / power-of-two / uniform job sizes, log-normal
// (heavy-tailed) time limits, actual run times at or below the limit, and
// inter-arrival gaps chosen so that the offered load (node-seconds asked /
// node-seconds available) is `load`. A load above 1 makes the wait queue
// grow for the whole run, which is what stresses backfilling.
//
// This is the generator of the published benchmark inputs (bench/README.md):
// it draws from CPython's random.Random (bench/_py_random.ts) in the order
// the original gen_trace.py did, so `gen_trace.ts 7 100000 1024 0.9` writes
// the same bytes as `gen_trace.py 7 100000 1024 0.9` did.
//
//   deno task gen SEED JOBS NODES LOAD [--ties] [--out FILE]

import type { JobSpec } from "../mod.ts";
import { intArg, numberArg, parseScriptArgs } from "./_args.ts";
import { PyRandom } from "./_py_random.ts";

export type { JobSpec };

/** Parameters of {@link generateTrace}. */
export interface TraceParams {
  /** Seed (an integer >= 0); the same parameters always give the same trace. */
  readonly seed: number;
  /** Number of jobs. */
  readonly jobs: number;
  /** Machine size; job sizes never exceed it. */
  readonly nodes: number;
  /** Offered load; above 1 the queue grows without bound. */
  readonly load: number;
  /** When true, about 30% of jobs share the previous job's submit time. */
  readonly ties?: boolean;
}

/**
 * A seeded random trace in submit order, with integer times and
 * `1 <= actualRunTime <= timeLimit`.
 *
 * @example
 * ```ts
 * import { generateTrace } from "./gen_trace.ts";
 * const jobs = generateTrace({ seed: 1, jobs: 100, nodes: 64, load: 1.2 });
 * console.assert(jobs.length === 100 && jobs.every((j) => j.numNodes <= 64));
 * ```
 */
export function generateTrace(params: TraceParams): JobSpec[] {
  const { seed, jobs, nodes, load } = params;
  if (!(Number.isSafeInteger(seed) && seed >= 0)) {
    throw new RangeError(`seed: expected an integer >= 0`);
  }
  if (!(Number.isInteger(jobs) && jobs >= 0)) {
    throw new RangeError(`jobs: expected an integer >= 0`);
  }
  if (!(Number.isInteger(nodes) && nodes >= 1)) {
    throw new RangeError(`nodes: expected an integer >= 1`);
  }
  if (!(load > 0)) throw new RangeError(`load: expected a number > 0`);
  const r = new PyRandom(seed);
  const maxExp = Math.max(1, Math.trunc(Math.log2(nodes)) - 1);
  const n = new Array<number>(jobs);
  const limits = new Array<number>(jobs);
  const actuals = new Array<number>(jobs);
  let work = 0;
  for (let i = 0; i < jobs; i++) {
    const u = r.random();
    // 35% serial, 45% powers of two, 20% uniform. The power of two is capped
    // at the machine size (only a 1-node machine needs it; the draws are the same).
    n[i] = u < 0.35
      ? 1
      : u < 0.8
      ? Math.min(nodes, 2 ** r.randint(1, maxExp))
      : r.randint(1, nodes);
    const limit = Math.max(1, Math.trunc(r.lognormvariate(6.5, 1.3)));
    limits[i] = limit;
    actuals[i] = r.random() < 0.3 ? limit : Math.max(1, Math.trunc(limit * r.random()));
    work += n[i] * actuals[i];
  }
  // Integer sum divided once, as Python's int / int; then gap as the script has it.
  const meanWork = jobs === 0 ? 0 : work / jobs;
  const gap = meanWork / (nodes * load);
  const out: JobSpec[] = new Array(jobs);
  let t = 0.0;
  for (let i = 0; i < jobs; i++) {
    if (!(params.ties === true && r.random() < 0.3)) t += r.expovariate(1.0 / gap);
    out[i] = {
      submitTime: Math.trunc(t),
      numNodes: n[i],
      timeLimit: limits[i],
      actualRunTime: actuals[i],
      queue: "pbatch",
    };
  }
  return out;
}

/**
 * The DR_EVT `simple` CSV text of a trace (header line included).
 *
 * @example
 * ```ts
 * import { traceToCsv } from "./gen_trace.ts";
 * const csv = traceToCsv([{ submitTime: 0, numNodes: 2, timeLimit: 60, actualRunTime: 30 }]);
 * console.assert(csv === "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n0,2,pbatch,60,30\n");
 * ```
 */
export function traceToCsv(jobs: readonly JobSpec[]): string {
  const lines = ["job_submit_time,num_nodes,queue,time_limit,actual_run_time"];
  for (const j of jobs) {
    lines.push(
      `${j.submitTime},${j.numNodes},${j.queue ?? "pbatch"},${j.timeLimit},${
        j.actualRunTime ?? j.timeLimit
      }`,
    );
  }
  return lines.join("\n") + "\n";
}

const USAGE = "usage: deno task gen SEED JOBS NODES LOAD [--ties] [--out FILE]\n" +
  "  LOAD ~ offered load (node-seconds requested / node-seconds available); > 1 builds deep queues";

/** The command: writes the CSV to --out or stdout; returns the exit code. */
export async function genMain(args: readonly string[]): Promise<number> {
  let params: TraceParams;
  let out: string | undefined;
  try {
    const { values, positionals } = parseScriptArgs(args, {
      ties: { type: "boolean" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help === true) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 4) throw new Error("expected SEED JOBS NODES LOAD");
    const [seed, jobs, nodes, load] = positionals;
    params = {
      seed: intArg("SEED", seed, 0)!,
      jobs: intArg("JOBS", jobs, 0)!,
      nodes: intArg("NODES", nodes, 1)!,
      load: numberArg("LOAD", load, 0)!,
      ties: values.ties === true,
    };
    out = values.out;
  } catch (e) {
    console.error(`gen_trace: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const csv = traceToCsv(generateTrace(params));
  if (out !== undefined) await Deno.writeTextFile(out, csv);
  else await Deno.stdout.write(new TextEncoder().encode(csv));
  return 0;
}

if (import.meta.main) Deno.exit(await genMain(Deno.args));

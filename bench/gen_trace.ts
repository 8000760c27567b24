// Seeded synthetic workloads for benchmarks, with the shape of gen_trace.py:
// Poisson arrivals, a mix of serial / power-of-two / uniform job sizes,
// log-normal (heavy-tailed) time limits, actual run times at or below the
// limit, and inter-arrival gaps chosen so that the offered load (node-seconds
// asked / node-seconds available) is `load`. A load above 1 makes the wait
// queue grow for the whole run, which is what stresses backfilling.
//
// It is not byte-compatible with the Python script (different generator);
// the benchmark suite uses the Python copies for the published inputs.

import { nextSfc32, seedSfc32 } from "./_sfc32.ts";
import type { JobSpec } from "../mod.ts";

export type { JobSpec };

/** Parameters of {@link generateTrace}. */
export interface TraceParams {
  /** Seed; the same parameters always give the same trace. */
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

/** The seeded sfc32 generator (./_sfc32.ts), as a plain function. */
function makeRandom(seed: number): () => number {
  let state = seedSfc32(seed);
  return () => {
    const [u, next] = nextSfc32(state);
    state = next;
    return u;
  };
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
  if (!(Number.isInteger(jobs) && jobs >= 0)) {
    throw new RangeError(`jobs: expected an integer >= 0`);
  }
  if (!(Number.isInteger(nodes) && nodes >= 1)) {
    throw new RangeError(`nodes: expected an integer >= 1`);
  }
  if (!(load > 0)) throw new RangeError(`load: expected a number > 0`);
  const rand = makeRandom(seed);
  const randint = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const maxExp = Math.max(1, Math.floor(Math.log2(nodes)) - 1);

  const sizes = new Array<{ n: number; limit: number; actual: number }>(jobs);
  let work = 0;
  for (let i = 0; i < jobs; i++) {
    const u = rand();
    // Same mix as gen_trace.py: 35% serial, 45% powers of two, 20% uniform.
    const n = u < 0.35 ? 1 : u < 0.8 ? Math.min(nodes, 2 ** randint(1, maxExp)) : randint(1, nodes);
    const limit = Math.max(1, Math.floor(Math.exp(6.5 + 1.3 * normal())));
    const actual = rand() < 0.3 ? limit : Math.max(1, Math.floor(limit * rand()));
    sizes[i] = { n, limit, actual };
    work += n * actual;
  }
  const gap = jobs === 0 ? 0 : work / jobs / (nodes * load);
  const out: JobSpec[] = new Array(jobs);
  let t = 0;
  for (let i = 0; i < jobs; i++) {
    if (!(params.ties && rand() < 0.3)) t += -Math.log(1 - rand()) * gap;
    const { n, limit, actual } = sizes[i];
    out[i] = {
      submitTime: Math.floor(t),
      numNodes: n,
      timeLimit: limit,
      actualRunTime: actual,
      queue: "pbatch",
    };
  }
  return out;
}

/** The DR_EVT `simple` CSV text of a trace (header line included). */
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

const USAGE = "usage: gen_trace.ts SEED JOBS NODES LOAD [--ties] [--out FILE]";

async function main(args: string[]): Promise<number> {
  const positional = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--out");
  const outIndex = args.indexOf("--out");
  if (positional.length !== 4 || args.includes("--help")) {
    console.error(USAGE);
    return args.includes("--help") ? 0 : 2;
  }
  const [seed, jobs, nodes, load] = positional.map(Number);
  let csv: string;
  try {
    csv = traceToCsv(generateTrace({ seed, jobs, nodes, load, ties: args.includes("--ties") }));
  } catch (e) {
    console.error(`Error: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (outIndex >= 0) {
    await Deno.writeTextFile(args[outIndex + 1], csv);
  } else {
    await Deno.stdout.write(new TextEncoder().encode(csv));
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));

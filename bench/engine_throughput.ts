// In-process whole-trace throughput of the engine (no CLI, no file I/O):
// generates seeded traces with gen_trace.ts and drives the public reducer
// (initialState → appendJobs → run → finish) for FCFS, EASY and
// CONSERVATIVE, printing jobs/second. Timing covers the simulation only, not
// trace generation.
//
// A run that exceeds --budget seconds is cut short and reported as partial
// (completed jobs / elapsed), so one pathological policy cannot hang the table.
//
// usage: deno run -A bench/engine_throughput.ts [--jobs 10000,100000] [--nodes 1000]
//          [--load 1.5] [--seed 1] [--ties] [--policies fcfs,easy,conservative]
//          [--budget 300] [--repeat 1] [--no-warmup]

import { initialState, type JobSpec, type SimState, step } from "../mod.ts";
import { statistics } from "../core/queries.ts";
import type { BackfillPolicy, PriorityPolicy } from "../core/types.ts";
import { generateTrace } from "./gen_trace.ts";
import { formatRate, formatTable } from "./_util.ts";
import { intArg, numberArg, parseScriptArgs } from "./_args.ts";

/** A named scheduling setup, as the CLI would spell it. */
export interface PolicySetup {
  /** Name in the table. */
  readonly label: string;
  /** `--priority_policy`. */
  readonly priorityPolicy: PriorityPolicy;
  /** `--backfill_policy`. */
  readonly backfillPolicy: BackfillPolicy;
}

export type { BackfillPolicy, JobSpec, PriorityPolicy };

/** The three setups of the throughput table. */
export const POLICIES: Readonly<Record<string, PolicySetup>> = {
  fcfs: { label: "FCFS", priorityPolicy: "fcfs", backfillPolicy: "none" },
  easy: { label: "EASY", priorityPolicy: "fcfs", backfillPolicy: "easy" },
  conservative: {
    label: "CONSERVATIVE",
    priorityPolicy: "fcfs_conservative",
    backfillPolicy: "conservative",
  },
};

/** What one in-process run measured. */
export interface EngineRun {
  /** Wall seconds of the simulation (trace generation excluded). */
  readonly seconds: number;
  /** Jobs finished (all of them unless the budget ran out). */
  readonly jobsCompleted: number;
  /** False when the budget ran out before every job finished. */
  readonly complete: boolean;
  /** Average wait (s), to check that two runs made the same decisions. */
  readonly averageWait: number;
  /** Deepest wait queue seen. */
  readonly peakQueueLength: number;
}

/**
 * Simulates `jobs` on `nodes` nodes and times it. The clock is advanced in
 * slices so that the budget can be checked between them; slicing does not
 * change scheduling decisions, only how often the state is frozen.
 */
export function runEngine(
  jobs: readonly JobSpec[],
  nodes: number,
  setup: PolicySetup,
  budgetSeconds = Infinity,
): EngineRun {
  const t0 = performance.now();
  const deadline = t0 + budgetSeconds * 1000;
  let s: SimState = initialState({
    totalNodes: nodes,
    backfillPolicy: setup.backfillPolicy,
    priorityPolicy: setup.priorityPolicy,
  });
  s = step(s, { kind: "appendJobs", jobs }).state;
  let complete = true;
  if (Number.isFinite(budgetSeconds) && jobs.length > 0) {
    const lastSubmit = jobs[jobs.length - 1].submitTime;
    const slice = Math.max(1, Math.ceil(lastSubmit / 200));
    let completed = 0;
    for (let t = s.time + slice; completed < jobs.length; t += slice) {
      s = step(s, { kind: "advanceTo", time: t }).state;
      const st = statistics(s);
      completed = st.jobsCompleted + st.jobsRejected;
      if (performance.now() > deadline && completed < jobs.length) {
        complete = false;
        break;
      }
    }
  } else {
    s = step(s, { kind: "runToCompletion" }).state;
  }
  if (complete) s = step(s, { kind: "finish" }).state;
  const seconds = (performance.now() - t0) / 1000;
  const st = statistics(s);
  return {
    seconds,
    jobsCompleted: st.jobsCompleted,
    complete,
    averageWait: st.averageWait,
    peakQueueLength: st.peakQueueLength,
  };
}

const USAGE = `usage: engine_throughput.ts [--jobs 10000,100000] [--nodes 1000] [--load 1.5]
  [--seed 1] [--ties] [--policies fcfs,easy,conservative] [--budget SECONDS] [--repeat N]
  [--no-warmup]`;

function main(args: string[]): number {
  let sizes: number[];
  let nodes: number;
  let load: number;
  let seed: number;
  let ties: boolean;
  let budget: number;
  let repeat: number;
  let names: string[];
  let warmup: boolean;
  try {
    const { values: v } = parseScriptArgs(args, {
      jobs: { type: "string" },
      nodes: { type: "string" },
      load: { type: "string" },
      seed: { type: "string" },
      policies: { type: "string" },
      budget: { type: "string" },
      repeat: { type: "string" },
      ties: { type: "boolean" },
      "no-warmup": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    });
    if (v.help === true) {
      console.log(USAGE);
      return 0;
    }
    sizes = (v.jobs ?? "10000,100000").split(",").map((x) => intArg("--jobs", x, 1)!);
    nodes = intArg("--nodes", v.nodes, 1) ?? 1000;
    load = numberArg("--load", v.load, 0) ?? 1.5;
    seed = intArg("--seed", v.seed, 0) ?? 1;
    ties = v.ties === true;
    budget = numberArg("--budget", v.budget, 0) ?? 300;
    repeat = intArg("--repeat", v.repeat, 1) ?? 1;
    names = (v.policies ?? "fcfs,easy,conservative").split(",");
    warmup = v["no-warmup"] !== true;
    for (const n of names) {
      if (!(n in POLICIES)) {
        throw new Error(`unknown policy "${n}" (expected fcfs, easy, conservative)`);
      }
    }
  } catch (e) {
    console.error(`Error: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  console.log(
    `engine throughput: ${nodes} nodes, load ${load}${ties ? " with ties" : ""}, seed ${seed}, ` +
      `best of ${repeat}, budget ${budget} s per run (deno ${Deno.version.deno}, v8 ${Deno.version.v8})`,
  );
  if (warmup) {
    // Let V8 compile the hot paths before the first timed run.
    const warm = generateTrace({ seed: seed + 1000, jobs: 3000, nodes, load, ties });
    for (const n of names) runEngine(warm, nodes, POLICIES[n], 30);
  }
  const rows: string[][] = [];
  for (const jobs of sizes) {
    const trace = generateTrace({ seed, jobs, nodes, load, ties });
    for (const n of names) {
      let best: EngineRun | undefined;
      for (let r = 0; r < repeat; r++) {
        const run = runEngine(trace, nodes, POLICIES[n], budget);
        if (best === undefined || run.seconds < best.seconds) best = run;
        if (!run.complete) break;
      }
      const b = best!;
      rows.push([
        jobs.toLocaleString("en-US"),
        POLICIES[n].label,
        b.seconds.toFixed(3),
        formatRate(b.jobsCompleted / b.seconds) + (b.complete ? "" : " (partial)"),
        b.complete ? b.averageWait.toFixed(1) : "-",
        String(b.peakQueueLength),
      ]);
      console.error(`  done: ${jobs} jobs ${POLICIES[n].label} in ${b.seconds.toFixed(2)} s`);
    }
  }
  console.log(
    formatTable(["jobs", "policy", "wall s", "jobs/s", "avg wait s", "peak queue"], rows),
  );
  return 0;
}

if (import.meta.main) Deno.exit(main(Deno.args));

// EASY on a resource model against EASY on whole nodes (issue 28): one
// generated trace (bench/gen_trace.ts) run twice in one process — on N whole
// nodes, and on N nodes of 3 resources (32 cpu, 128 mem, 4 gpu) through a
// topology cluster, each job asking for the same cores in replicas of one of
// four shapes (a whole node; half a node with 2 GPUs; a quarter with no GPU;
// all cores, half the memory, no GPU) — printing both times and the ratio.
// Timing covers the engine's run (append, run to completion, finish), not
// generating the trace or building the model: wall time, and the process's
// CPU time over the same span (steadier on a shared machine, where the wall
// time also counts the time other processes had the CPU; it includes V8's
// helper threads, e.g. the concurrent garbage collector).
//
// usage: deno run -A bench/easy_resources.ts [--jobs 100000] [--nodes 1024]
//          [--load 0.9] [--seed 7] [--policy easy|easy_extra] [--repeat 1]

import {
  appendJobs,
  finish,
  initialState,
  type JobSpec,
  runToCompletion,
  type SimulationConfig,
  step,
  topologyCluster,
} from "../mod.ts";
import { generateTrace } from "./gen_trace.ts";
import { intArg, numberArg, parseScriptArgs } from "./_args.ts";
import { formatTable } from "./_util.ts";
import process from "node:process";

/** Replica shapes: units per replica, and replicas per whole node of cores. */
const SHAPES = [
  { perReplica: { cpu: 32, mem: 128, gpu: 4 }, perNode: 1 },
  { perReplica: { cpu: 16, mem: 64, gpu: 2 }, perNode: 2 },
  { perReplica: { cpu: 8, mem: 32 }, perNode: 4 },
  { perReplica: { cpu: 32, mem: 64 }, perNode: 1 },
] as const;

/** The trace with demands on the 3-resource machine (the same cores per job, shape by id). */
export function withDemands(trace: readonly JobSpec[]): JobSpec[] {
  return trace.map((j, id) => {
    const shape = SHAPES[(id * 2654435761 >>> 0) % SHAPES.length];
    return {
      ...j,
      numNodes: 0,
      demand: { replicas: j.numNodes * shape.perNode, perReplica: shape.perReplica },
    };
  });
}

/** The machine: `nodes` nodes of 32 cpu, 128 mem, 4 gpu, 32 to a rack. */
export function machine(nodes: number) {
  return Array.from({ length: nodes }, (_, i) => ({
    name: `n${String(i).padStart(5, "0")}`,
    topology: { rack: `r${Math.floor(i / 32)}` },
    capacity: { cpu: 32, mem: 128, gpu: 4 },
  }));
}

/** Runs `jobs` under `config` to the end; returns wall and CPU milliseconds and jobs completed. */
export function timeRun(
  config: SimulationConfig,
  jobs: readonly JobSpec[],
): { ms: number; cpuMs: number; done: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let s = step(initialState(config), appendJobs(jobs)).state;
  const a = step(s, runToCompletion());
  s = a.state;
  const b = step(s, finish());
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, done: a.rows.jobs.length + b.rows.jobs.length };
}

if (import.meta.main) {
  const { values } = parseScriptArgs(Deno.args, {
    jobs: { type: "string" },
    nodes: { type: "string" },
    load: { type: "string" },
    seed: { type: "string" },
    policy: { type: "string" },
    repeat: { type: "string" },
  });
  const jobs = intArg("--jobs", values.jobs, 1) ?? 100_000;
  const nodes = intArg("--nodes", values.nodes, 1) ?? 1024;
  const load = numberArg("--load", values.load, 0) ?? 0.9;
  const seed = intArg("--seed", values.seed, 0) ?? 7;
  const repeat = intArg("--repeat", values.repeat, 1) ?? 1;
  const policy = values.policy ?? "easy";
  if (policy !== "easy" && policy !== "easy_extra") {
    console.error(`--policy: expected easy or easy_extra, got ${policy}`);
    Deno.exit(2);
  }
  const trace = generateTrace({ seed, jobs, nodes, load });
  const demands = withDemands(trace);
  const cluster = machine(nodes);
  // Best of `repeat`, by wall time and by CPU time separately.
  const best = (run: () => { ms: number; cpuMs: number; done: number }) => {
    let r = run();
    for (let k = 1; k < repeat; k++) {
      const x = run();
      r = { ms: Math.min(r.ms, x.ms), cpuMs: Math.min(r.cpuMs, x.cpuMs), done: x.done };
    }
    return r;
  };
  const whole = best(() =>
    timeRun({ totalNodes: nodes, backfillPolicy: policy, decisions: false }, trace)
  );
  const multi = best(() =>
    timeRun(
      {
        totalNodes: nodes,
        backfillPolicy: policy,
        decisions: false,
        resourceModel: topologyCluster(cluster),
      },
      demands,
    )
  );
  console.log(`${policy}: ${jobs} jobs (seed ${seed}, load ${load}) on ${nodes} nodes`);
  console.log(formatTable(
    ["machine", "ms", "cpu ms", "jobs done"],
    [
      ["whole nodes", whole.ms.toFixed(0), whole.cpuMs.toFixed(0), String(whole.done)],
      [
        "3 resources (cpu, mem, gpu)",
        multi.ms.toFixed(0),
        multi.cpuMs.toFixed(0),
        String(multi.done),
      ],
    ],
  ));
  console.log(
    `ratio (3 resources / whole nodes): ${(multi.ms / whole.ms).toFixed(2)} (cpu ${
      (multi.cpuMs / whole.cpuMs).toFixed(2)
    })`,
  );
}

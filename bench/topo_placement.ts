// Topology-aware placement throughput (issue 13): TopoQueue's timed
// simulation on evtsim's engine over a large generated cluster — by default
// 4,096 nodes (64 CPU, 8 GPU each) in 64 racks of 8 zones, and 10,000 timed
// jobs — for both admission policies, printing jobs/second. Timing covers
// `simulateTopology` (the engine, the topology model and reading the results
// back), not generating the workload.
//
// usage: deno run -A bench/topo_placement.ts [--racks 64] [--nodes-per-rack 64]
//          [--zones 8] [--jobs 10000] [--load 0.9] [--seed 1] [--repeat 3]
//          [--policies backfill,strict-fifo] [--write DIR]
//
// --write DIR also writes the workload as cluster.yaml and timed-jobs.yaml,
// so that the same run can be made through the command:
//   evtsim topo simulate --cluster DIR/cluster.yaml --jobs DIR/timed-jobs.yaml --policy all

import { stringify } from "yaml";
import {
  simulateTopology,
  type TopoCluster,
  type TopoPolicy,
  type TopoSimulationResult,
  type TopoTimedJob,
} from "../mod.ts";
import { formatRate, formatTable, seededRandom } from "./_util.ts";
import { intArg, numberArg, parseScriptArgs } from "./_args.ts";

/** The shape of a generated topology workload. */
export interface TopoWorkloadOptions {
  /** Seed of the generator. */
  readonly seed: number;
  /** Racks (each one `rack` domain). */
  readonly racks: number;
  /** Nodes in each rack. */
  readonly nodesPerRack: number;
  /** Zones; racks are dealt to zones in order (must divide `racks`). */
  readonly zones: number;
  /** Timed jobs. */
  readonly jobs: number;
  /** Offered load: GPU-or-CPU node-equivalents × ticks over cluster × span. */
  readonly load: number;
}

const CPU_PER_NODE = 64;
const GPU_PER_NODE = 8;

/**
 * A seeded cluster and timed workload. Every job fits one domain of its
 * required key on an empty cluster (at most `nodesPerRack` replicas, each
 * small enough for one node), so every job completes eventually; a third
 * ask for one rack, a third for one zone, the rest may go anywhere.
 */
export function generateTopoWorkload(
  o: TopoWorkloadOptions,
): { cluster: TopoCluster; jobs: TopoTimedJob[] } {
  if (o.racks % o.zones !== 0) throw new Error(`--zones ${o.zones} must divide --racks ${o.racks}`);
  const rand = seededRandom(o.seed);
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  const nodes: TopoCluster["nodes"][number][] = [];
  const racksPerZone = o.racks / o.zones;
  for (let r = 0; r < o.racks; r++) {
    const zone = `zone-${pad(Math.floor(r / racksPerZone), 2)}`;
    const rack = `rack-${pad(r, 3)}`;
    for (let n = 0; n < o.nodesPerRack; n++) {
      nodes.push({
        name: `${rack}-n${pad(n, 3)}`,
        topology: { zone, rack },
        capacity: { cpu: CPU_PER_NODE, gpu: GPU_PER_NODE },
      });
    }
  }
  const totalNodes = nodes.length;
  // Sizes and durations first, then arrivals spaced to reach the load.
  const shapes: Omit<TopoTimedJob, "arrivalTick">[] = [];
  let work = 0;
  for (let i = 0; i < o.jobs; i++) {
    const replicas = Math.max(1, Math.min(o.nodesPerRack, Math.round(2 ** (rand() * 7))));
    const gpu = [0, 1, 2, 4, 8][Math.floor(rand() * 5)];
    const cpu = [4, 8, 16, 32][Math.floor(rand() * 4)];
    const durationTicks = 1 + Math.floor(2 ** (rand() * 10));
    const k = rand();
    const requiredTopology = k < 1 / 3 ? "rack" : k < 2 / 3 ? "zone" : undefined;
    shapes.push({
      name: `job-${pad(i, 6)}`,
      replicas,
      resourcesPerReplica: { cpu, gpu },
      durationTicks,
      ...(requiredTopology === undefined ? {} : { requiredTopology }),
    });
    work += replicas * Math.max(cpu / CPU_PER_NODE, gpu / GPU_PER_NODE) * durationTicks;
  }
  const meanGap = work / (totalNodes * o.load * Math.max(1, o.jobs));
  let tick = 0;
  const jobs = shapes.map((s) => {
    tick += Math.floor(-Math.log(1 - rand()) * meanGap);
    return { ...s, arrivalTick: tick };
  });
  return { cluster: { nodes }, jobs };
}

/** One timed run of a policy: the fastest of `repeat`, and its result. */
export function timePolicy(
  cluster: TopoCluster,
  jobs: readonly TopoTimedJob[],
  policy: TopoPolicy,
  repeat: number,
): { seconds: number; result: TopoSimulationResult } {
  let best = Infinity;
  let result: TopoSimulationResult | undefined;
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    result = simulateTopology(cluster, jobs, policy);
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return { seconds: best, result: result! };
}

const USAGE = `usage: topo_placement.ts [--racks 64] [--nodes-per-rack 64] [--zones 8]
  [--jobs 10000] [--load 0.9] [--seed 1] [--repeat 3] [--policies backfill,strict-fifo]
  [--write DIR]`;

async function main(args: string[]): Promise<number> {
  let o: TopoWorkloadOptions;
  let repeat: number;
  let policies: TopoPolicy[];
  let write: string | undefined;
  try {
    const { values: v } = parseScriptArgs(args, {
      racks: { type: "string" },
      "nodes-per-rack": { type: "string" },
      zones: { type: "string" },
      jobs: { type: "string" },
      load: { type: "string" },
      seed: { type: "string" },
      repeat: { type: "string" },
      policies: { type: "string" },
      write: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (v.help === true) {
      console.log(USAGE);
      return 0;
    }
    o = {
      racks: intArg("--racks", v.racks, 1) ?? 64,
      nodesPerRack: intArg("--nodes-per-rack", v["nodes-per-rack"], 1) ?? 64,
      zones: intArg("--zones", v.zones, 1) ?? 8,
      jobs: intArg("--jobs", v.jobs, 1) ?? 10000,
      load: numberArg("--load", v.load, 0) ?? 0.9,
      seed: intArg("--seed", v.seed, 0) ?? 1,
    };
    repeat = intArg("--repeat", v.repeat, 1) ?? 3;
    policies = (v.policies ?? "backfill,strict-fifo").split(",") as TopoPolicy[];
    for (const p of policies) {
      if (p !== "backfill" && p !== "strict-fifo") {
        throw new Error(`unknown policy "${p}" (expected backfill, strict-fifo)`);
      }
    }
    write = v.write;
  } catch (e) {
    console.error(`Error: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { cluster, jobs } = generateTopoWorkload(o);
  if (write !== undefined) {
    await Deno.mkdir(write, { recursive: true });
    await Deno.writeTextFile(`${write}/cluster.yaml`, stringify({ nodes: cluster.nodes }));
    await Deno.writeTextFile(`${write}/timed-jobs.yaml`, stringify({ jobs }));
  }
  console.log(
    `topology placement: ${cluster.nodes.length} nodes in ${o.racks} racks of ${o.zones} zones, ` +
      `${jobs.length} timed jobs, load ${o.load}, seed ${o.seed}, best of ${repeat} ` +
      `(deno ${Deno.version.deno}, v8 ${Deno.version.v8})`,
  );
  // Let V8 compile the hot paths before the timed runs.
  const warm = generateTopoWorkload({ ...o, seed: o.seed + 1000, jobs: Math.min(o.jobs, 1000) });
  for (const p of policies) simulateTopology(warm.cluster, warm.jobs, p);
  const rows: string[][] = [];
  for (const p of policies) {
    const { seconds, result } = timePolicy(cluster, jobs, p, repeat);
    rows.push([
      p,
      seconds.toFixed(3),
      formatRate(jobs.length / seconds),
      String(result.completedJobCount),
      result.averageQueueDelayTicks.toFixed(2),
      String(result.makespanTicks),
    ]);
  }
  console.log(
    formatTable(["policy", "wall s", "jobs/s", "completed", "avg wait", "makespan"], rows),
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));

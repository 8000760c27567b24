// Random machines and job requests for the machine-run properties
// (tests/machine/machine_properties_test.ts, tests/machine/machine_record_test.ts): 1-4 node
// groups of 1-4 nodes, 1-4 resources, overlapping partitions, racks of 3
// nodes; jobs of whole nodes or units per replica, a partition or none, a
// rack or not.

import fc from "fast-check";
import { type JobSpec, type Machine, machineDemand, machineNodes } from "../mod.ts";

export const RESOURCES = ["cores", "memory", "gpus", "ssd"];
export const PARTITIONS = ["p0", "p1", "p2"];

export const arbMachine: fc.Arbitrary<Machine> = fc.integer({ min: 1, max: 4 }).chain((r) => {
  const names = RESOURCES.slice(0, r);
  return fc.array(
    fc.record({
      count: fc.integer({ min: 1, max: 4 }),
      units: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: r, maxLength: r }),
      partitions: fc.subarray(PARTITIONS, { minLength: 1 }),
    }),
    { minLength: 1, maxLength: 4 },
  ).map((groups) => ({
    groups: groups.map((g, i) => ({
      name: `g${i}`,
      count: g.count,
      resources: Object.fromEntries(names.map((n, k) => [n, g.units[k]])),
      partitions: g.partitions,
      labels: { rack: "r{i/3}" },
    })),
  }));
});

export const arbRequest = fc.record({
  submit: fc.integer({ min: 0, max: 50 }),
  limit: fc.integer({ min: 1, max: 40 }),
  replicas: fc.integer({ min: 1, max: 5 }),
  whole: fc.boolean(),
  units: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 }),
  partition: fc.option(fc.constantFrom(...PARTITIONS), { nil: undefined }),
  rack: fc.boolean(),
});

/** A generated request. */
export type Request = typeof arbRequest extends fc.Arbitrary<infer T> ? T : never;

/**
 * The jobs of `reqs` on `m` in submit order (requests the readers would
 * refuse at their line left out), with what each asked in the file's terms,
 * and how many of them the empty machine can hold (`placeable`: the others
 * ask for more replicas than their partition, or one rack of it, holds at
 * once; the engine holds them for good, and the rest go on).
 */
export function machineJobs(m: Machine, reqs: readonly Request[]): {
  jobs: JobSpec[];
  asked: {
    whole: boolean;
    per: Record<string, number>;
    partition?: string;
    rack: boolean;
    placeable: boolean;
  }[];
  placeable: number;
} {
  const names = Object.keys(m.groups[0].resources);
  const nodes = machineNodes(m);
  const jobs: JobSpec[] = [];
  const asked: {
    whole: boolean;
    per: Record<string, number>;
    partition?: string;
    rack: boolean;
    placeable: boolean;
  }[] = [];
  let placeable = 0;
  for (const q of [...reqs].sort((a, b) => a.submit - b.submit)) {
    const per = Object.fromEntries(names.map((n, k) => [n, q.units[k]]));
    const r = machineDemand(m, {
      replicas: q.replicas,
      ...(q.whole ? {} : { perReplica: per }),
      ...(q.partition !== undefined ? { partition: q.partition } : {}),
      ...(q.rack ? { topologyKey: "rack" } : {}),
    }, nodes);
    if (r.demand === undefined) continue; // refused at its line by the readers
    jobs.push({ submitTime: q.submit, numNodes: 0, timeLimit: q.limit, demand: r.demand });
    const fits = slotsOnEmpty(nodes, r.demand.perReplica, q.rack) >= q.replicas;
    if (fits) placeable++;
    asked.push({ whole: q.whole, per, partition: q.partition, rack: q.rack, placeable: fits });
  }
  return { jobs, asked, placeable };
}

/** Replicas of `per` the empty machine holds at once (in one rack, with `rack`), plainly. */
function slotsOnEmpty(
  nodes: readonly {
    capacity: Readonly<Record<string, number>>;
    topology: Record<string, string>;
  }[],
  per: Readonly<Record<string, number>>,
  rack: boolean,
): number {
  const byDomain = new Map<string, number>();
  for (const n of nodes) {
    let k = Infinity;
    for (const [r, v] of Object.entries(per)) {
      if (v > 0) k = Math.min(k, Math.floor((n.capacity[r] ?? 0) / v));
    }
    const d = rack ? n.topology.rack : "";
    byDomain.set(d, (byDomain.get(d) ?? 0) + k);
  }
  return Math.max(0, ...byDomain.values());
}

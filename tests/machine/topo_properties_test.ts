// Properties of topology-aware admission on random clusters and jobs
// (fast-check, fixed seed; fast-check prints the seed and path of a
// failure): capacity is never exceeded, an admitted job sits in one domain
// of its key, strict FIFO admits a prefix and backfill a superset of it, the
// model places as a plain reading of TopoQueue's rules does, and a topology
// cluster of one resource without labels, one replica per job, schedules
// as the node-count pool does under FCFS without backfill.

import fc from "fast-check";
import {
  appendJobs,
  finish,
  initialState,
  type JobRow,
  type JobSpec,
  type Placement,
  type PlaceResult,
  type ResourceDemand,
  runToCompletion,
  scheduleTopology,
  simulateTopology,
  step,
  strictFifoAdmission,
  type TopoCluster,
  type TopoJob,
  topologyCluster,
  type TopoTimedJob,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { demandRecord } from "../_topo_helpers.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 150);
const PARAMS = { seed: 13, numRuns: RUNS };

const RACKS = ["r1", "r2", "r3"];
const ZONES = ["z1", "z2"];

const arbCluster: fc.Arbitrary<TopoCluster> = fc.array(
  fc.record({
    rack: fc.constantFrom(...RACKS),
    zone: fc.constantFrom(...ZONES),
    cpu: fc.integer({ min: 0, max: 16 }),
    gpu: fc.integer({ min: 0, max: 4 }),
  }),
  { minLength: 1, maxLength: 7 },
).map((nodes) => ({
  nodes: nodes.map((n, i) => ({
    name: `n${(i * 7) % 10}${i}`, // names not in input order
    topology: { rack: n.rack, zone: n.zone },
    capacity: { cpu: n.cpu, gpu: n.gpu },
  })),
}));

const arbJob = (i: number): fc.Arbitrary<TopoJob> =>
  fc.record({
    replicas: fc.integer({ min: 1, max: 6 }),
    cpu: fc.integer({ min: 0, max: 6 }),
    gpu: fc.integer({ min: 0, max: 2 }),
    key: fc.constantFrom("", "rack", "zone"),
  }).map((j) => ({
    name: `job-${i}`,
    replicas: j.replicas,
    resourcesPerReplica: { cpu: j.cpu === 0 && j.gpu === 0 ? 1 : j.cpu, gpu: j.gpu },
    ...(j.key === "" ? {} : { requiredTopology: j.key }),
  }));

const arbJobs = (max: number) =>
  fc.integer({ min: 0, max }).chain((n) =>
    fc.tuple(...Array.from({ length: n }, (_, i) => arbJob(i)))
  );

const arbTimed: fc.Arbitrary<TopoTimedJob[]> = arbJobs(10).chain((jobs) =>
  fc.tuple(
    ...jobs.map((j) =>
      fc.record({
        arrivalTick: fc.integer({ min: 0, max: 12 }),
        durationTicks: fc.integer({ min: 1, max: 8 }),
      })
        .map((t) => ({ ...j, ...t }))
    ),
  )
);

Deno.test("topo property: no node ever holds more than its capacity, in any resource", () => {
  fc.assert(
    fc.property(
      arbCluster,
      arbTimed,
      fc.constantFrom("strict-fifo", "backfill"),
      (cluster, jobs, policy) => {
        const r = simulateTopology(cluster, jobs, policy as "strict-fifo" | "backfill");
        const byName = new Map(jobs.map((j) => [j.name, j]));
        const capacity = new Map(cluster.nodes.map((n) => [n.name, n.capacity]));
        for (
          const at of new Set(
            r.jobs.flatMap((j) => (j.startTick === undefined ? [] : [j.startTick])),
          )
        ) {
          const used = new Map<string, { cpu: number; gpu: number }>();
          for (const j of r.jobs) {
            if (
              j.startTick === undefined || !(j.startTick <= at && at < j.completionTick!)
            ) continue;
            const per = byName.get(j.jobName)!.resourcesPerReplica;
            for (const a of j.allocation) {
              const u = used.get(a.nodeName) ?? { cpu: 0, gpu: 0 };
              used.set(a.nodeName, {
                cpu: u.cpu + a.replicas * per.cpu,
                gpu: u.gpu + a.replicas * per.gpu,
              });
            }
          }
          for (const [node, u] of used) {
            const c = capacity.get(node)!;
            assert(
              u.cpu <= c.cpu && u.gpu <= c.gpu,
              `${node} at ${at}: ${JSON.stringify(u)} > ${JSON.stringify(c)}`,
            );
          }
        }
      },
    ),
    PARAMS,
  );
});

Deno.test("topo property: an admitted job's replicas all sit in one domain of its required key", () => {
  fc.assert(
    fc.property(
      arbCluster,
      arbTimed,
      fc.constantFrom("strict-fifo", "backfill"),
      (cluster, jobs, policy) => {
        const r = simulateTopology(cluster, jobs, policy as "strict-fifo" | "backfill");
        const labels = new Map(cluster.nodes.map((n) => [n.name, n.topology!]));
        jobs.forEach((j, i) => {
          const life = r.jobs[i];
          if (life.status !== "completed") return;
          const key = j.requiredTopology;
          const total = life.allocation.reduce((s, a) => s + a.replicas, 0);
          assertEquals(total, j.replicas);
          assertEquals(
            new Set(life.allocation.map((a) => a.nodeName)).size,
            life.allocation.length,
          );
          if (key === undefined) assertEquals(life.selectedTopologyDomain, "global");
          else {
            for (const a of life.allocation) {
              assertEquals(labels.get(a.nodeName)![key], life.selectedTopologyDomain);
            }
          }
        });
      },
    ),
    PARAMS,
  );
});

Deno.test("topo property: strict-fifo admits a prefix of the queue; backfill a superset of it", () => {
  fc.assert(
    fc.property(arbCluster, arbJobs(10), (cluster, jobs) => {
      const strict = scheduleTopology(cluster, jobs, "strict-fifo");
      const back = scheduleTopology(cluster, jobs, "backfill");
      const admitted = (r: typeof strict) =>
        r.jobs.flatMap((j, i) => (j.status === "admitted" ? [i] : []));
      const s = admitted(strict);
      assertEquals(s, s.map((_, i) => i));
      const b = new Set(admitted(back));
      for (const i of s) assert(b.has(i), `backfill lost job ${i}`);
      // The blocked ones are exactly those behind the first job that could not be placed.
      assertEquals(strict.headOfLineBlockedJobCount, Math.max(0, jobs.length - s.length - 1));
      // Up to strict FIFO's first failure both make the same placements.
      for (const i of s) assertEquals(back.jobs[i], strict.jobs[i]);
    }),
    PARAMS,
  );
});

// ---- the model against a plain reading of the rules ---------------------

/** TopoQueue's placement, written straight from the rules (seed 004, J.3), without shortcuts. */
function referencePlace(
  nodes: readonly {
    name: string;
    topology: Record<string, string>;
    free: Record<string, number>;
  }[],
  d: ResourceDemand,
): string {
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const slotsOf = (n: (typeof nodes)[number]) => {
    const limits = Object.entries(d.perReplica).filter(([, v]) => v > 0)
      .map(([r, v]) => Math.floor((n.free[r] ?? 0) / v));
    return limits.length === 0 ? 0 : Math.min(...limits);
  };
  const key = d.topologyKey;
  const domains = new Map<string, typeof sorted>();
  for (const n of sorted) {
    const name = key === undefined ? "global" : n.topology[key] ?? "";
    domains.set(name, [...(domains.get(name) ?? []), n]);
  }
  const names = [...domains.keys()].sort();
  const cluster = sorted.reduce((s, n) => s + slotsOf(n), 0);
  const candidates = names.map((name) => {
    const members = domains.get(name)!;
    const slots = members.reduce((s, n) => s + slotsOf(n), 0);
    const order = members.filter((n) => slotsOf(n) > 0)
      .sort((a, b) => slotsOf(b) - slotsOf(a) || (a.name < b.name ? -1 : 1));
    let left = d.replicas;
    const packed: [string, number][] = [];
    for (const n of order) {
      if (left === 0) break;
      const k = Math.min(slotsOf(n), left);
      packed.push([n.name, k]);
      left -= k;
    }
    return { name, slots, packed };
  });
  const fits = candidates.filter((c) => c.slots >= d.replicas)
    .sort((a, b) =>
      a.slots - b.slots || a.packed.length - b.packed.length || (a.name < b.name ? -1 : 1)
    );
  if (fits.length === 0) {
    if (cluster < d.replicas || key === undefined) return `insufficient_capacity ${cluster}`;
    const largest = candidates.reduce((m, c) => (c.slots > m.slots ? c : m), candidates[0]);
    return `topology_fragmented ${cluster} ${largest.name} ${largest.slots}`;
  }
  const p = fits[0];
  return `${p.name} ${
    p.packed.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([n, k]) => `${n}=${k}`).join(",")
  }`;
}

function describe(r: PlaceResult): string {
  if (r.placement !== undefined) {
    return `${r.placement.domain} ${
      r.placement.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join(",")
    }`;
  }
  const x = r.reason;
  return x.code === "insufficient_capacity"
    ? `${x.code} ${x.availableClusterWideReplicaSlots}`
    : `${x.code} ${x.totalAvailableReplicaSlots} ${x.largestTopologyDomain} ${x.largestTopologyDomainReplicaSlots}`;
}

const record = demandRecord;

Deno.test("topo property: the model places as the rules read plainly, on partly used clusters", () => {
  fc.assert(
    fc.property(arbCluster, arbJobs(8), (cluster, jobs) => {
      const model = topologyCluster(
        cluster.nodes.map((n) => ({ ...n, capacity: { ...n.capacity } })),
      );
      const free = new Map(
        cluster.nodes.map((n) => [n.name, { ...n.capacity } as Record<string, number>]),
      );
      let state = model.beginEdit(model.initial);
      jobs.forEach((j, id) => {
        const demand: ResourceDemand = {
          replicas: j.replicas,
          perReplica: { ...j.resourcesPerReplica },
          ...(j.requiredTopology === undefined ? {} : { topologyKey: j.requiredTopology }),
        };
        const nodes = cluster.nodes.map((n) => ({
          name: n.name,
          topology: { ...n.topology },
          free: free.get(n.name)!,
        }));
        const r = model.place(state, record(id, demand));
        assertEquals(describe(r), referencePlace(nodes, demand));
        if (r.placement !== undefined) {
          state = model.allocate(state, record(id, demand), r.placement as Placement);
          for (const a of r.placement.allocation) {
            const f = free.get(a.nodeName)!;
            for (const [res, v] of Object.entries(demand.perReplica)) f[res] -= v * a.replicas;
          }
        }
      });
      model.endEdit(state);
    }),
    PARAMS,
  );
});

Deno.test("topo property: placements stay as the rules read plainly while jobs start and end (cached slots)", () => {
  // The model caches slots per replica shape and updates them as jobs start
  // and end; a fresh reading of the rules after every change must agree.
  fc.assert(
    fc.property(
      arbCluster,
      arbJobs(10),
      fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
      (cluster, jobs, picks) => {
        const model = topologyCluster(
          cluster.nodes.map((n) => ({ ...n, capacity: { ...n.capacity } })),
        );
        const free = new Map(
          cluster.nodes.map((n) => [n.name, { ...n.capacity } as Record<string, number>]),
        );
        const demands = jobs.map((j): ResourceDemand => ({
          replicas: j.replicas,
          perReplica: { ...j.resourcesPerReplica },
          ...(j.requiredTopology === undefined ? {} : { topologyKey: j.requiredTopology }),
        }));
        const nodes = () =>
          cluster.nodes.map((n) => ({
            name: n.name,
            topology: { ...n.topology },
            free: free.get(n.name)!,
          }));
        const held = new Map<number, Placement>();
        const move = (id: number, p: Placement, sign: number) => {
          for (const a of p.allocation) {
            const f = free.get(a.nodeName)!;
            for (const [res, v] of Object.entries(demands[id].perReplica)) {
              f[res] += sign * v * a.replicas;
            }
          }
        };
        let state = model.beginEdit(model.initial);
        demands.forEach((demand, id) => {
          // Every demand seen so far, again: the cached shapes must follow the changes.
          for (let k = 0; k <= id; k++) {
            assertEquals(
              describe(model.place(state, record(k, demands[k]))),
              referencePlace(nodes(), demands[k]),
            );
          }
          const r = model.place(state, record(id, demand));
          if (r.placement !== undefined) {
            state = model.allocate(state, record(id, demand), r.placement as Placement);
            held.set(id, r.placement as Placement);
            move(id, r.placement, -1);
          }
          if (picks[id] % 3 === 0 && held.size > 0) {
            const out = [...held.keys()][picks[id] % held.size];
            state = model.release(state, record(out, demands[out]));
            move(out, held.get(out)!, +1);
            held.delete(out);
          }
          if (picks[id] % 4 === 1) state = model.beginEdit(model.endEdit(state));
        });
        model.endEdit(state);
      },
    ),
    PARAMS,
  );
});

// ---- one resource, no labels, one replica per job ≡ the node-count pool --

const arbTrace = (nodes: number): fc.Arbitrary<JobSpec[]> =>
  fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 5 }),
      numNodes: fc.integer({ min: 1, max: nodes }),
      timeLimit: fc.integer({ min: 1, max: 20 }),
      early: fc.integer({ min: 0, max: 5 }),
    }),
    { maxLength: 25 },
  ).map((rows) => {
    let t = 0;
    return rows.map((r) => {
      t += r.gap;
      return {
        submitTime: t,
        numNodes: r.numNodes,
        timeLimit: r.timeLimit,
        actualRunTime: Math.max(1, r.timeLimit - r.early),
      };
    });
  });

function beginsEnds(rows: readonly JobRow[]): string[] {
  return [...rows].sort((a, b) => a.jobId - b.jobId).map((r) =>
    `${r.jobId}:${r.beginTime}-${r.endTime}`
  );
}

function run(config: Parameters<typeof initialState>[0], jobs: readonly JobSpec[]): string[] {
  let s = step(initialState(config), appendJobs(jobs)).state;
  const a = step(s, runToCompletion());
  s = a.state;
  return beginsEnds([...a.rows.jobs, ...step(s, finish()).rows.jobs]);
}

Deno.test("topo property: one resource, no labels, one replica per job schedules as the node-count pool (FCFS, no backfill)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), arbTrace(n))),
      ([nodes, jobs]) => {
        const pool = run({ totalNodes: nodes, backfillPolicy: "none" }, jobs);
        // The machine as one node of `nodes` units; a job is one replica of numNodes units.
        const single = run(
          {
            totalNodes: nodes,
            admission: strictFifoAdmission,
            resourceModel: topologyCluster([{ name: "machine", capacity: { units: nodes } }]),
          },
          jobs.map((j) => ({
            ...j,
            numNodes: 0,
            demand: { replicas: 1, perReplica: { units: j.numNodes } },
          })),
        );
        assertEquals(single, pool);
        // The same machine as `nodes` one-unit nodes; a job is numNodes one-unit replicas.
        const units = run(
          {
            totalNodes: nodes,
            admission: strictFifoAdmission,
            resourceModel: topologyCluster(
              Array.from({ length: nodes }, (_, i) => ({ name: `n${i}`, capacity: { units: 1 } })),
            ),
          },
          jobs.map((j) => ({
            ...j,
            numNodes: 0,
            demand: { replicas: j.numNodes, perReplica: { units: 1 } },
          })),
        );
        assertEquals(units, pool);
      },
    ),
    PARAMS,
  );
});

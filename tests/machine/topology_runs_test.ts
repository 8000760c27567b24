// The topology cluster on machines of many alike nodes (33–100 nodes of one
// to three types, more than a word of class bits), where a job's nodes come
// in long runs of one class: packing (class bits, `packByMembers`) against
// the plain reference's placement, the release scan (runs of one class
// moved together) against `canPlace` on a `beginEdit` copy with the same
// jobs released, and `allocationOf` against the placement, as jobs start
// and end in a random order. fast-check, fixed seed (printed on failure).

import fc from "fast-check";
import { topologyCluster } from "../../mod.ts";
import type { JobRecord, Placement, ResourceDemand } from "../../mod.ts";
import { assertEquals } from "../_assert.ts";
import { demandRecord } from "../_topo_helpers.ts";
import { type RefJob, type RefNode, refPlace } from "../_reference_easy_resources.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);
const SEED = 280_528;

const TYPES: Record<string, number>[] = [
  { cpu: 32, mem: 128, gpu: 4 },
  { cpu: 16, mem: 64 },
  { cpu: 64, mem: 256, gpu: 8 },
];

// Replica shapes that fill a node of the first type in 1, 2 or 4 replicas.
const SHAPES: Record<string, number>[] = [
  { cpu: 32, mem: 128, gpu: 4 },
  { cpu: 16, mem: 64, gpu: 2 },
  { cpu: 8, mem: 32 },
  { cpu: 32, mem: 64 },
];

const arbCase = fc.record({
  types: fc.integer({ min: 1, max: 3 }),
  nodes: fc.integer({ min: 33, max: 100 }),
  typeOf: fc.array(fc.nat(), { minLength: 100, maxLength: 100 }),
  blocks: fc.boolean(),
  jobs: fc.array(
    fc.record({
      shape: fc.nat({ max: SHAPES.length - 1 }),
      replicas: fc.integer({ min: 1, max: 120 }),
    }),
    { minLength: 1, maxLength: 25 },
  ),
  // Per job: end one running job (by position) before it, or not.
  ends: fc.array(fc.option(fc.nat(), { nil: undefined }), { minLength: 25, maxLength: 25 }),
  heads: fc.array(
    fc.record({ shape: fc.nat({ max: SHAPES.length - 1 }), at: fc.nat() }),
    { minLength: 1, maxLength: 3 },
  ),
});

const nameOf = (i: number) => `n${String(i).padStart(3, "0")}`;

function allocationText(p: Placement): string {
  return p.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join(",");
}

Deno.test("topology runs: on many alike nodes, packing, release scans and allocations agree with plain readings", () => {
  fc.assert(
    fc.property(arbCase, (c) => {
      // Types in blocks of alike nodes, or mixed node by node.
      const typeAt = (i: number) =>
        c.blocks ? Math.floor(i * c.types / c.nodes) : c.typeOf[i] % c.types;
      const refNodes: RefNode[] = Array.from({ length: c.nodes }, (_, i) => ({
        name: nameOf(i),
        topology: {},
        capacity: TYPES[typeAt(i)],
      }));
      const model = topologyCluster(refNodes.map((n) => ({ name: n.name, capacity: n.capacity })));
      const free = refNodes.map((n) => ({ ...n.capacity }) as Record<string, number>);
      const refJob = (d: ResourceDemand): RefJob => ({
        submit: 0,
        limit: 1,
        run: 1,
        replicas: d.replicas,
        perReplica: d.perReplica,
        user: "u",
      });
      const move = (d: ResourceDemand, p: Placement, sign: number) => {
        for (const a of p.allocation) {
          const f = free[Number(a.nodeName.slice(1))];
          for (const [r, v] of Object.entries(d.perReplica)) {
            f[r] = (f[r] ?? 0) + sign * v * a.replicas;
          }
        }
      };
      let state = model.beginEdit(model.initial);
      const running: { rec: JobRecord; placement: Placement }[] = [];
      c.jobs.forEach((j, id) => {
        const end = c.ends[id];
        if (end !== undefined && running.length > 0) {
          const [gone] = running.splice(end % running.length, 1);
          state = model.release(state, gone.rec);
          move(gone.rec.demand!, gone.placement, +1);
        }
        const demand: ResourceDemand = { replicas: j.replicas, perReplica: SHAPES[j.shape] };
        const rec = demandRecord(id, demand);
        const r = model.place(state, rec);
        const ref = refPlace(refNodes, free, refJob(demand));
        const expected = ref === null
          ? "none"
          : ref.flatMap((k, i) => (k > 0 ? [`${nameOf(i)}=${k}`] : [])).join(",");
        assertEquals(r.placement === undefined ? "none" : allocationText(r.placement), expected);
        if (r.placement === undefined) return;
        state = model.allocate(state, rec, r.placement);
        move(demand, r.placement, -1);
        running.push({ rec, placement: r.placement });
        assertEquals(
          model.allocationOf!(state, id)!.map((a) => `${a.nodeName}=${a.replicas}`).join(","),
          allocationText(r.placement),
        );
      });
      state = model.endEdit(state);
      // The release scan against a copy, releasing the running jobs in the
      // order they started: heads sized to the room at some release (and one
      // more), where a miscount of one node's slots changes the answer.
      c.heads.forEach((h, k) => {
        const perReplica = SHAPES[h.shape];
        const probe = demandRecord(1000 + k, { replicas: 1, perReplica });
        const copy = model.beginEdit(state);
        const rooms = [model.shapeRoom!(copy, probe)];
        for (const { rec } of running) {
          model.release(copy, rec);
          rooms.push(model.shapeRoom!(copy, probe));
        }
        model.endEdit(copy);
        const target = rooms[h.at % rooms.length];
        for (const replicas of [target, target + 1].filter((r) => r > 0)) {
          const head = demandRecord(2000 + k, { replicas, perReplica });
          const onCopy = model.beginEdit(state);
          const expected = [model.canPlace!(onCopy, head)];
          for (const { rec } of running) {
            model.release(onCopy, rec);
            expected.push(model.canPlace!(onCopy, head));
          }
          model.endEdit(onCopy);
          assertEquals(expected, rooms.map((room) => room >= replicas));
          const scan = model.releaseScan!(state, head);
          const got = [scan.canPlace()];
          for (const { rec } of running) {
            scan.release(rec);
            got.push(scan.canPlace());
          }
          assertEquals(got, expected);
        }
      });
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

Deno.test("topology runs: a packed placement is frozen, lists its runs node by node when read, and keeps the list", () => {
  const nodes = Array.from({ length: 6 }, (_, i) => ({
    name: `n${i}`,
    capacity: { cpu: 4 },
  }));
  const model = topologyCluster(nodes);
  const demand: ResourceDemand = { replicas: 10, perReplica: { cpu: 1 } };
  const job = demandRecord(0, demand);
  const placement = model.place(model.initial, job).placement as Placement;
  if (!Object.isFrozen(placement)) throw new Error("a placement is frozen");
  const shares = placement.allocation;
  assertEquals(
    shares.map((a) => `${a.nodeName}=${a.replicas}`),
    ["n0=4", "n1=4", "n2=2"],
  );
  if (placement.allocation !== shares) throw new Error("the list is made once");
  if (!Object.isFrozen(shares) || !Object.isFrozen(shares[0])) throw new Error("frozen shares");
  assertEquals(placement.domain, "global");
});

Deno.test("topology runs: free units per node (made from the node classes when read) equal plain sums, also once the classes turn off and with nodes offline", () => {
  const NODES = 40;
  const CAPACITY = { cpu: 20_000, mem: 2_000 };
  const op = fc.record({
    kind: fc.constantFrom("start", "start", "start", "end", "offline", "online", "copy"),
    a: fc.nat(),
    b: fc.nat(),
    replicas: fc.integer({ min: 1, max: 6 }),
  });
  fc.assert(
    fc.property(fc.boolean(), fc.array(op, { minLength: 1, maxLength: 150 }), (many, some) => {
      // `many`: first 300 one-replica jobs of as many shapes, so that nodes
      // come to more distinct free units than the classes keep (they turn off).
      const ops = [
        ...Array.from(
          { length: many ? 300 : 0 },
          (_, k) => ({ kind: "start", a: 0, b: 0, replicas: 1, cpu: 1 + k, mem: 1 }),
        ),
        ...some.map((o) => ({ ...o, cpu: 1 + o.a % 23, mem: 1 + o.b % 89 })),
      ];
      const model = topologyCluster(
        Array.from({ length: NODES }, (_, i) => ({ name: nameOf(i), capacity: CAPACITY })),
      );
      // Plain: per node (name order) and resource (cpu, mem), capacity less
      // what runs there, less the capacity again while offline.
      const plain = Array.from({ length: NODES }, () => [CAPACITY.cpu, CAPACITY.mem]);
      const running: JobRecord[] = [];
      const down = new Set<number>();
      let state = model.initial;
      let id = 0;
      const edit = (f: (s: typeof state) => typeof state) => {
        state = model.endEdit(f(model.beginEdit(state)));
      };
      const hold = (rec: JobRecord, sign: number) => {
        for (const a of model.allocationOf!(state, rec.id) ?? []) {
          const i = Number(a.nodeName.slice(1));
          plain[i][0] -= sign * rec.demand!.perReplica.cpu * a.replicas;
          plain[i][1] -= sign * rec.demand!.perReplica.mem * a.replicas;
        }
      };
      const check = (s: typeof state, what: string) => {
        assertEquals([...s.free], plain.flat(), what);
        const sums = [0, 1].map((r) => plain.reduce((t, f) => t + Math.max(0, f[r]), 0));
        assertEquals([...s.freeSums], sums, `${what}: sums`);
      };
      for (const o of ops) {
        if (o.kind === "start") {
          const rec = demandRecord(id++, {
            replicas: o.replicas,
            perReplica: { cpu: o.cpu, mem: o.mem },
          });
          const r = model.place(state, rec);
          if (r.placement === undefined) continue;
          edit((s) => model.allocate(s, rec, r.placement!));
          hold(rec, 1);
          running.push(rec);
        } else if (o.kind === "end" && running.length > 0) {
          const [rec] = running.splice(o.a % running.length, 1);
          hold(rec, -1);
          edit((s) => model.release(s, rec));
        } else if (o.kind === "offline" || o.kind === "online") {
          const i = o.a % NODES;
          if (down.has(i) === (o.kind === "offline")) continue;
          edit((s) => model.setOnline!(s, [nameOf(i)], o.kind === "online"));
          const sign = o.kind === "offline" ? -1 : 1;
          plain[i][0] += sign * CAPACITY.cpu;
          plain[i][1] += sign * CAPACITY.mem;
          if (sign < 0) down.add(i);
          else down.delete(i);
        } else if (o.kind === "copy") {
          // A copy reads the same free units, and changing it leaves the state as it was.
          const copy = model.beginEdit(state);
          check(copy, "copy");
          if (running.length > 0) model.release(copy, running[o.a % running.length]);
          model.endEdit(copy);
        }
        check(state, o.kind);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

Deno.test("topology runs: a placement packed in other free units is allocated where it says when they hold it, else refused with the node and resource short", () => {
  const model = topologyCluster(
    Array.from({ length: 6 }, (_, i) => ({ name: `n${i}`, capacity: { cpu: 4 } })),
  );
  const job = demandRecord(0, { replicas: 10, perReplica: { cpu: 1 } });
  // Packed on the empty machine: n0=4, n1=4, n2=2 (EASY's extra rule allocates
  // such a placement on its copy of the machine at the shadow time).
  const placement = model.place(model.initial, job).placement as Placement;
  const other = demandRecord(1, { replicas: 3, perReplica: { cpu: 1 } });
  const at = (name: string) =>
    ({ domain: "global", allocation: [{ nodeName: name, replicas: 3 }] }) as Placement;
  // Elsewhere busy: the placement fits and is taken as it says.
  const fits = model.allocate(model.beginEdit(model.initial), other, at("n5"));
  model.allocate(fits, job, placement);
  assertEquals(
    ["n0", "n1", "n2", "n5"].map((n) => model.freeOn!(fits, n)?.cpu),
    [0, 0, 2, 1],
  );
  model.release(fits, job);
  assertEquals(model.freeOn!(fits, "n0")?.cpu, 4);
  // Busy on n0: refused, as any allocation that does not fit.
  const busy = model.allocate(model.beginEdit(model.initial), other, at("n0"));
  let message = "";
  try {
    model.allocate(busy, job, placement);
  } catch (e) {
    message = (e as Error).message;
  }
  assertEquals(message, "topology cluster: job 0 needs 4 cpu on n0, which has 1 free");
});

// The topology cluster's release scan (`ResourceModel.releaseScan`, EASY's
// shadow time without a copy of the state) against the copy it replaces: on
// random machines (racks, 1–3 resources, nodes taken offline while jobs run
// on them) with random jobs running, running jobs released in a random
// order, the scan's answer after each release equals `canPlace` on a
// `beginEdit` copy with the same jobs released — for heads with and
// without a topology key —, its cheaper bound (`mayPlace`) never says no
// when the answer is yes, and the scanned state is left unchanged.
// fast-check, fixed seed (printed on failure).

import fc from "fast-check";
import { topologyCluster } from "../../mod.ts";
import type { JobRecord, ResourceDemand } from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { demandRecord } from "../_topo_helpers.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 300);
const RESOURCES = ["cpu", "gpu", "mem"];

const record = demandRecord;

const arbDemand = (resources: number) =>
  fc.record({
    replicas: fc.integer({ min: 1, max: 6 }),
    units: fc.tuple(...RESOURCES.map(() => fc.integer({ min: 0, max: 4 }))),
    rack: fc.boolean(),
  }).map(({ replicas, units, rack }): ResourceDemand => {
    const perReplica: Record<string, number> = {};
    RESOURCES.slice(0, resources).forEach((r, i) => {
      if (units[i] > 0) perReplica[r] = units[i];
    });
    return { replicas, perReplica, ...(rack ? { topologyKey: "rack" } : {}) };
  });

const arbCase = fc.integer({ min: 1, max: 3 }).chain((resources) =>
  fc.record({
    nodes: fc.array(
      fc.record({
        rack: fc.constantFrom("ra", "rb", "rc"),
        capacity: fc.tuple(...RESOURCES.map(() => fc.integer({ min: 0, max: 8 }))),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    jobs: fc.array(arbDemand(resources), { minLength: 1, maxLength: 12 }),
    heads: fc.array(arbDemand(resources), { minLength: 1, maxLength: 4 }),
    offline: fc.array(fc.nat(), { maxLength: 2 }),
    order: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
    resources: fc.constant(resources),
  })
);

Deno.test("topology scan: each answer equals canPlace on a copy with the same jobs released; the state is unchanged", () => {
  let changed = 0;
  let ruledOut = 0;
  fc.assert(
    fc.property(arbCase, (c) => {
      const nodes = c.nodes.map((n, i) => ({
        name: `n${i}`,
        topology: { rack: n.rack },
        capacity: Object.fromEntries(
          RESOURCES.slice(0, c.resources).map((r, k) => [r, n.capacity[k]]),
        ),
      }));
      const model = topologyCluster(nodes);
      let state = model.beginEdit(model.initial);
      const running: JobRecord[] = [];
      c.jobs.forEach((d, id) => {
        const rec = record(id, d);
        const p = model.place(state, rec);
        if (p.placement === undefined) return;
        state = model.allocate(state, rec, p.placement);
        running.push(rec);
      });
      // Nodes offline while their jobs run: free units below zero until released.
      const off = [...new Set(c.offline.map((k) => `n${k % nodes.length}`))];
      if (off.length > 0) state = model.setOnline!(state, off, false);
      state = model.endEdit(state);
      const order = [...running];
      for (let k = order.length - 1; k > 0; k--) {
        const j = c.order[k] % (k + 1);
        [order[k], order[j]] = [order[j], order[k]];
      }
      const version = model.versionOf!(state);
      c.heads.forEach((d, h) => {
        const head = record(1000 + h, d);
        const before = model.canPlace!(state, head);
        const scan = model.releaseScan!(state, head);
        const copy = model.beginEdit(state);
        assertEquals(scan.canPlace(), before, "nothing released");
        for (const rec of order) {
          scan.release(rec);
          model.release(copy, rec);
          const want = model.canPlace!(copy, head);
          // Asked before and after the answer (which does the node work the bound defers).
          const bound = scan.mayPlace();
          assertEquals(scan.canPlace(), want, `head ${h} after releasing job ${rec.id}`);
          assertEquals(scan.mayPlace(), bound, "mayPlace is the same after canPlace");
          if (want) assert(bound, `mayPlace said no where the answer is yes (head ${h})`);
          else if (!bound) ruledOut++;
          if (want !== before) changed++;
        }
        model.endEdit(copy);
        assertEquals(model.canPlace!(state, head), before, "the scanned state is unchanged");
      });
      assertEquals(model.versionOf!(state), version);
    }),
    { seed: 2831, numRuns: RUNS },
  );
  // Proves nothing unless releases turn answers from no to yes.
  assert(changed >= RUNS / 2, `only ${changed} answers changed by releases`);
  assert(ruledOut >= RUNS / 2, `mayPlace ruled out only ${ruledOut} answers`);
});

// `roomFor` lets EASY pass over a shape's candidates without asking: it
// must never claim less room than there is.
Deno.test("topology roomFor: no job of the shape with more replicas can be placed, and it is below the refused job's", () => {
  let exact = 0;
  let refused = 0;
  fc.assert(
    fc.property(arbCase, (c) => {
      const nodes = c.nodes.map((n, i) => ({
        name: `n${i}`,
        topology: { rack: n.rack },
        capacity: Object.fromEntries(
          RESOURCES.slice(0, c.resources).map((r, k) => [r, n.capacity[k]]),
        ),
      }));
      const model = topologyCluster(nodes);
      let state = model.beginEdit(model.initial);
      c.jobs.forEach((d, id) => {
        const rec = record(id, d);
        const p = model.place(state, rec);
        if (p.placement !== undefined) state = model.allocate(state, rec, p.placement);
      });
      const off = [...new Set(c.offline.map((k) => `n${k % nodes.length}`))];
      if (off.length > 0) state = model.setOnline!(state, off, false);
      state = model.endEdit(state);
      c.heads.forEach((d, h) => {
        const head = record(1000 + h, d);
        if (model.canPlace!(state, head)) return;
        refused++;
        const room = model.roomFor!(state, head);
        assert(room < d.replicas, `head ${h}: room ${room} for ${d.replicas} refused`);
        for (let r = Math.max(room + 1, 1); r <= room + 8; r++) {
          const more = record(2000 + h, { ...d, replicas: r });
          assert(!model.canPlace!(state, more), `head ${h}: ${r} replicas fit above room ${room}`);
        }
        if (room >= 1 && model.canPlace!(state, record(3000 + h, { ...d, replicas: room }))) {
          exact++;
        }
      });
    }),
    { seed: 2832, numRuns: RUNS },
  );
  // Proves nothing unless some rooms are exact (a room of 0 everywhere would pass).
  assert(exact >= RUNS / 10, `only ${exact} of ${refused} rooms were exact`);
});

Deno.test("topology scan: a job that holds nothing is refused with one line", () => {
  const model = topologyCluster([{ name: "n1", capacity: { cpu: 4 } }]);
  const scan = model.releaseScan!(
    model.initial,
    record(0, { replicas: 1, perReplica: { cpu: 1 } }),
  );
  let message = "";
  try {
    scan.release(record(1, { replicas: 1, perReplica: { cpu: 1 } }));
  } catch (e) {
    message = (e as Error).message;
  }
  assertEquals(message, "topology cluster: job 1 holds no resources");
});

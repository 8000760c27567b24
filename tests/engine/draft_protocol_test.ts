// The draft's fields declared once (core/_draft_fields.ts) and the one
// copy-on-write protocol (core/_cow.ts): what each promises, seen from the
// states `step` returns.

import { assert, assertEquals } from "../_assert.ts";
import { advanceTo, appendJobs, initialState, step, topologyCluster } from "../../mod.ts";
import { STATE_FIELDS, type StateFieldRoles } from "../../core/_draft_fields.ts";

const job = (submitTime: number, numNodes = 1) => ({ submitTime, numNodes, timeLimit: 10 });
const placed = (submitTime: number) => ({
  ...job(submitTime),
  demand: { replicas: 1, perReplica: { cpu: 2 } },
});
const model = () =>
  topologyCluster([{ name: "n1", capacity: { cpu: 4 } }, { name: "n2", capacity: { cpu: 4 } }]);

Deno.test("every state has exactly STATE_FIELDS' keys, in its order (resources only with a model)", () => {
  const all = Object.keys(STATE_FIELDS);
  const plain = all.filter((k) => k !== "resources");
  let s = step(initialState({ totalNodes: 4 }), appendJobs([job(0), job(5)])).state;
  s = step(s, advanceTo(5)).state;
  assertEquals(Object.keys(s), plain);
  let m =
    step(initialState({ totalNodes: 2, resourceModel: model() }), appendJobs([placed(0)])).state;
  m = step(m, advanceTo(0)).state;
  assertEquals(Object.keys(m), all);
  assert(Object.isFrozen(s) && Object.isFrozen(m), "states are frozen");
});

Deno.test("a lazy field a step leaves alone is shared; one it changes is a new frozen value", () => {
  const queues = [{ name: "a", priority: 1 }];
  const s0 = step(
    initialState({ totalNodes: 4, queues }),
    appendJobs([{ ...job(0), queue: "a" }, { ...job(20), queue: "a" }]),
  ).state;
  // Appending changes no queue's running count: the table is the same object.
  const s1 = step(s0, advanceTo(1)).state; // job 0 starts: queue a runs one
  assert(s1.queues !== s0.queues, "a start in queue a copies the table");
  assertEquals(s0.queues.list[0].running, 0);
  assertEquals(s1.queues.list[0].running, 1);
  assert(
    Object.isFrozen(s1.queues) && Object.isFrozen(s1.queues.list[0]),
    "the new table is frozen",
  );
  const s2 = step(s1, advanceTo(2)).state; // nothing starts or ends
  assert(s2.queues === s1.queues, "an idle step shares the table");

  const r0 = step(
    initialState({ totalNodes: 2, resourceModel: model() }),
    appendJobs([placed(0), placed(30)]),
  )
    .state;
  const r1 = step(r0, advanceTo(0)).state;
  assert(
    r1.resources !== r0.resources && r1.resources!.state !== r0.resources!.state,
    "a start edits a copy",
  );
  const r2 = step(r1, advanceTo(3)).state;
  assert(r2.resources === r1.resources, "an idle step shares the resources");
});

Deno.test("a SimState field without its role, or a role for no field, fails to compile", () => {
  // Checked by `deno check` (deno task check, and deno test before it runs):
  // each `@ts-expect-error` fails the check if the line below it compiles.
  const { timeBound: _, ...withoutOne } = STATE_FIELDS;
  // @ts-expect-error timeBound has no role
  const missing: StateFieldRoles = withoutOne;
  // @ts-expect-error a role for a field SimState does not have
  const extra: StateFieldRoles = { ...STATE_FIELDS, notAStateField: "copied" };
  const full: StateFieldRoles = STATE_FIELDS;
  assertEquals([Object.keys(missing).length + 1, Object.keys(extra).length - 1], [
    Object.keys(full).length,
    Object.keys(full).length,
  ]);
});

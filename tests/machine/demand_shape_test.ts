// A job record's demand carries its replica shape's number on units shared
// by every record of that shape: the same units and topology key give one
// number, anything else another, and copies, JSON and deep equality see only
// the demand as given.

import { demandShapeId, frozenDemand, shapeIdOf } from "../../core/_demand_shape.ts";
import type { ResourceDemand } from "../../core/resource_model.ts";
import type { JobRecord } from "../../core/types.ts";
import { assert, assertEquals } from "../_assert.ts";

const rec = (demand: ResourceDemand | undefined) => ({ demand }) as unknown as JobRecord;

Deno.test("records of one shape share frozen units and one number; other shapes differ", () => {
  const a = frozenDemand({ replicas: 2, perReplica: { cpu: 4, gpu: 1 } });
  const b = frozenDemand({ replicas: 9, perReplica: { cpu: 4, gpu: 1 } });
  const reordered = frozenDemand({ replicas: 1, perReplica: { gpu: 1, cpu: 4 } });
  const keyed = frozenDemand({ replicas: 2, perReplica: { cpu: 4, gpu: 1 }, topologyKey: "rack" });
  const other = frozenDemand({ replicas: 2, perReplica: { cpu: 4, gpu: 2 } });
  assert(Object.isFrozen(a) && Object.isFrozen(a.perReplica));
  assert(a.perReplica === b.perReplica, "one shape, one shared units object");
  assertEquals(demandShapeId(rec(a)), demandShapeId(rec(b)));
  // The same shape listed in another order: the same number, its own order kept.
  assertEquals(demandShapeId(rec(reordered)), demandShapeId(rec(a)));
  assertEquals(Object.keys(reordered.perReplica), ["gpu", "cpu"]);
  assert(demandShapeId(rec(keyed)) !== demandShapeId(rec(a)), "another key, another number");
  assert(demandShapeId(rec(other)) !== demandShapeId(rec(a)), "other units, another number");
  assertEquals(demandShapeId(rec(undefined)), -1);
  // A copy given another key over the shared units is numbered by what it says.
  const rekeyed: ResourceDemand = { ...a, topologyKey: "rack" };
  assertEquals(shapeIdOf(rekeyed), demandShapeId(rec(keyed)));
  assertEquals(demandShapeId(rec(rekeyed)), demandShapeId(rec(keyed)));
  // A plain object (e.g. restored from JSON) gets the number of its shape.
  assertEquals(shapeIdOf({ replicas: 5, perReplica: { cpu: 4, gpu: 1 } }), demandShapeId(rec(a)));
  // Copies, JSON and deep equality see only the demand.
  assertEquals(JSON.stringify(b), '{"replicas":9,"perReplica":{"cpu":4,"gpu":1}}');
  assertEquals({ ...b.perReplica }, { cpu: 4, gpu: 1 });
  assertEquals(b, { replicas: 9, perReplica: { cpu: 4, gpu: 1 } });
});

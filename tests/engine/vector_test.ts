// The job store's persistent vector against an array model, with transient
// editing: updates under one edit token match the model, and every frozen
// version stays exactly as it was.

import fc from "fast-check";
import { Vec } from "../../core/_vector.ts";
import { assertEquals, assertThrows } from "../_assert.ts";

type Op =
  | { op: "push"; x: number }
  | { op: "set"; i: number; x: number }
  | { op: "skip"; k: number }
  | { op: "clear" };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("push" as const), x: fc.integer() }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("set" as const), i: fc.nat(300), x: fc.integer() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("skip" as const), k: fc.nat(90) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("clear" as const) }) },
);

function apply(v: Vec<number>, m: number[], o: Op): [Vec<number>, number[]] {
  switch (o.op) {
    case "push":
      return [v.push(o.x), [...m, o.x]];
    case "set": {
      if (m.length === 0) return [v, m];
      const i = o.i % m.length;
      const next = [...m];
      next[i] = o.x;
      return [v.set(i, o.x), next];
    }
    case "skip":
      return [v.skip(o.k), m.slice(o.k)];
    case "clear":
      return [v.clear(), []];
  }
}

Deno.test("vector: persistent updates match an array, and old versions stay unchanged", () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      let v = Vec.empty<number>();
      let m: number[] = [];
      const versions: [Vec<number>, number[]][] = [];
      for (const o of ops) {
        [v, m] = apply(v, m, o);
        versions.push([v, m]);
      }
      for (const [ver, model] of versions) {
        assertEquals(ver.toArray(), model);
        assertEquals(ver.size, model.length);
        model.forEach((x, i) => assertEquals(ver.get(i), x));
        assertEquals(ver.get(model.length), undefined);
      }
    }),
    { seed: 7, numRuns: 300 },
  );
});

Deno.test("vector: transient editing per step, frozen versions never change", () => {
  fc.assert(
    fc.property(fc.array(fc.array(op, { maxLength: 80 }), { maxLength: 8 }), (steps) => {
      let v = Vec.empty<number>();
      let m: number[] = [];
      const frozen: [Vec<number>, number[]][] = [];
      for (const list of steps) {
        let t = v.transient({});
        for (const o of list) [t, m] = apply(t, m, o);
        v = t.persistent();
        frozen.push([v, m]);
        for (const [ver, model] of frozen) assertEquals(ver.toArray(), model);
      }
    }),
    { seed: 8, numRuns: 300 },
  );
  assertThrows(() => Vec.of([1, 2]).set(2, 0), "out of");
});

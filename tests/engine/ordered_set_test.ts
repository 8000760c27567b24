// The persistent ordered set against a sorted-array model, and its
// persistence: an old version is unchanged by updates to a new one.

import fc from "fast-check";
import { OrderedSet, type OrderSpec, type TreeNode } from "../../core/_ordered_set.ts";
import { assert, assertEquals } from "../_assert.ts";

interface Item {
  readonly k: number;
  readonly a: number;
  readonly b: number;
}

const SPEC: OrderSpec<Item> = { compare: (x, y) => x.k - y.k, p1: (x) => x.a, p2: (x) => x.b };

type Op =
  | { op: "add"; item: Item }
  | { op: "addAll"; items: Item[] }
  | { op: "delete"; k: number }
  | { op: "deleteFirst" };

const item = fc.record({ k: fc.integer({ min: 0, max: 200 }), a: fc.nat(50), b: fc.nat(50) });
const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant("add" as const), item }),
    fc.record({ op: fc.constant("addAll" as const), items: fc.array(item, { maxLength: 30 }) }),
    fc.record({ op: fc.constant("delete" as const), k: fc.integer({ min: 0, max: 200 }) }),
    fc.record({ op: fc.constant("deleteFirst" as const) }),
  ),
  { maxLength: 60 },
);

function applyModel(model: Item[], o: Op): Item[] {
  const put = (m: Item[], x: Item) =>
    [...m.filter((y) => y.k !== x.k), x].sort((p, q) => p.k - q.k);
  switch (o.op) {
    case "add":
      return put(model, o.item);
    case "addAll":
      return o.items.reduce(put, model);
    case "delete":
      return model.filter((y) => y.k !== o.k);
    case "deleteFirst":
      return model.slice(1);
  }
}

function applySet(s: OrderedSet<Item>, o: Op): OrderedSet<Item> {
  switch (o.op) {
    case "add":
      return s.add(o.item);
    case "addAll":
      return s.addAll(o.items);
    case "delete":
      return s.delete({ k: o.k, a: 0, b: 0 });
    case "deleteFirst":
      return s.deleteFirst();
  }
}

function checkShape(n: TreeNode<Item> | null): number {
  if (n === null) return 0;
  const l = checkShape(n.l);
  const r = checkShape(n.r);
  assertEquals(n.s, l + r + 1);
  if (l + r >= 2) assert(l <= 3 * r && r <= 3 * l, `unbalanced node: ${l} vs ${r}`);
  const m1 = Math.min(n.v.a, n.l?.m1 ?? Infinity, n.r?.m1 ?? Infinity);
  const m2 = Math.min(n.v.b, n.l?.m2 ?? Infinity, n.r?.m2 ?? Infinity);
  assertEquals([n.m1, n.m2], [m1, m2]);
  return n.s;
}

Deno.test("ordered set matches a sorted array under random updates and queries", () => {
  fc.assert(
    fc.property(
      ops,
      fc.nat(50),
      fc.nat(50),
      fc.integer({ min: 0, max: 200 }),
      fc.integer({ min: 0, max: 201 }),
      (
        list,
        maxA,
        maxB,
        afterK,
        beforeK,
      ) => {
        let s = OrderedSet.empty(SPEC);
        let model: Item[] = [];
        const versions: [OrderedSet<Item>, Item[]][] = [];
        for (const o of list) {
          s = applySet(s, o);
          model = applyModel(model, o);
          versions.push([s, model]);
          checkShape(s.root);
        }
        for (const [v, m] of versions) assertEquals(v.toArray(), m);
        assertEquals(s.size, model.length);
        assertEquals(s.first(), model[0]);
        const after = { k: afterK, a: 0, b: 0 };
        const before = { k: beforeK, a: 0, b: 0 };
        const expected = model.find((x) =>
          x.k > afterK && x.k < beforeK && x.a <= maxA && x.b <= maxB
        );
        const got = s.findFirst(
          after,
          (m1, m2) => m1 <= maxA && m2 <= maxB,
          (x) => x.a <= maxA && x.b <= maxB,
          before,
        );
        assertEquals(got, expected);
        // scan: from the first element >= after (or the start) until the visitor says stop.
        const seen: Item[] = [];
        const stop = (x: Item) => (seen.push(x), x.a <= maxA && x.b <= maxB);
        const from = afterK % 2 === 0 ? after : undefined;
        const inRange = model.filter((x) => from === undefined || x.k >= afterK);
        const stopAt = inRange.findIndex((x) => x.a <= maxA && x.b <= maxB);
        assertEquals(s.scan(from, stop), stopAt < 0 ? undefined : inRange[stopAt]);
        assertEquals(seen, stopAt < 0 ? inRange : inRange.slice(0, stopAt + 1));
        const below = model.filter((x) => x.k < afterK).map((x) => x.a);
        assertEquals(s.min1Before(after), below.length ? Math.min(...below) : Infinity);
        assertEquals([...s.values(after)], model.filter((x) => x.k >= afterK));
        assertEquals(s.has(after), model.some((x) => x.k === afterK));
        assertEquals(s.rank(after), below.length);
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

Deno.test("transient editing: updates under one edit token match the model, and every frozen version stays as it was", () => {
  fc.assert(
    fc.property(fc.array(ops, { minLength: 1, maxLength: 6 }), (steps) => {
      // Each "step" edits a transient copy under a fresh token, then freezes it,
      // as the engine does; the frozen versions must never change afterwards.
      let s = OrderedSet.empty(SPEC);
      let model: Item[] = [];
      const frozen: [OrderedSet<Item>, Item[], string][] = [];
      for (const list of steps) {
        let t = s.transient({});
        for (const o of list) {
          t = applySet(t, o);
          model = applyModel(model, o);
          checkShape(t.root);
          assertEquals(t.size, model.length);
        }
        assertEquals(t.toArray(), model);
        s = t.persistent();
        frozen.push([s, model, JSON.stringify(s.root)]);
        for (const [v, m, shape] of frozen) {
          assertEquals(v.toArray(), m);
          assertEquals(JSON.stringify(v.root), shape);
        }
      }
      // min1Before and next-element queries on the last version.
      for (const x of model) assertEquals(s.after(x), model[model.indexOf(x) + 1]);
      assertEquals(s.after(undefined), model[0]);
    }),
    { seed: 43, numRuns: 300 },
  );
});

// Every query of a set against the sorted-array model, at bounds `k`.
function checkQueries(s: OrderedSet<Item>, model: Item[], k: number, maxA: number): void {
  const at = { k, a: 0, b: 0 };
  assertEquals(s.size, model.length);
  assertEquals(s.first(), model[0]);
  assertEquals(s.after(at), model.find((x) => x.k > k));
  assertEquals(s.find(at), model.find((x) => x.k === k));
  assertEquals(s.has(at), model.some((x) => x.k === k));
  assertEquals(s.min1, Math.min(...model.map((x) => x.a)));
  assertEquals(s.min2, Math.min(...model.map((x) => x.b)));
  const below = model.filter((x) => x.k < k).map((x) => x.a);
  assertEquals(s.min1Before(at), Math.min(...below));
  // rank: the elements before `at`, in either form (no tree built for it).
  assertEquals(s.rank(at), below.length);
  const fits = (x: Item) => x.a <= maxA;
  assertEquals(s.findFirst(at, (m1) => m1 <= maxA, fits), model.find((x) => x.k > k && fits(x)));
  assertEquals(
    s.findFirst(undefined, (m1) => m1 <= maxA, fits, at),
    model.find((x) => x.k < k && fits(x)),
  );
  assertEquals(s.scan(at, fits), model.find((x) => x.k >= k && fits(x)));
  assertEquals([...s.values(at)], model.filter((x) => x.k >= k));
}

Deno.test("scratch transient: a step that switches to the sorted-array form answers every query as the model does, and every frozen version stays as it was", () => {
  fc.assert(
    fc.property(
      fc.array(ops, { minLength: 1, maxLength: 6 }),
      fc.integer({ min: 0, max: 201 }),
      fc.nat(50),
      (steps, k, maxA) => {
        let s = OrderedSet.empty(SPEC);
        let model: Item[] = [];
        const frozen: [OrderedSet<Item>, Item[]][] = [];
        for (const list of steps) {
          let t = s.transient({}, true);
          for (const [i, o] of list.entries()) {
            t = applySet(t, o);
            model = applyModel(model, o);
            checkQueries(t, model, (k + i) % 202, maxA);
            // The tree read in the middle of the step (back from the scratch form).
            if (i % 7 === 3) checkShape(t.root);
          }
          assertEquals(t.toArray(), model);
          s = t.persistent();
          // Read as a tree now and then; else the next step starts from the
          // array this step's state shares with it.
          if (frozen.length % 2 === 1) checkShape(s.root);
          frozen.push([s, model]);
          for (const [v, m] of frozen) {
            assertEquals(v.toArray(), m);
            checkQueries(v, m, k, maxA);
          }
        }
      },
    ),
    { seed: 44, numRuns: 300 },
  );
});

Deno.test("findFirst's bounds are strict: neither `after` nor `before` itself is returned", () => {
  let s = OrderedSet.empty(SPEC);
  for (let k = 1; k <= 9; k++) s = s.add({ k, a: 0, b: 0 });
  const at = (k: number) => ({ k, a: 0, b: 0 });
  const from = (after: number | undefined, before: number | undefined, min: number) =>
    s.findFirst(
      after === undefined ? undefined : at(after),
      () => true,
      (x) => x.k >= min,
      before === undefined ? undefined : at(before),
    )?.k;
  for (let b = 1; b <= 9; b++) {
    for (let min = 1; min <= 9; min++) {
      assertEquals(from(undefined, b, min), min < b ? min : undefined);
      assertEquals(
        from(b, undefined, min),
        Math.max(min, b + 1) <= 9 ? Math.max(min, b + 1) : undefined,
      );
    }
  }
});

// The persistent ordered set (core/_ordered_set.ts) against a sorted array
// with binary search and splice, on 100k elements: 1,000 inserts then 1,000
// deletes, and a pruned "first element that fits" search where matches are
// rare. The array is mutated in place, so it is the best case for the
// baseline: the tree also keeps every old version alive.
//
// run: deno task bench (or deno bench bench/ordered_set_bench.ts)

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import { lowerBound, seededRandom } from "./_util.ts";

interface Item {
  readonly key: number;
  readonly id: number;
  readonly nodes: number;
  readonly limit: number;
}

const ORDER: OrderSpec<Item> = {
  compare: (a, b) => a.key - b.key || a.id - b.id,
  p1: (x) => x.nodes,
  p2: (x) => x.limit,
};

const N = 100_000;
const OPS = 1_000;
const rand = seededRandom(7);

// Mostly wide, long jobs; one small, short job near the end of the order,
// so a search for "fits 4 nodes and ends within 100 s" must skip ~all others.
const base: Item[] = [];
for (let i = 0; i < N; i++) {
  const rare = i === N - 10;
  base.push({
    key: Math.floor(rand() * 1e9),
    id: i,
    nodes: rare ? 2 : 8 + Math.floor(rand() * 500),
    limit: rare ? 50 : 200 + Math.floor(rand() * 50_000),
  });
}
const extra: Item[] = [];
for (let i = 0; i < OPS; i++) {
  extra.push({ key: Math.floor(rand() * 1e9), id: N + i, nodes: 64, limit: 3600 });
}

const tree = OrderedSet.from(ORDER, base);
const sorted = [...base].sort(ORDER.compare);
const fits = (x: Item) => x.nodes <= 4 && x.limit < 100;

Deno.bench({
  name: "tree: 1k inserts + 1k deletes (100k elements)",
  group: "insert/delete",
  fn() {
    let t = tree;
    for (const x of extra) t = t.add(x);
    for (const x of extra) t = t.delete(x);
    if (t.size !== N) throw new Error("size drifted");
  },
});

Deno.bench({
  name: "sorted array: 1k splice inserts + 1k splice deletes (100k elements)",
  group: "insert/delete",
  baseline: true,
  fn() {
    const a = sorted;
    for (const x of extra) a.splice(lowerBound(a, x, ORDER.compare), 0, x);
    for (const x of extra) a.splice(lowerBound(a, x, ORDER.compare), 1);
    if (a.length !== N) throw new Error("size drifted");
  },
});

Deno.bench({
  name: "tree: 1k first() + deleteFirst() + add()",
  group: "pop-min",
  fn() {
    let t = tree;
    for (const x of extra) {
      const m = t.first()!;
      t = t.deleteFirst().add({ ...m, key: m.key + x.key });
    }
  },
});

Deno.bench({
  name: "sorted array: 1k shift() + splice insert",
  group: "pop-min",
  baseline: true,
  fn() {
    const a = [...sorted];
    for (const x of extra) {
      const m = a.shift()!;
      const y = { ...m, key: m.key + x.key };
      a.splice(lowerBound(a, y, ORDER.compare), 0, y);
    }
  },
});

Deno.bench({
  name: "tree: findFirst with subtree-minimum pruning",
  group: "findFirst",
  fn() {
    const hit = tree.findFirst(undefined, (m1, m2) => m1 <= 4 && m2 < 100, fits);
    if (hit === undefined) throw new Error("expected a hit");
  },
});

Deno.bench({
  name: "sorted array: linear scan",
  group: "findFirst",
  baseline: true,
  fn() {
    const hit = sorted.find(fits);
    if (hit === undefined) throw new Error("expected a hit");
  },
});

Deno.bench({
  name: "tree: min1Before (smallest node count ahead of an element)",
  group: "min-ahead",
  fn() {
    tree.min1Before(sorted[N - 10]);
  },
});

Deno.bench({
  name: "sorted array: min over the prefix",
  group: "min-ahead",
  baseline: true,
  fn() {
    let m = Infinity;
    for (let i = 0; i < N - 10; i++) if (sorted[i].nodes < m) m = sorted[i].nodes;
    if (m === Infinity) throw new Error("empty prefix");
  },
});

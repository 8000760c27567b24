// conservative_profile's one-pass compression (schedulers/_conservative_profile_parts.ts)
// against the plain definition: for each block in order, take it out of the
// profile, search every segment start before it for the first window with
// room, and put it back there (or where it was). The compression skips most
// blocks with a running maximum of free nodes and searches without splitting
// the profile; the result must be the same blocks and the same step function.

import fc from "fast-check";
import { Blocks, Profile } from "../../schedulers/_conservative_profile_parts.ts";
import { assertEquals } from "../_assert.ts";

/** Free nodes at time t in a step function. */
function freeAt(times: readonly number[], free: readonly number[], t: number): number {
  let f = free[0];
  for (let k = 0; k < times.length && times[k] <= t; k++) f = free[k];
  return f;
}

/** The step function at every time that matters (merged neighbours do not count). */
function steps(p: Profile, at: readonly number[]): number[] {
  return at.map((t) => freeAt(p.times, p.free, t));
}

/** Plain earliest start before `start` with `nodes` free over [t, t + limit), or start. */
function plainEarlier(p: Profile, nodes: number, limit: number, start: number): number {
  for (const t of p.times) {
    if (t >= start) break;
    let ok = true;
    for (const u of [t, ...p.times.filter((x) => x > t && x < t + limit)]) {
      if (freeAt(p.times, p.free, u) < nodes) ok = false;
    }
    if (ok) return t;
  }
  return start;
}

/** A profile of `running` jobs and `blocks` given in order; `scale` stretches times and sizes. */
const scenarioOf = (minBlocks: number, maxRunning: number, maxBlocks: number, scale: number) =>
  fc.record({
    free: fc.integer({ min: 0, max: 12 * scale }),
    running: fc.array(
      fc.record({
        end: fc.integer({ min: 1, max: 60 * scale }),
        nodes: fc.integer({ min: 1, max: 4 * scale }),
      }),
      { maxLength: maxRunning },
    ),
    blocks: fc.array(
      fc.record({
        nodes: fc.integer({ min: 1, max: 10 * scale }),
        limit: fc.integer({ min: 1, max: 40 * scale }),
      }),
      { minLength: minBlocks, maxLength: maxBlocks },
    ),
    // Nodes taken after the blocks were given (as a reservation that came
    // without starting holds them from now on): segments may then have too
    // few nodes, even inside a block's own slot.
    cut: fc.option(
      fc.record({
        from: fc.integer({ min: 0, max: 80 * scale }),
        length: fc.integer({ min: 1, max: 60 * scale }),
        nodes: fc.integer({ min: 1, max: 12 * scale }),
      }),
    ),
  });

/** Short profiles, and long ones (over 16 segments: searches skip runs of them). */
const SCENARIOS = [
  { name: "short profiles", arb: scenarioOf(0, 6, 12, 1), seed: 1634, numRuns: 1000 },
  { name: "long profiles", arb: scenarioOf(30, 40, 80, 4), seed: 1635, numRuns: 500 },
];

for (const { name, arb, seed, numRuns } of SCENARIOS) {
  Deno.test(`compression in one pass equals re-placing each block, in order, at the plain earliest start (${name})`, () => {
    fc.assert(
      fc.property(arb, ({ free, running, blocks, cut }) => {
        const changes: [number, number][] = running.map((r) => [r.end, r.nodes]);
        const fast = new Profile(0, free, changes.map((c) => [c[0], c[1]]));
        const plain = new Profile(0, free, changes.map((c) => [c[0], c[1]]));
        const b = new Blocks(2);
        const starts: number[] = [];
        // Reservations as a session gives them: each at the earliest start then.
        for (const [i, x] of blocks.entries()) {
          const t = fast.earliest(x.nodes, x.limit);
          if (t === Infinity) continue;
          fast.add(t, t + x.limit, -x.nodes);
          plain.add(t, t + x.limit, -x.nodes);
          b.push(i, t, x.limit, x.nodes);
          starts.push(t);
        }
        if (cut !== null) {
          fast.add(cut.from, cut.from + cut.length, -cut.nodes);
          plain.add(cut.from, cut.from + cut.length, -cut.nodes);
        }
        // Free some nodes early (a job that left), then compress.
        fast.add(0, 30, 3);
        plain.add(0, 30, 3);
        fast.compress(b, b.length);
        for (let k = 0; k < starts.length; k++) {
          const x = blocks[b.id[k]];
          plain.add(starts[k], starts[k] + x.limit, x.nodes);
          const t = plainEarlier(plain, x.nodes, x.limit, starts[k]);
          plain.add(t, t + x.limit, -x.nodes);
          starts[k] = t;
        }
        assertEquals(Array.from(b.start.subarray(0, b.length)), starts);
        const at = [...new Set([...fast.times, ...plain.times])].sort((x, y) => x - y);
        assertEquals(steps(fast, at), steps(plain, at));
      }),
      { seed, numRuns },
    );
  });
}

Deno.test("a search before a block, on a long profile, finds the plain earliest start", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ at: fc.integer({ min: 1, max: 400 }), delta: fc.integer({ min: -6, max: 6 }) }),
        { minLength: 20, maxLength: 120 },
      ),
      fc.integer({ min: 0, max: 30 }),
      fc.record({
        nodes: fc.integer({ min: 1, max: 30 }),
        limit: fc.integer({ min: 1, max: 80 }),
        start: fc.integer({ min: 1, max: 420 }),
      }),
      (changes, free, own) => {
        const p = new Profile(0, free, changes.map((c) => [c.at, c.delta]));
        // The block's own nodes, held over [start, start + limit).
        p.add(own.start, own.start + own.limit, -own.nodes);
        const at = p.times.findIndex((t) => t >= own.start);
        const first = p.firstWith(own.nodes, at < 0 ? p.times.length : at);
        const got = first < 0 ? own.start : Math.min(
          own.start,
          p.earlierStart(own.nodes, own.limit, own.start, own.start + own.limit, first),
        );
        p.add(own.start, own.start + own.limit, own.nodes);
        assertEquals(got, plainEarlier(p, own.nodes, own.limit, own.start));
      },
    ),
    { seed: 1636, numRuns: 1000 },
  );
});

Deno.test("a kept profile moved on to a later clock starts at it, merges equal neighbours, and keeps the step function from then on", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 4 })), {
        maxLength: 30,
      }),
      // A later clock than the kept profile's (at the same one it stays as it is).
      fc.integer({ min: 1, max: 60 }),
      (steps, now) => {
        const times = [0];
        const free = [2];
        for (const [dt, f] of steps) {
          times.push(times[times.length - 1] + dt);
          free.push(f);
        }
        const p = new Profile(0, 2, []);
        p.times = times.slice();
        p.free = free.slice();
        p.advance(now);
        assertEquals(p.times[0], now);
        for (let k = 1; k < p.times.length; k++) {
          if (!(p.times[k] > p.times[k - 1]) || p.free[k] === p.free[k - 1]) {
            throw new Error(`not merged at ${k}: ${p.times} / ${p.free}`);
          }
        }
        for (const t of [now, ...times.filter((t) => t > now), now + 1000]) {
          assertEquals(freeAt(p.times, p.free, t), freeAt(times, free, t), `free at ${t}`);
        }
        // Its searches see the profile from now on.
        assertEquals(p.earliest(1, 1), plainEarliest(times, free, now, 1, 1));
        // At the same clock it stays as it is.
        const kept = [p.times.slice(), p.free.slice()];
        p.advance(now);
        assertEquals([p.times, p.free], kept);
      },
    ),
    { seed: 34, numRuns: 300 },
  );
});

/** Plain earliest start at or after `now` with `nodes` free over [t, t + limit). */
function plainEarliest(
  times: readonly number[],
  free: readonly number[],
  now: number,
  nodes: number,
  limit: number,
): number {
  for (const t of [now, ...times.filter((x) => x > now)]) {
    const inside = [t, ...times.filter((x) => x > t && x < t + limit)];
    if (inside.every((u) => freeAt(times, free, u) >= nodes)) return t;
  }
  return Infinity;
}

// conservative_profile's one-pass compression (schedulers/_conservative_profile_parts.ts)
// against the plain definition: for each block in order, take it out of the
// profile, search every segment start before it for the first window with
// room, and put it back there (or where it was). The compression skips most
// blocks with a running maximum of free nodes and searches without splitting
// the profile; the result must be the same blocks and the same step function.

import fc from "fast-check";
import { Blocks, Profile } from "../schedulers/_conservative_profile_parts.ts";
import { assertEquals } from "./_assert.ts";

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

const scenario = fc.record({
  free: fc.integer({ min: 0, max: 12 }),
  running: fc.array(
    fc.record({ end: fc.integer({ min: 1, max: 60 }), nodes: fc.integer({ min: 1, max: 4 }) }),
    {
      maxLength: 6,
    },
  ),
  blocks: fc.array(
    fc.record({
      nodes: fc.integer({ min: 1, max: 10 }),
      limit: fc.integer({ min: 1, max: 40 }),
    }),
    { maxLength: 12 },
  ),
});

Deno.test("compression in one pass equals re-placing each block, in order, at the plain earliest start", () => {
  fc.assert(
    fc.property(scenario, ({ free, running, blocks }) => {
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
    { seed: 1634, numRuns: 500 },
  );
});

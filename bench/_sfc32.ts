// The small seeded generator the trace generator draws from: sfc32 (Chris
// Doty-Humphrey's Small Fast Counting generator), four 32-bit words. It was
// the engine's run-time generator before the engine switched to DR_EVT's
// std::mt19937 (core/rng.ts); generated traces stay byte-identical.

/** Generator state: four unsigned 32-bit integers. */
export type Sfc32State = readonly [number, number, number, number];

/** Seeds a generator; the same seed always gives the same sequence. */
export function seedSfc32(seed: number): Sfc32State {
  // splitmix32 spreads a small integer seed over the four words.
  let s = (Math.trunc(seed) >>> 0) ^ 0x9e3779b9;
  const next = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let st: Sfc32State = [next(), next(), next(), next()];
  for (let i = 0; i < 12; i++) st = nextSfc32(st)[1];
  return st;
}

/** Draws a float in [0, 1) and returns it with the next state. */
export function nextSfc32(st: Sfc32State): [number, Sfc32State] {
  let [a, b, c, d] = st;
  const t = (((a + b) >>> 0) + d) >>> 0;
  d = (d + 1) >>> 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) >>> 0;
  c = ((c << 21) | (c >>> 11)) >>> 0;
  c = (c + t) >>> 0;
  return [t / 4294967296, [a >>> 0, b >>> 0, c, d]];
}

// A small seeded generator whose whole state is four 32-bit integers, so it
// can live inside the immutable simulation state and be copied for free.
// sfc32 (Chris Doty-Humphrey's Small Fast Counting generator).

/**
 * Generator state: four unsigned 32-bit integers.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type RngState, step } from "../mod.ts";
 * const config = { totalNodes: 8, runTimeMode: "distribution", runTimeStddev: 0.5, seed: 42 } as const;
 * const seeded: RngState = initialState(config).rng;
 * const s = step(initialState(config), appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 100 }])).state;
 * // The same seed gives the same words; drawing a job's run time advances them.
 * if (seeded.length !== 4 || String(initialState(config).rng) !== String(seeded)) throw new Error("seed");
 * if (String(s.rng) === String(seeded)) throw new Error("a draw should advance the generator");
 * ```
 */
export type RngState = readonly [number, number, number, number];

/** Seeds a generator; the same seed always gives the same sequence. */
export function seedRng(seed: number): RngState {
  // splitmix32 spreads a small integer seed over the four words.
  let s = (Math.trunc(seed) >>> 0) ^ 0x9e3779b9;
  const next = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let st: RngState = [next(), next(), next(), next()];
  for (let i = 0; i < 12; i++) st = nextUniform(st)[1];
  return st;
}

/** Draws a float in [0, 1) and returns it with the next state. */
export function nextUniform(st: RngState): [number, RngState] {
  let [a, b, c, d] = st;
  const t = (((a + b) >>> 0) + d) >>> 0;
  d = (d + 1) >>> 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) >>> 0;
  c = ((c << 21) | (c >>> 11)) >>> 0;
  c = (c + t) >>> 0;
  return [t / 4294967296, [a >>> 0, b >>> 0, c, d]];
}

/** Draws a standard normal variate (Box–Muller, no cached second value). */
export function nextNormal(st: RngState): [number, RngState] {
  const [u1, s1] = nextUniform(st);
  const [u2, s2] = nextUniform(s1);
  const r = Math.sqrt(-2 * Math.log(1 - u1));
  return [r * Math.cos(2 * Math.PI * u2), s2];
}

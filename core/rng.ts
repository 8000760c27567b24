// The run-time generator: DR_EVT's `std::mt19937` (the 32-bit Mersenne Twister,
// seeded as libstdc++ seeds it), so that `--seed N` draws DR_EVT's numbers.
// Its state is 624 words; a state is never written to. A step that draws
// copies the words once into an `RngCursor`, draws in place, and hands the
// array over to the next state.

const N = 624;
const M = 397;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

/**
 * The generator's state: DR_EVT's `std::mt19937`, 624 words and the position
 * of the next one. Treat it as immutable: nothing in evtsim writes to `words`
 * once a state holds it.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step } from "@evtsim/evtsim";
 * import type { RngState } from "./rng.ts";
 * const config = { totalNodes: 8, runTimeMode: "distribution", runTimeStddev: 0.5, seed: 42 } as const;
 * const seeded: RngState = initialState(config).rng;
 * const s = step(initialState(config), appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 100 }])).state;
 * // A draw advances the position and leaves the seeded state as it was.
 * if (seeded.index !== 624 || s.rng.index === 624 || seeded.words === s.rng.words) throw new Error("rng");
 * ```
 */
export interface RngState {
  /** The 624 state words (never written to once a state holds them). */
  readonly words: Uint32Array;
  /** Index of the next word to temper; 624 means "twist first". */
  readonly index: number;
}

/**
 * Seeds the generator as `std::mt19937 rng(seed)` does: the seed is taken
 * modulo 2^32 (after truncation), as DR_EVT's unsigned `--seed` is.
 *
 * @example
 * ```ts
 * import { RngCursor, seedRng } from "./rng.ts";
 * // The first output of std::mt19937 seeded with 5489 (its default seed) is 3499211612.
 * console.assert(RngCursor.from(seedRng(5489)).nextUint32() === 3499211612);
 * ```
 */
export function seedRng(seed: number): RngState {
  const words = new Uint32Array(N);
  words[0] = seed >>> 0;
  for (let i = 1; i < N; i++) {
    const prev = words[i - 1] ^ (words[i - 1] >>> 30);
    words[i] = (Math.imul(1812433253, prev) + i) >>> 0;
  }
  return Object.freeze({ words, index: N });
}

/**
 * A generator for the length of one step: it copies the state's words once,
 * draws in place, and {@link RngCursor.state} returns the new state without
 * another copy. The state it started from is never changed.
 *
 * @example
 * ```ts
 * import { RngCursor, seedRng } from "./rng.ts";
 * const s0 = seedRng(1);
 * const c = RngCursor.from(s0);
 * const a = c.nextUint32();
 * const s1 = c.state();
 * // Drawing again from s0 gives the same number; s1 continues the sequence.
 * console.assert(RngCursor.from(s0).nextUint32() === a && RngCursor.from(s1).nextUint32() !== a);
 * ```
 */
export class RngCursor {
  #words: Uint32Array;
  #index: number;
  /** `#words` belongs to a state handed out by `state()`: copy before writing. */
  #shared: boolean;

  private constructor(words: Uint32Array, index: number) {
    this.#words = words;
    this.#index = index;
    this.#shared = true;
  }

  /** A cursor at `state` (the words are copied on the first draw). */
  static from(state: RngState): RngCursor {
    return new RngCursor(state.words, state.index);
  }

  /** The next 32-bit output, as `std::mt19937::operator()` gives it. */
  nextUint32(): number {
    if (this.#index >= N) this.#twist();
    let y = this.#words[this.#index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /**
   * A double in [0, 1) as libstdc++'s `std::generate_canonical<double, 53>`
   * makes it from a 32-bit engine: two outputs, `(a + b·2^32) / 2^64`, the sum
   * rounded to a double (and a result of 1 replaced by the largest double
   * below 1).
   */
  canonical(): number {
    const lo = this.nextUint32();
    const hi = this.nextUint32();
    const x = (lo + hi * 4294967296) / 18446744073709551616;
    return x < 1 ? x : 1 - 2 ** -53;
  }

  /** The generator's state now. Later draws do not change it. */
  state(): RngState {
    this.#shared = true;
    return Object.freeze({ words: this.#words, index: this.#index });
  }

  #twist(): void {
    if (this.#shared) {
      this.#words = this.#words.slice();
      this.#shared = false;
    }
    const mt = this.#words;
    for (let i = 0; i < N; i++) {
      const y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER);
      mt[i] = mt[(i + M) % N] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.#index = 0;
  }
}

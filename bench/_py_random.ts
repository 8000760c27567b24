// CPython's `random.Random` for an integer seed: MT19937 seeded with
// init_by_array, `random()` from two 32-bit outputs (53 bits), `randint`
// by rejection on getrandbits, Kinderman-Monahan `normalvariate`,
// `lognormvariate` and `expovariate`, with the same floating-point operations
// in the same order, so the benchmark traces come out byte-identical to the
// ones the Python generator wrote for the published figures.

const N = 624;
const M = 397;

/** Python's `random.Random(seed)` for a non-negative integer seed. */
export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new RangeError(`seed: expected an integer >= 0, got ${seed}`);
    }
    // init_by_array with the seed's 32-bit words, least significant first.
    const key: number[] = [];
    let s = seed;
    do {
      key.push(s % 2 ** 32);
      s = Math.floor(s / 2 ** 32);
    } while (s > 0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      // 1812433253 * prev + i, in 32-bit arithmetic.
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output of the twister. */
  uint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.random()`: a double in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** `random.getrandbits(k)` for 0 < k <= 32. */
  private getrandbits(k: number): number {
    return this.uint32() >>> (32 - k);
  }

  /** `random.randint(a, b)`: an integer in [a, b] (b - a < 2^32). */
  randint(a: number, b: number): number {
    const n = b - a + 1;
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return a + r;
  }

  /** `random.normalvariate(mu, sigma)` (Kinderman and Monahan). */
  normalvariate(mu: number, sigma: number): number {
    for (;;) {
      const u1 = this.random();
      const u2 = 1.0 - this.random();
      const z = NV_MAGICCONST * (u1 - 0.5) / u2;
      const zz = z * z / 4.0;
      if (zz <= -Math.log(u2)) return mu + z * sigma;
    }
  }

  /** `random.lognormvariate(mu, sigma)`. */
  lognormvariate(mu: number, sigma: number): number {
    return Math.exp(this.normalvariate(mu, sigma));
  }

  /** `random.expovariate(lambd)`. */
  expovariate(lambd: number): number {
    return -Math.log(1.0 - this.random()) / lambd;
  }
}

const NV_MAGICCONST = 4 * Math.exp(-0.5) / Math.sqrt(2.0);

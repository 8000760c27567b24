// glibc's double-precision `log` and `exp`, operation for operation, so that a
// run-time draw gives DR_EVT's value to the last bit. V8's Math.log and
// Math.exp are accurate to 1 ulp but differ from glibc in about one case in
// a thousand, which shows in a schedule when a draw lands on a whole second
// (lognormal with σ = 0 is exp(log(L·f))).
//
// The sequence of operations is that of glibc's x86-64 `__exp_fma` and
// `__log_fma` variants (the ones a CPU with FMA and AVX2 runs, as every
// x86-64 CPU since 2013 does; older CPUs run a variant without fused
// multiply-adds whose last bit can differ, so DR_EVT itself is not
// bit-reproducible across such machines). The fused multiply-adds are
// emulated exactly in double arithmetic.

import { EXP_DATA, LOG_DATA } from "./_glibc_tables.ts";

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
// Index of the high and low 32-bit word of a double in `u32`.
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

function parseWords(text: string): { hi: Uint32Array; lo: Uint32Array; d: Float64Array } {
  const words = text.trim().split(/\s+/);
  const hi = new Uint32Array(words.length);
  const lo = new Uint32Array(words.length);
  const d = new Float64Array(words.length);
  words.forEach((w, i) => {
    hi[i] = parseInt(w.slice(0, 8), 16);
    lo[i] = parseInt(w.slice(8), 16);
    u32[HI] = hi[i];
    u32[LO] = lo[i];
    d[i] = f64[0];
  });
  return { hi, lo, d };
}

// The tables are parsed at the first draw, not at import: every run loads
// this module, few draw run times (it was ~10 ms of a cold KTH run's profile).
type Words = ReturnType<typeof parseWords>;
let E: Words, L: Words, B: Float64Array;
let INV_LN2_N = 0, NEG_LN2_HI_N = 0, NEG_LN2_LO_N = 0;
let C2 = 0, C3 = 0, C4 = 0, C5 = 0, SHIFT = 0;
let LN2_HI = 0, LN2_LO = 0, A0 = 0, A1 = 0, A2 = 0, A3 = 0, A4 = 0;
let parsed = false;
const EXP_TAB = 14; // index of tab[0] in E
const LOG_TAB = 18; // index of tab[0].invc in L

function parseTables(): void {
  E = parseWords(EXP_DATA);
  L = parseWords(LOG_DATA);
  [INV_LN2_N, NEG_LN2_HI_N, NEG_LN2_LO_N, C2, C3, C4, C5, SHIFT] = E.d;
  [LN2_HI, LN2_LO, A0, A1, A2, A3, A4] = L.d;
  B = L.d.subarray(7, 18);
  parsed = true;
}

function fromWords(hi: number, lo: number): number {
  u32[HI] = hi;
  u32[LO] = lo;
  return f64[0];
}

// ---- an exact fused multiply-add in double arithmetic ----------------------

const SPLIT = 134217729; // 2^27 + 1 (Veltkamp)

/** The rounding error of `s = a + b` (Knuth's TwoSum): a + b = s + err exactly. */
function twoSumErr(a: number, b: number, s: number): number {
  const bb = s - a;
  return (a - (s - bb)) + (b - bb);
}

/** The rounding error of `p = a · b` (Dekker's TwoProduct): a · b = p + err exactly. */
function twoProdErr(a: number, b: number, p: number): number {
  let t = SPLIT * a;
  const ah = t - (t - a), al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b), bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/** The double next to `x` in the direction of the sign of `dir` (x finite). */
function nudge(x: number, dir: number): number {
  if (x === 0) return dir > 0 ? Number.MIN_VALUE : -Number.MIN_VALUE;
  f64[0] = x;
  // Away from zero when x and dir agree in sign, towards it otherwise.
  const away = (x > 0) === (dir > 0);
  if (away) {
    if (u32[LO] === 0xffffffff) {
      u32[LO] = 0;
      u32[HI]++;
    } else u32[LO]++;
  } else if (u32[LO] === 0) {
    u32[LO] = 0xffffffff;
    u32[HI]--;
  } else u32[LO]--;
  return f64[0];
}

/**
 * `fma(a, b, c)`: a · b + c rounded once, as the x86 FMA instructions do
 * (Boldo and Melquiond's emulation: exact product and sum, then a
 * round-to-odd addition before the final rounding). Exact for the normal
 * range the functions below use.
 */
export function fma(a: number, b: number, c: number): number {
  const uh = a * b;
  if (!Number.isFinite(uh) || uh === 0 || c === 0 || !Number.isFinite(c)) return uh + c;
  const ul = twoProdErr(a, b, uh);
  const th = c + uh;
  const tl = twoSumErr(c, uh, th);
  // v = round-to-odd(tl + ul).
  let v = tl + ul;
  const err = twoSumErr(tl, ul, v);
  if (err !== 0) {
    f64[0] = v;
    if ((u32[LO] & 1) === 0) v = nudge(v, err);
  }
  return th + v;
}

// ---- exp ---------------------------------------------------------------------

/**
 * glibc's `exp(x)` as `__exp_fma` computes it: x = k·ln2/128 + r, a table
 * entry for 2^(k/128) and a degree-5 polynomial for exp(r).
 *
 * @example
 * ```ts
 * import { glibcExp } from "./_glibc_math.ts";
 * console.assert(glibcExp(0) === 1 && glibcExp(1) === 2.718281828459045);
 * ```
 */
export function glibcExp(x: number): number {
  if (!parsed) parseTables(); // before f64 is used: parsing writes it too
  f64[0] = x;
  const xhi = u32[HI];
  let abstop = (xhi >>> 20) & 0x7ff;
  if (((abstop - 0x3c9) >>> 0) >= 0x3f) {
    if (abstop - 0x3c9 < 0) return 1.0 + x; // |x| < 2^-54
    if (abstop >= 0x409) {
      if (x === -Infinity) return 0;
      if (abstop >= 0x7ff) return 1.0 + x; // +Infinity or NaN
      return xhi >>> 31 ? 0 : Infinity; // underflow or overflow
    }
    abstop = 0; // 512 <= |x| < 1024: the scale needs care below
  }
  const z = fma(x, INV_LN2_N, SHIFT);
  f64[0] = z;
  const kiLo = u32[LO];
  const kd = z - SHIFT;
  let r = fma(kd, NEG_LN2_HI_N, x);
  r = fma(kd, NEG_LN2_LO_N, r);
  const idx = EXP_TAB + 2 * (kiLo & 127);
  const tail = E.d[idx];
  const p23 = fma(r, C3, C2);
  const rt = r + tail;
  const r2 = r * r;
  const p45 = fma(r, C5, C4);
  const t = fma(p23, r2, rt);
  const tmp = fma(r2 * r2, p45, t);
  // sbits = tab[idx + 1] + (ki << 45): only the high word changes.
  const sHi = (E.hi[idx + 1] + ((kiLo << 13) >>> 0)) >>> 0;
  const sLo = E.lo[idx + 1];
  if (abstop === 0) return expSpecial(tmp, sHi, sLo, kiLo);
  const scale = fromWords(sHi, sLo);
  return fma(scale, tmp, scale);
}

// Results near overflow or in the subnormal range (|x| >= 512).
function expSpecial(tmp: number, sHi: number, sLo: number, ki: number): number {
  if ((ki & 0x80000000) === 0) {
    const scale = fromWords((sHi - (1009 << 20)) >>> 0, sLo);
    return fma(scale, tmp, scale) * 2 ** 1009;
  }
  const scale = fromWords((sHi + (1022 << 20)) >>> 0, sLo);
  const st = scale * tmp;
  let y = scale + st;
  if (y < 1.0) {
    const lo0 = scale - y + st;
    const hi = y + 1.0;
    y = (1.0 - hi + y + lo0 + hi) - 1.0;
    if (y === 0) return 0;
  }
  return y * 2 ** -1022;
}

// ---- log ---------------------------------------------------------------------

/**
 * glibc's `log(x)` as `__log_fma` computes it: x = 2^k · z, z/c − 1 from a
 * 128-entry table of 1/c and log(c), and a polynomial for log1p; inputs
 * close to 1 use a longer polynomial.
 *
 * @example
 * ```ts
 * import { glibcLog } from "./_glibc_math.ts";
 * console.assert(glibcLog(1) === 0 && glibcLog(Math.E) === 1 && glibcLog(100) === 4.605170185988092);
 * ```
 */
export function glibcLog(x: number): number {
  if (!parsed) parseTables(); // before f64 is used: parsing writes it too
  f64[0] = x;
  let ixHi = u32[HI];
  const ixLo = u32[LO];
  if (ixHi >= 0x3fee0000 && ixHi < 0x3ff10900) {
    if (x === 1) return 0;
    return logNearOne(x);
  }
  const top = ixHi >>> 16;
  if (((top - 0x0010) >>> 0) >= 0x7fe0) {
    if (x === 0) return -Infinity;
    if (x === Infinity) return x;
    if (top & 0x8000 || (top & 0x7ff0) === 0x7ff0) return NaN;
    // Subnormal: scale it into the normal range.
    f64[0] = x * 2 ** 52;
    ixHi = (u32[HI] - (52 << 20)) >>> 0;
    // The low word is unchanged by the exponent adjustment.
    return logNormal(ixHi, u32[LO]);
  }
  return logNormal(ixHi, ixLo);
}

function logNormal(ixHi: number, ixLo: number): number {
  const tmpHi = (ixHi - 0x3fe60000) >>> 0;
  const i = (tmpHi >>> 13) & 127;
  const k = (tmpHi | 0) >> 20;
  const z = fromWords((ixHi - (tmpHi & 0xfff00000)) >>> 0, ixLo);
  const invc = L.d[LOG_TAB + 2 * i];
  const logc = L.d[LOG_TAB + 2 * i + 1];
  const kd = k;
  const w = fma(kd, LN2_HI, logc);
  const r = fma(z, invc, -1.0);
  const p12 = fma(r, A2, A1);
  const hi = r + w;
  const r2 = r * r;
  const lo = fma(kd, LN2_LO, (w - hi) + r);
  const r3 = r * r2;
  const p34 = fma(r, A4, A3);
  const lo2 = fma(r2, A0, lo);
  const p = fma(p34, r2, p12);
  return fma(r3, p, lo2) + hi;
}

function logNearOne(x: number): number {
  const r = x - 1.0;
  const r2 = r * r;
  const q12 = fma(r2, B[3], fma(r, B[2], B[1]));
  const q45 = fma(r2, B[6], fma(r, B[5], B[4]));
  const r3 = r * r2;
  const q78 = fma(r2, B[9], fma(r, B[8], B[7]));
  const q = fma(r3, B[10], q78);
  const p = fma(fma(q, r3, q45), r3, q12);
  const sum = fma(r, 2 ** 27, r);
  const rhi = fma(-(2 ** 27), r, sum);
  const rhi2 = rhi * rhi;
  const rlo = r - rhi;
  const hi = fma(rhi2, B[0], r);
  const lo = fma(rhi2, B[0], r - hi);
  const lo2 = fma(B[0] * rlo, rhi + r, lo);
  return hi + fma(p, r3, lo2);
}

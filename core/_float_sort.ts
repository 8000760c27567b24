// Sorting the metrics' distributions (waits, slowdowns: one value per job)
// in place, in the order `Float64Array.prototype.sort` gives, in a fraction of
// its time. V8 sorts a Float64Array several times slower than a
// BigUint64Array of the same length (200k values: ~40 ms against ~6 ms), and
// the statistics at the end of an HPC2N run sorted six of them: a third of
// the run. Each double's bits are turned into an unsigned key whose integer
// order is the numeric order (negative values: every bit flipped; others: the
// sign bit set), the keys sorted as 64-bit integers, and the bits turned back.
// -0 sorts before +0, as in the built-in sort (an array with a NaN is left
// to it); the values are the same bits, so every percentile read from the
// result is the same.

/** Below this length the built-in sort is as quick. */
const SMALL = 256;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Sorts `values` in place in ascending numeric order (-0 before +0, NaN
 * last: the order of `Float64Array.prototype.sort`); returns it.
 *
 * @example
 * ```ts
 * import { sortFloat64 } from "./_float_sort.ts";
 * const xs = Float64Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) - 500.5);
 * const expected = xs.slice().sort();
 * sortFloat64(xs);
 * console.assert(xs.every((x, i) => Object.is(x, expected[i])));
 * ```
 */
export function sortFloat64(values: Float64Array): Float64Array {
  const n = values.length;
  if (n < SMALL) return values.sort();
  // A NaN's bits are kept by the built-in sort whatever its sign: leave it that case.
  for (let i = 0; i < n; i++) if (values[i] !== values[i]) return values.sort();
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  const hiAt = LITTLE_ENDIAN ? 1 : 0;
  toKeys(words, n, hiAt);
  new BigUint64Array(values.buffer, values.byteOffset, n).sort();
  fromKeys(words, n, hiAt);
  return values;
}

function toKeys(words: Uint32Array, n: number, hiAt: number): void {
  for (let i = 0; i < n; i++) {
    const h = 2 * i + hiAt, l = 2 * i + 1 - hiAt;
    const hi = words[h];
    if (hi >= 0x80000000) {
      words[h] = ~hi;
      words[l] = ~words[l];
    } else words[h] = hi | 0x80000000;
  }
}

function fromKeys(words: Uint32Array, n: number, hiAt: number): void {
  for (let i = 0; i < n; i++) {
    const h = 2 * i + hiAt, l = 2 * i + 1 - hiAt;
    const hi = words[h];
    if (hi < 0x80000000) {
      words[h] = ~hi;
      words[l] = ~words[l];
    } else words[h] = hi & 0x7fffffff;
  }
}

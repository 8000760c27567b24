// core/_float_sort.ts sorts a Float64Array through 64-bit integer keys; it
// must give exactly the built-in sort's result (the same bits in the same
// order: -0 before +0, NaN last) at every length, with any values.

import fc from "fast-check";
import { sortFloat64 } from "../../core/_float_sort.ts";
import { assert } from "../_assert.ts";

const PARAMS = { seed: 34, numRuns: 300 };
// A NaN with its sign bit set (x86's default NaN).
const NEGATIVE_NAN = new Float64Array(new BigUint64Array([0xfff8000000000000n]).buffer)[0];

function sameBits(a: Float64Array, b: Float64Array): boolean {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

Deno.test("sortFloat64 equals Float64Array.prototype.sort bit for bit (any doubles, short and long arrays)", () => {
  // Values from a small pool repeat, as waits do (many jobs wait 0).
  const value = fc.oneof(
    fc.double({ noNaN: true }),
    fc.constantFrom(0, -0, Infinity, -Infinity, 1, -1, Number.MIN_VALUE, -Number.MIN_VALUE),
    fc.integer({ min: -1000, max: 1_000_000 }),
  );
  fc.assert(
    fc.property(
      fc.array(value, { maxLength: 2000, size: "max" }),
      fc.nat(3),
      // Now and then a NaN (either sign) somewhere.
      fc.option(fc.tuple(fc.constantFrom(NaN, NEGATIVE_NAN), fc.nat()), { freq: 5 }),
      (values, offset, nan) => {
        const xs = [...values];
        if (nan !== null) xs.splice(nan[1] % (xs.length + 1), 0, nan[0]);
        // A view into a larger buffer: the keys must stay inside it.
        const buffer = new Float64Array(xs.length + offset + 2).fill(7.5);
        const got = buffer.subarray(offset, offset + xs.length);
        got.set(xs);
        const want = Float64Array.from(xs).sort();
        const sorted = sortFloat64(got);
        assert(sorted === got, "sorted in place");
        assert(sameBits(got, want), `differs from the built-in sort on ${xs.length} values`);
        assert(buffer[offset + xs.length] === 7.5 && (offset === 0 || buffer[0] === 7.5));
      },
    ),
    PARAMS,
  );
});

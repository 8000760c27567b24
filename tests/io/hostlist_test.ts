// The schedule's `nodes` column is Slurm hostlist text: it must read back
// (as Slurm expands it) to exactly the nodes written.

import fc from "fast-check";
import { compressHostlist, expandHostlist } from "../../io/hostlist.ts";
import { EvtsimError } from "../../core/errors.ts";
import { assertEquals, assertThrows } from "../_assert.ts";

const PARAMS = { seed: 28, numRuns: 300 };

Deno.test("hostlist: ranges, single names, several prefixes", () => {
  assertEquals(compressHostlist(["n001", "n002", "n003", "n004"]), "n[001-004]");
  assertEquals(compressHostlist(["n001", "n003", "n004", "n009"]), "n[001,003-004,009]");
  assertEquals(compressHostlist(["n005"]), "n005");
  assertEquals(compressHostlist([]), "");
  assertEquals(compressHostlist(["a1", "b2", "a2"]), "a[1-2],b2");
  // Widths are kept apart: n9 and n10 are two names, n099 and n100 one range.
  assertEquals(compressHostlist(["n9", "n10"]), "n9,n10");
  assertEquals(compressHostlist(["n099", "n100"]), "n[099-100]");
  assertEquals(compressHostlist(["login", "login"]), "login");
  assertEquals(expandHostlist("n[9-11]"), ["n9", "n10", "n11"]);
  assertEquals(expandHostlist("rack1-n[01-02]"), ["rack1-n01", "rack1-n02"]);
});

Deno.test("hostlist: a malformed list is one clear error", () => {
  for (
    const [list, what] of [
      ["n[1-", "'[' without ']'"],
      ["n1]", "']' without '['"],
      ["n[3-1]", "ends before it starts"],
      ["n[a]", "is not N or N-M"],
      ["n1,,n2", "an empty name"],
    ]
  ) {
    const e = assertThrows(() => expandHostlist(list), what);
    assertEquals(e instanceof EvtsimError, true);
  }
});

// Names as sites write them: a prefix (letters, dashes, digits inside) and a number of some width.
const arbName = fc.tuple(
  fc.constantFrom("n", "gpu", "rack1-n", "cn-", "login"),
  fc.integer({ min: 0, max: 2000 }),
  fc.integer({ min: 1, max: 5 }),
  fc.boolean(),
).map(([prefix, n, width, numbered]) =>
  numbered ? prefix + String(n).padStart(width, "0") : prefix
);

Deno.test("hostlist: expanding the compressed list gives every name back, once (property)", () => {
  fc.assert(
    fc.property(fc.array(arbName, { maxLength: 40 }), (names) => {
      const text = compressHostlist(names);
      const back = expandHostlist(text);
      assertEquals([...back].sort(), [...new Set(names)].sort());
      // Compressing again changes nothing.
      assertEquals(compressHostlist(back), text);
    }),
    PARAMS,
  );
});

Deno.test("hostlist: one machine's nodes in order read back in the same order (property)", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { maxLength: 60 }),
      (nums) => {
        const names = [...nums].sort((a, b) => a - b).map((n) => "n" + String(n).padStart(3, "0"));
        assertEquals(expandHostlist(compressHostlist(names)), names);
      },
    ),
    PARAMS,
  );
});

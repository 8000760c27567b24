// The schedule and resource rows written straight into the output buffer
// (issue 34 item 4: no string per line) are the bytes the string builders
// give, for any numbers: whole, fractional, negative, -0, beyond 2^53,
// infinite, with and without milliseconds and a queue column.

import fc from "fast-check";
import { assertEquals } from "../_assert.ts";
import { AtomicTextWriter } from "../../io/atomic_writer.ts";
import { scheduleLine, writeScheduleLine } from "../../io/schedule_csv.ts";
import { resourceLine, writeResourceLine } from "../../io/resource_csv.ts";
import type { JobRow } from "../../core/types.ts";

// A writer whose file collects the bytes, read back as text.
function capture(fill: (w: AtomicTextWriter) => void): string {
  const chunks: Uint8Array[] = [];
  const w = new AtomicTextWriter("out.csv", "out.csv.tmp", {
    write: (b) => (chunks.push(b.slice()), b.length),
    sync: () => {},
    close: () => {},
  });
  fill(w);
  w.finish();
  return chunks.map((c) => new TextDecoder().decode(c)).join("");
}

const num = fc.oneof(
  fc.integer({ min: -1e6, max: 1e10 }),
  fc.double({ min: -1e17, max: 1e17, noNaN: true }),
  fc.constantFrom(0, -0, -0.5, 0.999, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 60, 1e21, 1e22),
  fc.constantFrom(Infinity, -Infinity, NaN),
);
const count = fc.oneof(fc.integer({ min: -300, max: 100000 }), num);

Deno.test("schedule and resource rows written into the buffer match the string builders", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          submitTime: num,
          beginTime: num,
          endTime: num,
          numNodes: count,
          timeLimit: num,
          exitStatus: fc.option(count, { nil: undefined }),
          queue: fc.option(fc.constantFrom("pbatch", "a,b", 'q"x', ""), { nil: undefined }),
        }),
        { maxLength: 40 },
      ),
      fc.boolean(),
      fc.constantFrom(undefined, "queue" as const),
      (rows, msec, queueColumn) => {
        const o = { msec, queueColumn };
        const jobs = rows.map((r, i): JobRow => ({ jobId: i, ...r }));
        assertEquals(
          capture((w) => jobs.forEach((r) => writeScheduleLine(w, r, o))),
          jobs.map((r) => scheduleLine(r, o) + "\n").join(""),
        );
        const res = rows.map((r) => ({
          time: r.submitTime,
          freeNodes: r.numNodes,
          allocatedNodes: r.exitStatus ?? 0,
        }));
        assertEquals(
          capture((w) => res.forEach((r) => writeResourceLine(w, r, msec))),
          res.map((r) => resourceLine(r, msec) + "\n").join(""),
        );
      },
    ),
    { seed: 34, numRuns: 500 },
  );
});

Deno.test("numbers at each digit count's ends are written as String gives them", () => {
  const xs = [0, -0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32];
  for (let p = 1; p <= 1e15; p *= 10) xs.push(p - 1, p, p + 1, -p);
  assertEquals(
    capture((w) => xs.forEach((x) => (w.number(x), w.char(10)))),
    xs.map((x) => `${x}\n`).join(""),
  );
});

Deno.test("numbers written across the buffer's end are not cut", () => {
  const n = 20000; // 20000 lines of up to 17 bytes: more than one 64 KiB buffer
  const text = capture((w) => {
    for (let i = 0; i < n; i++) {
      w.number(-(2 ** 53 - 1) + i);
      w.char(10);
    }
  });
  const want: string[] = [];
  for (let i = 0; i < n; i++) want.push(String(-(2 ** 53 - 1) + i) + "\n");
  assertEquals(text, want.join(""));
});

Deno.test("a line, text, a character or a number that ends exactly at the buffer's 64 KiB edge loses nothing", () => {
  // Each write lands on every offset around the edge: a prefix of k bytes
  // first, then pieces that end at 65535, 65536 and 65537 bytes.
  const edge = 1 << 16;
  for (let k = edge - 24; k <= edge + 2; k++) {
    const prefix = "x".repeat(k);
    const ways: [string, (w: AtomicTextWriter) => void, string][] = [
      ["line", (w) => (w.text(prefix), w.line("ab"), w.line("")), `${prefix}ab\n\n`],
      ["text", (w) => (w.text(prefix), w.text("abc"), w.char(10)), `${prefix}abc\n`],
      ["char", (w) => (w.text(prefix), w.char(44), w.char(10)), `${prefix},\n`],
      ["number", (w) => (w.text(prefix), w.number(12345), w.char(10)), `${prefix}12345\n`],
      [
        "negative",
        (w) => (w.text(prefix), w.number(-(2 ** 53 - 1)), w.line("")),
        `${prefix}-9007199254740991\n`,
      ],
      ["utf-8", (w) => (w.text(prefix), w.line("é€")), `${prefix}é€\n`],
    ];
    for (const [what, fill, want] of ways) {
      const got = capture(fill);
      if (got !== want) {
        throw new Error(`${what} after ${k} bytes: ${got.length} chars, want ${want.length}`);
      }
    }
  }
});

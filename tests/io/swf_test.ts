// The SWF reader on real log prefixes (counts and jobs checked by hand with
// awk over the fixtures), on hand-made edge cases, and on broken input.

import fc from "fast-check";
import { EvtsimError } from "../../core/errors.ts";
import type { JobSpec } from "../../core/types.ts";
import { formatSwfReport, parseSwfText, readSwf, type SwfReadOptions } from "../../io/swf.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../_assert.ts";

const FIXTURES = new URL("../fixtures/swf/", import.meta.url);
const KTH = new URL("kth_500.swf.gz", FIXTURES).pathname;
const KTH_TRUNCATED = new URL("kth_500_truncated.swf.gz", FIXTURES).pathname;
const SDSC = new URL("sdsc_blue_300.swf", FIXTURES).pathname;

const job = (submitTime: number, numNodes: number, timeLimit: number, actualRunTime: number) => ({
  submitTime,
  numNodes,
  timeLimit,
  actualRunTime,
});
const queued = (q: string, j: ReturnType<typeof job>) => ({ ...j, queue: q });
/** Jobs without their user and account (checked separately). */
const bare = (jobs: readonly JobSpec[]) => jobs.map(({ user: _u, account: _a, ...j }) => j);

/** An 18-field line; unspecified fields are -1. */
function line(f: Partial<Record<number, number | string>>): string {
  return Array.from({ length: 18 }, (_, i) => String(f[i + 1] ?? -1)).join(" ");
}
/** A data line from submit, wait, run, allocated procs, requested procs, requested time. */
function data(submit: number, wait: number, run: number, alloc: number, req: number, reqT: number) {
  return line({ 1: 1, 2: submit, 3: wait, 4: run, 5: alloc, 8: req, 9: reqT });
}

Deno.test("KTH prefix (gzip): 500 jobs read, none skipped, no fallbacks or overruns", async () => {
  // Hand-checked with awk: 24 header lines, data on lines 25-524, every job has
  // positive requested processors, requested time and run time; none overran.
  const r = await readSwf(KTH);
  assertEquals(r.report.read, 500);
  assertEquals(r.report.accepted, 500);
  assertEquals(r.report.skipped, {
    missingSubmitTime: 0,
    nonPositiveSize: 0,
    nonPositiveRunTime: 0,
    missingWait: 0,
  });
  assertEquals([r.report.limitFallbacks, r.report.sizeFallbacks, r.report.overruns], [0, 0, 0]);
  assertEquals([r.header.maxNodes, r.header.maxProcs, r.machineSize], [100, 100, 100]);
  assertEquals(r.header.unixStartTime, 843480031);
  // Fields 12 and 13 (user, group) as the job's user and account.
  assertEquals(r.jobs.slice(0, 3).map((j) => [j.user, j.account]), [
    ["12", "12"],
    ["13", "13"],
    ["14", "14"],
  ]);
  assertEquals(bare(r.jobs.slice(0, 5)), [
    job(599850, 4, 53940, 3477),
    job(600022, 25, 3600, 2488),
    job(600476, 5, 215400, 215337),
    job(600836, 17, 36000, 35373),
    job(603930, 8, 2400, 29),
  ]);
  assertEquals(bare(r.jobs.slice(-5)), [
    job(883889, 1, 240, 11),
    job(883910, 1, 180, 111),
    job(885210, 1, 900, 666),
    job(886438, 1, 1200, 363),
    job(888277, 1, 3600, 152),
  ]);
  assertEquals(r.recorded, []);
});

Deno.test("SDSC-BLUE prefix (plain): 300 read, 19 without run time, 11 overruns killed", async () => {
  // Hand-checked with awk: run time -1 on 19 data lines (161, 164, …, 285);
  // run > requested time on lines 158 162 163 204 207 219-222 284 342.
  const r = await readSwf(SDSC);
  assertEquals(r.report.read, 300);
  assertEquals(r.report.accepted, 281);
  assertEquals(r.report.skipped.nonPositiveRunTime, 19);
  assertEquals(r.report.skipped.nonPositiveSize, 0);
  assertEquals([r.report.limitFallbacks, r.report.sizeFallbacks], [0, 0]);
  assertEquals([r.report.overruns, r.report.overrunPolicy], [11, "kill"]);
  assertEquals([r.header.maxNodes, r.header.maxProcs, r.machineSize], [144, 1152, 1152]);
  assertEquals(r.header.queues.get(4), "low");
  // User 95 and no group (−1): a user but no account.
  assertEquals([r.jobs[0].user, r.jobs[0].account, r.jobs[2].user], ["95", undefined, "14"]);
  assertEquals(bare(r.jobs.slice(0, 5)), [
    queued("low", job(430593, 256, 64800, 50866)),
    queued("low", job(430730, 256, 28800, 10770)),
    queued("normal", job(433750, 256, 64500, 12701)),
    queued("high", job(437926, 64, 60000, 2794)),
    queued("normal", job(440070, 32, 64800, 43)),
  ]);
  assertEquals(bare(r.jobs.slice(-5)), [
    queued("high", job(592767, 24, 3600, 45)),
    queued("interactive", job(592798, 32, 1800, 201)),
    queued("interactive", job(592808, 32, 1800, 202)),
    queued("high", job(592827, 24, 3600, 3054)),
    queued("interactive", job(593250, 8, 7200, 162)),
  ]);
  for (const j of r.jobs) assert(j.actualRunTime! <= j.timeLimit, "kill keeps run ≤ limit");
});

Deno.test("SDSC-BLUE prefix: nodes unit takes 8 procs per node from the header", async () => {
  const r = await readSwf(SDSC, { unit: "nodes" });
  assertEquals([r.report.procsPerNode, r.report.procsPerNodeFrom, r.machineSize], [
    8,
    "header",
    144,
  ]);
  assertEquals(r.jobs.slice(0, 5).map((j) => j.numNodes), [32, 32, 32, 8, 4]);
  const given = await readSwf(SDSC, { unit: "nodes", procsPerNode: 16 });
  assertEquals([given.report.procsPerNodeFrom, given.machineSize], ["option", 72]);
  assertEquals(given.jobs[3].numNodes, 4);
});

Deno.test("SDSC-BLUE prefix: overrun policies run and inflate, and recorded waits", async () => {
  const kill = await readSwf(SDSC);
  const run = await readSwf(SDSC, { overrun: "run" });
  const inflate = await readSwf(SDSC, { overrun: "inflate" });
  const over = run.jobs.flatMap((j, i) => (j.actualRunTime! > j.timeLimit ? [i] : []));
  assertEquals(over.length, 11);
  for (const i of over) {
    assertEquals(kill.jobs[i].actualRunTime, run.jobs[i].timeLimit);
    assertEquals(inflate.jobs[i].timeLimit, run.jobs[i].actualRunTime);
    assertEquals(inflate.jobs[i].actualRunTime, run.jobs[i].actualRunTime);
  }
  assertEquals(run.report.overruns, 11);
  const replay = await readSwf(SDSC, { replayRecordedWait: true, relativeTimes: true });
  assertEquals(replay.timeOffset, 430593);
  assertEquals(replay.recorded.length, 281);
  // Line 57: submit 430593, wait 13, run 50866.
  assertEquals(replay.recorded[0], { ...replay.jobs[0], beginTime: 13, endTime: 13 + 50866 });
  assertEquals(replay.recorded[0].submitTime, 0);
});

Deno.test("streamed and in-memory parsing agree, across chunk boundaries and gzip", async () => {
  const text = await Deno.readTextFile(SDSC);
  // Big enough for many read chunks, so lines straddle chunk edges.
  const big = text + text.split("\n").filter((l) => !l.startsWith(";")).join("\r\n").repeat(40);
  const plain = await Deno.makeTempFile({ suffix: ".swf" });
  const gz = await Deno.makeTempFile({ suffix: ".swf.gz" });
  try {
    await Deno.writeTextFile(plain, big);
    const compressed = new Blob([big]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(gz, compressed);
    const expected = parseSwfText(big, "big.swf");
    assert(expected.report.read > 12000, "fixture is large");
    for (const path of [plain, gz]) {
      const got = await readSwf(path);
      assertEquals(got.report, expected.report);
      assertEquals(got.jobs, expected.jobs);
    }
    const capped = await readSwf(gz, { maxJobs: 7 });
    assertEquals([capped.report.read, capped.report.stoppedAtMaxJobs], [7, true]);
  } finally {
    await Deno.remove(plain);
    await Deno.remove(gz);
  }
});

Deno.test("fallbacks, skips, sorting and relative times on hand-made lines", () => {
  const text = [
    "; MaxProcs: 64",
    "",
    data(100, 5, 50, 4, 8, 60), // ok
    data(90, 5, 30, 4, -1, 40), // size fallback → 4
    data(90, -1, 20, 2, 2, -1), // limit fallback → 20; no wait
    data(95, 5, 0, 2, 2, 10), // run 0 → skipped
    data(96, 5, 10, 0, -1, 10), // no size → skipped
    data(-1, 5, 10, 1, 1, 10), // no submit → skipped
    data(97, 5, 80, 2, 2, 70), // overrun → killed at 70
    "   ; trailing comment",
  ].join("\n");
  const r = parseSwfText(text, "t.swf", { relativeTimes: true });
  assertEquals(r.report.read, 7);
  assertEquals(r.report.accepted, 4);
  assertEquals(r.report.skipped, {
    missingSubmitTime: 1,
    nonPositiveSize: 1,
    nonPositiveRunTime: 1,
    missingWait: 0,
  });
  assertEquals([r.report.sizeFallbacks, r.report.limitFallbacks, r.report.overruns], [1, 1, 1]);
  assertEquals(r.report.outOfOrder, 1);
  assertEquals(r.timeOffset, 90);
  // Stable: the two jobs submitted at 90 keep their file order.
  assertEquals(r.jobs, [
    job(0, 4, 40, 30),
    job(0, 2, 20, 20),
    job(7, 2, 70, 70),
    job(10, 8, 60, 50),
  ]);
  const replay = parseSwfText(text, "t.swf", { replayRecordedWait: true });
  assertEquals(replay.report.skipped.missingWait, 1);
  assertEquals(replay.recorded.map((j) => [j.beginTime, j.endTime]), [[95, 125], [102, 172], [
    105,
    155,
  ]]);
  const lines = formatSwfReport(r.report, "t.swf");
  assert(lines.every((l) => l.startsWith("t.swf: ")), "lines name the file");
  assert(lines.some((l) => l.includes("1 jobs ran longer than requested")), lines.join("\n"));
  assert(lines.some((l) => l.includes("1 with no positive run time")), lines.join("\n"));
});

Deno.test("malformed lines name the file, line and field", () => {
  const good = data(0, 0, 10, 1, 1, 10);
  const short = `; c\n${good}\n1 2 3\n`;
  const e1 = assertThrows(() => parseSwfText(short, "x.swf"), "x.swf:3: field count");
  assert(e1 instanceof EvtsimError && e1.location.line === 3, e1.message);
  assert(e1.message.includes("got 3"), e1.message);
  const bad = `${good}\n${good.replace(/^(\S+ \S+ \S+) \S+/, "$1 12x")}\n`;
  assertThrows(
    () => parseSwfText(bad, "x.swf"),
    "x.swf:2: field 4 (run time): expected a number, got '12x'",
  );
  for (const token of ["-", ".", "0x10", "Infinity", "1e", "--1"]) {
    assertThrows(() => parseSwfText(line({ 9: token }), "y.swf"), "y.swf:1: field 9");
  }
  assertEquals(parseSwfText(line({ 2: 0, 4: 5, 5: 1, 6: "2.5e1", 9: "1." }), "z").jobs.length, 1);
});

Deno.test("a malformed line in a streamed file is reported at its line", async () => {
  const path = await Deno.makeTempFile({ suffix: ".swf" });
  try {
    const good = data(0, 0, 10, 1, 1, 10);
    await Deno.writeTextFile(path, `;h\n${good}\n${good}\n${good} 7\n`);
    await assertRejects(() => readSwf(path), `${path}:4: field count`);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("a multi-member gzip log (bgzip, pigz) is read to its end", async () => {
  const text = await Deno.readTextFile(SDSC);
  // Members cut at arbitrary bytes, mid-line too, as bgzip's fixed-size blocks are.
  const cuts = [0, 1, 700, 5000, 5001, 9999, text.length];
  const members: Uint8Array[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const z = new Blob([text.slice(cuts[k], cuts[k + 1])]).stream()
      .pipeThrough(new CompressionStream("gzip"));
    members.push(new Uint8Array(await new Response(z).arrayBuffer()));
  }
  const path = await Deno.makeTempFile({ suffix: ".swf.gz" });
  try {
    await Deno.writeFile(path, new Uint8Array(members.flatMap((m) => [...m])));
    const expected = parseSwfText(text, "x");
    const got = await readSwf(path);
    assertEquals(got.report.read, 300);
    assertEquals(got.report, expected.report);
    assertEquals(got.jobs, expected.jobs);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("SWF values beyond 2^53 are refused, naming the field", () => {
  assertThrows(
    () => parseSwfText(line({ 2: "9007199254740993", 4: 5, 5: 1 }), "b.swf"),
    "b.swf:1: field 2 (submit time): expected a number of at most 2^53 - 1 in magnitude, got '9007199254740993'",
  );
  assertThrows(() => parseSwfText(line({ 2: 0, 4: "1e300", 5: 1 }), "b.swf"), "field 4 (run time)");
  assertThrows(() => parseSwfText(line({ 2: 0, 4: 5, 5: 1, 7: "-1e20" }), "b.swf"), "field 7");
  assertEquals(parseSwfText(line({ 2: "9007199254740991", 4: 5, 5: 1 }), "b").jobs.length, 1);
});

Deno.test("a truncated gzip stream rejects clearly instead of hanging", async () => {
  const e = await assertRejects(() => readSwf(KTH_TRUNCATED), "truncated or corrupt gzip stream");
  assert(e instanceof EvtsimError && e.message.startsWith(`${KTH_TRUNCATED}: `), e.message);
  await assertRejects(() => readSwf(KTH_TRUNCATED + ".missing"), "cannot read");
});

Deno.test("bad options are usage errors", () => {
  const opts: SwfReadOptions[] = [
    { overrun: "stop" as "kill" },
    { unit: "cores" as "nodes" },
    { procsPerNode: 0 },
    { maxJobs: -1 },
  ];
  for (const o of opts) {
    const e = assertThrows(() => parseSwfText("", "e.swf", o));
    assert(e instanceof EvtsimError && e.kind === "usage", e.message);
  }
});

Deno.test("property: counts add up, kill bounds run time, output is sorted", () => {
  const rec = fc.record({
    submit: fc.integer({ min: -1, max: 50 }),
    wait: fc.integer({ min: -1, max: 20 }),
    run: fc.integer({ min: -1, max: 100 }),
    alloc: fc.integer({ min: -1, max: 8 }),
    req: fc.integer({ min: -1, max: 8 }),
    reqT: fc.integer({ min: -1, max: 100 }),
    sep: fc.constantFrom(" ", "  ", "\t", " \t "),
  });
  fc.assert(
    fc.property(fc.array(rec, { maxLength: 40 }), fc.boolean(), (rows, replay) => {
      const text = rows.map((r) =>
        [
          1,
          r.submit,
          r.wait,
          r.run,
          r.alloc,
          -1,
          -1,
          r.req,
          r.reqT,
          -1,
          1,
          1,
          1,
          -1,
          -1,
          -1,
          -1,
          -1,
        ]
          .join(r.sep)
      ).join("\n");
      const r = parseSwfText(text, "p.swf", { replayRecordedWait: replay });
      const s = r.report.skipped;
      assertEquals(r.report.read, rows.length);
      assertEquals(
        r.report.accepted + s.missingSubmitTime + s.nonPositiveSize + s.nonPositiveRunTime +
          s.missingWait,
        rows.length,
      );
      const kept = rows.filter((x) =>
        x.submit >= 0 && (x.req > 0 ? x.req : x.alloc) > 0 && x.run > 0 && (!replay || x.wait >= 0)
      );
      assertEquals(r.jobs.length, kept.length);
      assertEquals(r.report.overruns, kept.filter((x) => x.reqT > 0 && x.run > x.reqT).length);
      for (let i = 0; i < r.jobs.length; i++) {
        const j = r.jobs[i];
        assert(j.actualRunTime! <= j.timeLimit && j.numNodes > 0 && j.actualRunTime! > 0);
        if (i > 0) assert(r.jobs[i - 1].submitTime <= j.submitTime, "sorted");
      }
      assertEquals(r.recorded.length, replay ? kept.length : 0);
    }),
    { seed: 42, numRuns: 300 },
  );
});

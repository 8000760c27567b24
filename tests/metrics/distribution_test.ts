// `-r distribution` draws DR_EVT's numbers: the generator, the libstdc++
// distributions and glibc's log/exp bit for bit, and whole schedules equal to
// the DR_EVT reference simulator's (tests/fixtures/drevt_distribution/).

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { fma, glibcExp, glibcLog } from "../../core/_glibc_math.ts";
import { drawRunTime } from "../../core/_run_time_draws.ts";
import { RngCursor, seedRng } from "../../core/rng.ts";
import { parseTrace } from "../../io/trace_csv.ts";
import { type JobRow, type ResourceRow, Simulation } from "../../mod.ts";

const DIR = new URL("../fixtures/drevt_distribution/", import.meta.url).pathname;

const view = new DataView(new ArrayBuffer(8));
function fromHex(h: string): number {
  view.setUint32(0, parseInt(h.slice(0, 8), 16));
  view.setUint32(4, parseInt(h.slice(8), 16));
  return view.getFloat64(0);
}

interface Vectors {
  draws: {
    dist: "normal" | "lognormal" | "uniform";
    seed: number;
    scale: number;
    stddev: number;
    limits: number[];
    runTimes: string[];
  }[];
  math: string[][];
}
const vectors: Vectors = JSON.parse(Deno.readTextFileSync(DIR + "vectors.json"));

Deno.test("mt19937: the reference outputs of std::mt19937", () => {
  // The 10000th output of a default-seeded std::mt19937 is 4123659995 (C++ standard).
  const g = RngCursor.from(seedRng(5489));
  let x = 0;
  for (let i = 0; i < 10000; i++) x = g.nextUint32();
  assertEquals(x, 4123659995);
  // Seeds are taken modulo 2^32, as DR_EVT's unsigned --seed is.
  assertEquals(
    RngCursor.from(seedRng(2 ** 32 + 1)).nextUint32(),
    RngCursor.from(seedRng(1)).nextUint32(),
  );
});

Deno.test("mt19937: a state is never changed by drawing from it", () => {
  const s0 = seedRng(9);
  const before = Array.from(s0.words);
  const c = RngCursor.from(s0);
  for (let i = 0; i < 2000; i++) c.nextUint32(); // three twists
  const s1 = c.state();
  const next = c.nextUint32();
  assertEquals(Array.from(s0.words), before);
  assertEquals(RngCursor.from(s1).nextUint32(), next);
});

Deno.test("glibc log, exp and fma: bit for bit on 400 inputs each", () => {
  let bad = 0;
  for (const [x, lx, e, ee, a, b, c, f] of vectors.math.map((r) => r.map(fromHex))) {
    if (!Object.is(glibcLog(x), lx)) bad++;
    if (!Object.is(glibcExp(e), ee)) bad++;
    if (!Object.is(fma(a, b, c), f)) bad++;
  }
  assertEquals(bad, 0);
  assert(Number.isNaN(glibcLog(-1)) && glibcLog(0) === -Infinity && glibcExp(1000) === Infinity);
  assertEquals(glibcExp(-1000), 0);
  assertEquals(glibcLog(Number.MIN_VALUE), -744.4400719213812);
});

Deno.test("run-time draws: DR_EVT's values for normal, lognormal and uniform", () => {
  for (const v of vectors.draws) {
    const g = RngCursor.from(seedRng(v.seed));
    const got = v.limits.map((l) => drawRunTime(g, v.dist, l, v.scale, v.stddev));
    // DR_EVT starts a job whose drawn run time is 0 with its time limit.
    const want = v.runTimes.map(fromHex).map((x, i) => x > 0 ? x : v.limits[i]);
    assertEquals(got, want, `${v.dist} seed ${v.seed}`);
  }
});

interface Case {
  name: string;
  dist: "normal" | "lognormal" | "uniform";
  scale: number;
  stddev: number;
  seed: number;
}
const CASES: Case[] = [
  { name: "normal_s1", dist: "normal", scale: 0.5, stddev: 0.2, seed: 1 },
  { name: "normal_s7", dist: "normal", scale: 1, stddev: 0.4, seed: 7 },
  { name: "lognormal_s3", dist: "lognormal", scale: 1, stddev: 0, seed: 3 },
  { name: "lognormal_s42", dist: "lognormal", scale: 0.5, stddev: 0.8, seed: 42 },
  { name: "uniform_s5", dist: "uniform", scale: 0.3, stddev: 0.9, seed: 5 },
  { name: "uniform_s99", dist: "uniform", scale: 1, stddev: 0.5, seed: 4294967295 },
];

for (const c of CASES) {
  Deno.test(`distribution ${c.name}: the schedule and timeline equal DR_EVT's`, async () => {
    const out = await Deno.makeTempDir({ prefix: "evtsim-dist-" });
    try {
      const r = await runCli([
        "simulate",
        DIR + "trace.csv",
        ...["-n", "64", "-b", "easy", "-r", "distribution", "-D", c.dist],
        ...["-S", String(c.scale), "-V", String(c.stddev), "-s", String(c.seed)],
        ...["-o", `${out}/jobs.csv`, "-R", `${out}/res.csv`],
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      for (const [mine, theirs] of [["jobs", "jobs"], ["res", "resources"]]) {
        const got = Deno.readTextFileSync(`${out}/${mine}.csv`);
        const want = Deno.readTextFileSync(`${DIR}${c.name}.${theirs}.csv`);
        assert(got === want, `${c.name}: ${theirs} differ from DR_EVT's`);
      }
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  });

  Deno.test(`distribution ${c.name}: times equal DR_EVT's to the millisecond`, () => {
    const trace = parseTrace(Deno.readTextFileSync(DIR + "trace.csv"), { file: "trace.csv" });
    const jobs: JobRow[] = [];
    const resources: ResourceRow[] = [];
    const sim = new Simulation({
      totalNodes: 64,
      backfillPolicy: "easy",
      runTimeMode: "distribution",
      runTimeDistribution: c.dist,
      runTimeScale: c.scale,
      runTimeStddev: c.stddev,
      seed: c.seed,
    }, { onJobRow: (j) => jobs.push(j), onResourceRow: (x) => resources.push(x) });
    sim.appendJobs(trace.jobs);
    sim.finish();
    // DR_EVT rounds to the nearest millisecond (printf "%.3f").
    const ms = (t: number) => t.toFixed(3);
    const gotJobs = jobs.map((j) => `${ms(j.submitTime)},${ms(j.beginTime)},${ms(j.endTime)}`);
    const gotRes = resources.map((x) => `${ms(x.time)},${x.freeNodes},${x.allocatedNodes}`);
    const lines = (f: string) => Deno.readTextFileSync(DIR + f).trim().split("\n").slice(1);
    const wantJobs = lines(`${c.name}.msec.jobs.csv`).map((l) => l.split(",").slice(0, 3).join());
    assertEquals(gotJobs, wantJobs);
    assertEquals(gotRes, lines(`${c.name}.msec.resources.csv`));
  });
}

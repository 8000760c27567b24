// Batch ≡ progressive: any split of a trace into files listed by
// `--infile_list` gives byte-identical schedule and resource CSVs and the
// same statistics as the whole trace in one file, for every policy pair and
// any job-store / flush / resource-buffer setting. Splits may fall between
// jobs with equal submit times. Plus the errors of progressive input.

import fc from "fast-check";
import type { BackfillPolicy, JobSpec, PriorityPolicy } from "../../core/types.ts";
import { arbTrace } from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const run = runCli;

const PRIORITIES: PriorityPolicy[] = ["fcfs", "fcfs_conservative", "sjf", "ljf"];
const BACKFILLS: BackfillPolicy[] = ["none", "easy", "conservative"];
const PAIRS = PRIORITIES.flatMap((p) => BACKFILLS.map((b) => [p, b] as const));

function csv(jobs: readonly JobSpec[], queues: boolean): string {
  const header = "job_submit_time,num_nodes,time_limit,actual_run_time" + (queues ? ",q_id" : "");
  const lines = jobs.map((j) =>
    `${j.submitTime},${j.numNodes},${j.timeLimit},${j.actualRunTime ?? j.timeLimit}` +
    (queues ? `,${j.queue}` : "")
  );
  return [header, ...lines].join("\n") + "\n";
}

/** Buffer options drawn per side: they may change when rows are written, never what. */
const arbKnobs = fc.record({
  job_store_capacity: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })),
  job_flush_interval: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 })),
  resource_history_capacity: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 })),
}).map((k) => Object.entries(k).flatMap(([name, v]) => (v > 0 ? [`--${name}`, String(v)] : [])));

const arbCase = fc.record({
  pair: fc.constantFrom(...PAIRS),
  totalNodes: fc.integer({ min: 1, max: 24 }),
  queues: fc.boolean(),
  actual: fc.constantFrom("atMostLimit", "equalsLimit", "unbounded" as const),
}).chain(({ pair, totalNodes, queues, actual }) =>
  fc.record({
    pair: fc.constant(pair),
    totalNodes: fc.constant(totalNodes),
    queues: fc.constant(queues),
    trace: arbTrace({
      totalNodes,
      allowOversized: true,
      maxJobs: 40,
      maxGap: 15,
      actual,
      queues: queues ? ["pbatch", "pdebug"] : undefined,
    }),
    // Cut positions (taken modulo trace length + 1); repeats give empty files.
    picks: fc.array(fc.nat(), { maxLength: 6 }),
    // Also cut at up to this many boundaries between equal submit times.
    tieCuts: fc.integer({ min: 0, max: 3 }),
    batchKnobs: arbKnobs,
    listKnobs: arbKnobs,
  })
);

/** Splits `trace` into contiguous parts at the chosen positions. */
function split(trace: readonly JobSpec[], picks: readonly number[], tieCuts: number): JobSpec[][] {
  const n = trace.length;
  const ties: number[] = [];
  for (let i = 1; i < n; i++) if (trace[i].submitTime === trace[i - 1].submitTime) ties.push(i);
  const cuts = [...picks.map((p) => p % (n + 1)), ...ties.slice(0, tieCuts)].sort((a, b) => a - b);
  const parts: JobSpec[][] = [];
  let from = 0;
  for (const c of cuts) {
    parts.push(trace.slice(from, c));
    from = c;
  }
  parts.push(trace.slice(from));
  return parts;
}

/** Statistics lines that must agree: everything but the wall clock and output paths. */
const comparable = (out: readonly string[]) =>
  out.filter((l) =>
    !l.startsWith("Wall clock") && !l.includes("Time reading input") && !l.includes(" written to: ")
  );

/** Rejection notices (overrun warnings name the file they came from, so they differ). */
const rejections = (err: readonly string[]) => err.filter((l) => l.startsWith("Job "));

Deno.test("batch ≡ progressive: any split of the trace into files gives identical outputs", async () => {
  const root = await Deno.makeTempDir({ prefix: "evtsim-progressive-" });
  let k = 0;
  let splitAtTie = 0;
  try {
    await fc.assert(
      fc.asyncProperty(arbCase, async (c) => {
        const dir = `${root}/${k++}`;
        Deno.mkdirSync(dir);
        const parts = split(c.trace, c.picks, c.tieCuts);
        let end = 0;
        for (const p of parts.slice(0, -1)) {
          end += p.length;
          const t = c.trace;
          if (end > 0 && end < t.length && t[end].submitTime === t[end - 1].submitTime) {
            splitAtTie++;
          }
        }
        Deno.writeTextFileSync(`${dir}/all.csv`, csv(c.trace, c.queues));
        const names = parts.map((_, i) => `part${i}.csv`);
        parts.forEach((p, i) => Deno.writeTextFileSync(`${dir}/${names[i]}`, csv(p, c.queues)));
        // Relative names resolve against the list's folder; one absolute name checks the other case.
        const listed = names.map((n, i) => (i === 0 ? `${dir}/${n}` : n));
        Deno.writeTextFileSync(
          `${dir}/parts.list`,
          `# ${parts.length} parts\n${listed.join("\n")}\n`,
        );
        const common = ["-n", String(c.totalNodes), "-p", c.pair[0], "-b", c.pair[1]];

        const batch = await run([
          "simulate",
          `${dir}/all.csv`,
          ...common,
          ...c.batchKnobs,
          "-o",
          `${dir}/b.csv`,
        ]);
        const list = await run([
          "simulate",
          "--infile_list",
          `${dir}/parts.list`,
          ...common,
          ...c.listKnobs,
          "-o",
          `${dir}/l.csv`,
        ]);
        assertEquals(batch.code, 0, batch.err.join("\n"));
        assertEquals(list.code, 0, list.err.join("\n"));
        const read = (f: string) => Deno.readTextFileSync(`${dir}/${f}`);
        assertEquals(read("l.csv"), read("b.csv"));
        assertEquals(read("l_resources.csv"), read("b_resources.csv"));
        assertEquals(comparable(list.out), comparable(batch.out));
        assertEquals(rejections(list.err), rejections(batch.err));
        Deno.removeSync(dir, { recursive: true });
      }),
      { seed: 42, numRuns: 200 },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  // The generator reaches the case the property is about.
  assert(splitAtTie >= 20, `only ${splitAtTie} splits between equal submit times`);
});

// ---- errors of progressive input ---------------------------------------------

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-progressive-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const HEADER = "job_submit_time,num_nodes,time_limit,actual_run_time";
const listDir = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("a file out of order inside a list is refused naming the file, line and field", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/p1.csv`, `${HEADER}\n0,1,5,5\n3,1,5,5\n`);
    Deno.writeTextFileSync(`${dir}/p2.csv`, `${HEADER}\n4,1,5,5\n9,2,5,5\n7,1,5,5\n`);
    for (const order of [["p1.csv", "p2.csv"], ["p2.csv"]]) {
      Deno.writeTextFileSync(`${dir}/parts.list`, order.join("\n") + "\n");
      const before = listDir(dir);
      const r = await run(["simulate", "-L", `${dir}/parts.list`, "-n", "4", "-o", `${dir}/o.csv`]);
      assertEquals(r.code, 1);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${dir}/p2.csv:4: job_submit_time: `), r.err[0]);
      assert(r.err[0].includes("'7' after 9"), r.err[0]);
      assertEquals(r.out, []);
      assertEquals(listDir(dir), before);
    }
    // A single trace file (no list) may be unsorted: it is sorted stably.
    const single = await run(["simulate", `${dir}/p2.csv`, "-n", "4", "-o", `${dir}/s.csv`]);
    assertEquals(single.code, 0, single.err.join("\n"));
  });
});

Deno.test("an unreadable listed file is one clear error, exit 1, and no output files", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/p1.csv`, `${HEADER}\n0,1,5,5\n3,1,5,5\n`);
    Deno.writeTextFileSync(`${dir}/p3.csv`, `${HEADER}\n8,1,5,5\n`);
    Deno.mkdirSync(`${dir}/adir.csv`);
    const cases = [
      ["p1.csv", "missing.csv", "p3.csv"], // fails after the outputs were opened
      ["missing.csv", "p1.csv"], // fails before
      ["p1.csv", "adir.csv"], // a folder, not a file
    ];
    for (const files of cases) {
      Deno.writeTextFileSync(`${dir}/parts.list`, files.join("\n") + "\n");
      const before = listDir(dir);
      const bad = files.find((f) => f !== "p1.csv" && f !== "p3.csv")!;
      const r = await run([
        "simulate",
        "-L",
        `${dir}/parts.list`,
        "-n",
        "4",
        "-o",
        `${dir}/parts_sim.csv`,
      ]);
      assertEquals(r.code, 1, files.join());
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${dir}/${bad}: cannot read`), r.err[0]);
      assertEquals(r.out, []);
      // Neither parts_sim.csv nor parts_sim_resources.csv, nor a temporary file.
      assertEquals(listDir(dir), before);
    }
    // A list that names nothing, and a missing list.
    Deno.writeTextFileSync(`${dir}/empty.list`, "# nothing\n\n");
    const empty = await run(["simulate", "-L", `${dir}/empty.list`, "-n", "4"]);
    assertEquals([empty.code, empty.err], [1, [`evtsim: ${dir}/empty.list: lists no trace files`]]);
    const none = await run(["simulate", "-L", `${dir}/nope.list`, "-n", "4"]);
    assertEquals(none.code, 1);
    assert(
      none.err.length === 1 && none.err[0].includes(`${dir}/nope.list: cannot read`),
      none.err[0],
    );
  });
});

// Faithful outputs (issue 29, item 3): an SWF schedule simulated from an SWF
// log keeps every field the simulation does not change, the extended schedule
// CSV keeps the trace's job numbers and users, and the Parquet schedule holds
// the CSV schedule's values.

import fc from "fast-check";
import { parquetReadObjects } from "hyparquet";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-swfout-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const lines = (path: string) => Deno.readTextFileSync(path).trim().split("\n");

/** One job of a small, valid SWF log (all 18 fields). */
const arbSwfJob = fc.record({
  number: fc.integer({ min: 1, max: 1_000_000 }),
  gap: fc.integer({ min: 0, max: 500 }),
  wait: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 10_000 })),
  run: fc.integer({ min: 1, max: 5_000 }),
  allocated: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 16 })),
  cpu: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 5_000 })),
  memory: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 1 << 20 })),
  requested: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 16 })),
  // Some jobs ran past their requested time (they end at it, simulated).
  requestedTime: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 6_000 })),
  requestedMemory: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 1 << 20 })),
  status: fc.constantFrom(-1, 0, 1, 2, 3, 4, 5),
  user: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 40 })),
  group: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 8 })),
  executable: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 99 })),
  queue: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 4 })),
  partition: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 3 })),
  preceding: fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 1_000_000 })),
  think: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 900 })),
}).filter((j) => j.requested > 0 || j.allocated > 0);

type SwfJob = typeof arbSwfJob extends fc.Arbitrary<infer T> ? T : never;

/** A log: header comments (some free text), then jobs in submit order. */
const arbSwfLog = fc.record({
  start: fc.integer({ min: 1, max: 2_000_000_000 }),
  computer: fc.constantFrom("IBM SP2", "Linux cluster", "Cray T3E"),
  notes: fc.array(fc.constantFrom(" Note: cleaned", "", " free text without a key"), {
    maxLength: 3,
  }),
  queues: fc.boolean(),
  jobs: fc.array(arbSwfJob, { minLength: 1, maxLength: 25 }),
});

type SwfLog = typeof arbSwfLog extends fc.Arbitrary<infer T> ? T : never;

// The machine is as large as all jobs together: nobody waits.
const MACHINE = 25 * 16;

function header(log: SwfLog): string[] {
  return [
    " Version: 2.2",
    ` Computer: ${log.computer}`,
    ` UnixStartTime: ${log.start}`,
    " TimeZoneString: Europe/Stockholm",
    ` MaxProcs: ${MACHINE}`,
    ...(log.queues ? [" Queue: 0 interactive", " Queue: 1 batch"] : []),
    ...log.notes,
  ];
}

function fieldsOf(log: SwfLog): number[][] {
  let submit = 0;
  return log.jobs.map((j) => {
    submit += j.gap;
    return [
      j.number,
      submit,
      j.wait,
      j.run,
      j.allocated,
      j.cpu,
      j.memory,
      j.requested,
      j.requestedTime,
      j.requestedMemory,
      j.status,
      j.user,
      j.group,
      j.executable,
      j.queue,
      j.partition,
      j.preceding,
      j.think,
    ];
  });
}

function swfText(log: SwfLog): string {
  return header(log).map((c) => `;${c}\n`).join("") +
    fieldsOf(log).map((f) => f.map((v) => String(v).padStart(6)).join(" ") + "\n").join("");
}

/**
 * The job as the simulation must write it when it starts at once: the wait
 * is 0, a job that ran past its requested time ends at it (status 0, CPU
 * time and memory unknown), the allocated processors are the requested ones;
 * every other field is the log's.
 */
function expectedLine(f: number[]): number[] {
  const [, , , run, allocated, , , requested, requestedTime] = f;
  const killed = requestedTime > 0 && run > requestedTime;
  const out = [...f];
  out[2] = 0;
  out[3] = killed ? requestedTime : run;
  out[4] = requested > 0 ? requested : allocated;
  if (killed) {
    out[5] = -1;
    out[6] = -1;
    out[10] = 0;
  }
  return out;
}

Deno.test("SWF round trip: a log simulated with -r actual where nobody waits keeps every field the simulation does not change", async () => {
  await withDir(async (d) => {
    await fc.assert(
      fc.asyncProperty(arbSwfLog, async (log) => {
        Deno.writeTextFileSync(`${d}/in.swf`, swfText(log));
        const r = await runCli([
          "simulate",
          `${d}/in.swf`,
          "-r",
          "actual",
          "-n",
          String(MACHINE),
          "-o",
          `${d}/out.swf`,
        ]);
        assertEquals(r.code, 0, r.err.join("\n"));
        const out = lines(`${d}/out.swf`);
        const comments = out.filter((l) => l.startsWith(";"));
        // The log's header, line for line, then evtsim's note.
        assertEquals(comments.slice(0, -1), header(log).map((c) => `;${c}`));
        assert(comments.at(-1)!.startsWith("; Note: schedule simulated by evtsim"));
        const jobs = out.filter((l) => !l.startsWith(";")).map((l) => l.split(" ").map(Number));
        assertEquals(jobs, fieldsOf(log).map(expectedLine));
      }),
      { seed: 2929, numRuns: 40 },
    );
  });
});

Deno.test("SWF schedule on another machine size: the header states the simulated size in place of the log's", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/in.swf`,
      "; UnixStartTime: 1000\n; MaxNodes: 100\n; MaxProcs: 800\n; Note: kept\n" +
        "7 10 5 100 16 -1 -1 16 600 -1 1 3 2 -1 1 -1 -1 -1\n",
    );
    const r = await runCli(["simulate", `${d}/in.swf`, "-n", "64", "-o", `${d}/out.swf`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const out = lines(`${d}/out.swf`);
    assertEquals(out.slice(0, 3), ["; UnixStartTime: 1000", "; MaxProcs: 64", "; Note: kept"]);
    assert(out[3].includes("on 64 processors (the log's machine: 800)"), out[3]);
    assertEquals(out[4], "7 10 0 100 16 -1 -1 16 600 -1 1 3 2 -1 1 -1 -1 -1");
  });
});

Deno.test("SWF schedule of a CSV trace: numeric users and accounts are the user and group ids", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,user,account\n" +
        "0,2,100,50,17,4\n5,2,100,50,alice,\n",
    );
    const r = await runCli(["simulate", `${d}/t.csv`, "-n", "8", "-o", `${d}/out.swf`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const jobs = lines(`${d}/out.swf`).filter((l) => !l.startsWith(";"));
    assertEquals(jobs, [
      "1 0 0 50 2 -1 -1 2 100 -1 1 17 4 -1 -1 -1 -1 -1",
      "2 5 0 50 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1",
    ]);
  });
});

Deno.test("--extended_output keeps the SWF log's job numbers and users", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/in.swf`,
      "; MaxProcs: 64\n" +
        "31 10 5 100 16 -1 -1 16 600 -1 1 3 2 -1 1 -1 -1 -1\n" +
        "12 20 5 100 16 -1 -1 16 600 -1 1 9 2 -1 1 -1 -1 -1\n",
    );
    const r = await runCli(["simulate", `${d}/in.swf`, "-o", `${d}/o.csv`, "--extended_output"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(lines(`${d}/o.csv`), [
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit,job_id,wait_time," +
      "bounded_slowdown,trace_job_id,trace_user,nodes",
      // Two 16-node jobs side by side on the 64-node machine: nodes 1-16 and 17-32.
      "10,10,110,16,0,600,0,0,1,31,3,n[001-016]",
      "20,20,120,16,0,600,1,0,1,12,9,n[017-032]",
    ]);
  });
});

/** The CSV schedule as objects: text columns as text, the others as numbers. */
function csvObjects(path: string): Record<string, string | number>[] {
  const [head, ...rows] = lines(path);
  const names = head.split(",");
  const text = new Set(["queue", "q_id", "trace_job_id", "trace_user", "nodes"]);
  return rows.map((row) => {
    // Quoted fields (a hostlist of several ranges) hold commas.
    const values = [...row.matchAll(/"((?:[^"]|"")*)"|([^,]*)/g)].filter((m) =>
      m.index === 0 || row[m.index - 1] === ","
    ).map((m) => m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]);
    return Object.fromEntries(
      names.map((n, i) => [n, text.has(n) ? values[i] : Number(values[i])]),
    );
  });
}

Deno.test("--outfile x.parquet: the Parquet schedule read back equals the CSV schedule", async () => {
  await withDir(async (d) => {
    const trace = ["job_submit_time,num_nodes,time_limit,actual_run_time,queue,user"];
    let t = 0;
    for (let i = 0; i < 300; i++) {
      t += (i * 7919) % 13;
      trace.push(
        `${t}.${i % 10},${1 + (i * 31) % 24},${100 + (i * 53) % 900},${1 + (i * 97) % 1000},` +
          `${i % 3 === 0 ? "debug" : "batch"},u${i % 7}`,
      );
    }
    Deno.writeTextFileSync(`${d}/t.csv`, trace.join("\n") + "\n");
    for (const extra of [[], ["--extended_output"], ["--msec_output", "--extended_output"]]) {
      const run = (out: string) =>
        runCli(["simulate", `${d}/t.csv`, "-n", "32", "-o", `${d}/${out}`, ...extra]);
      const csv = await run("s.csv");
      const pq = await run("s.parquet");
      assertEquals(csv.code, 0, csv.err.join("\n"));
      assertEquals(pq.code, 0, pq.err.join("\n"));
      const bytes = Deno.readFileSync(`${d}/s.parquet`);
      const back = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
      const expected = csvObjects(`${d}/s.csv`);
      assertEquals(back.length, 300);
      assertEquals(back, expected, extra.join(" "));
      assertEquals(
        Deno.readTextFileSync(`${d}/s_resources.csv`),
        Deno.readTextFileSync(`${d}/s.parquet`.replace(".parquet", "_resources.csv")),
      );
    }
  });
});

Deno.test("readSwf keepFields: each job's 18 fields follow it when the log is sorted by submit time", async () => {
  const { parseSwfText } = await import("../../io/swf.ts");
  const log = "9 50 1 10 2 -1 -1 2 60 -1 1 4 1 -1 1 -1 -1 -1\n" +
    "3 20 1 10 4 -1 -1 4 60 -1 5 7 1 -1 2 -1 -1 -1\n" +
    "5 20 1 10 8 -1 -1 8 60 -1 0 6 1 -1 3 -1 -1 -1\n";
  for (const keepFields of [true, false]) {
    const swf = parseSwfText(log, "log.swf", { keepFields });
    assertEquals(swf.jobs.map((j) => j.numNodes), [4, 8, 2]);
    if (!keepFields) {
      assertEquals(swf.fields, undefined);
      continue;
    }
    const numbers = [0, 1, 2].map((i) => [...swf.fields!.subarray(18 * i, 18 * i + 18)]);
    assertEquals(numbers.map((f) => [f[0], f[4], f[10], f[11]]), [
      [3, 4, 5, 7],
      [5, 8, 0, 6],
      [9, 2, 1, 4],
    ]);
  }
});

Deno.test("an archive log replayed with its recorded waits (--swf_replay_wait) and written as SWF is the log again, plus one note", async () => {
  await withDir(async (d) => {
    const log = `${ROOT}tests/fixtures/swf/kth_500.swf.gz`;
    const r = await runCli(["simulate", log, "--swf_replay_wait", "-o", `${d}/out.swf`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const input = new TextDecoder().decode(
      await new Response(
        (await Deno.open(log)).readable.pipeThrough(new DecompressionStream("gzip")),
      ).arrayBuffer(),
    ).trim().split("\n").map((l) => l.startsWith(";") ? l : l.trim().split(/\s+/).join(" "));
    const out = lines(`${d}/out.swf`);
    const note = out.findIndex((l) => l.startsWith("; Note: schedule simulated by evtsim"));
    assert(note > 0);
    assertEquals([...out.slice(0, note), ...out.slice(note + 1)], input);
  });
});

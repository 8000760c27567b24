// The Slurm accounting reader (io/sacct.ts): every field format sacct
// prints, the jobs it keeps and leaves out, one-line errors for bad or
// contradictory lines, and a property: random valid exports parse back to
// the jobs they were written from.

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import {
  slurmCount,
  slurmExitCode,
  slurmJobId,
  slurmReqMem,
  slurmState,
  slurmTime,
  slurmTimelimit,
  slurmTres,
  tresGpus,
} from "../../io/_sacct_fields.ts";
import { parseSacct, readSacct } from "../../io/sacct.ts";
import type { JobSpec } from "../../core/types.ts";

Deno.test("sacct fields: Submit/Start/End times", () => {
  const table: [string, string, number | undefined][] = [
    ["2024-01-01T00:00:00", "UTC", 1704067200],
    ["2024-01-01T00:00:00", "America/Los_Angeles", 1704096000],
    ["2024-07-01T12:00:00", "Europe/Berlin", 1719828000],
    ["Unknown", "UTC", undefined],
    ["None", "UTC", undefined],
    ["", "UTC", undefined],
  ];
  for (const [v, tz, want] of table) assertEquals(slurmTime(v, tz), want, v);
  for (
    const bad of ["2024-01-01 00:00:00", "1704067200", "2024-1-1T00:00:00", "2024-13-01T00:00:00"]
  ) {
    assertThrows(() => slurmTime(bad, "UTC"), "expected");
  }
});

Deno.test("sacct fields: Timelimit", () => {
  const table: [string, number | undefined][] = [
    ["00:30:00", 1800],
    ["01:00:00", 3600],
    ["1-00:00:00", 86400],
    ["2-12:30:15", 2 * 86400 + 12 * 3600 + 30 * 60 + 15],
    ["30:00", 1800],
    ["05:07", 307],
    ["100:00:00", 360000],
    ["UNLIMITED", undefined],
    ["Partition_Limit", undefined],
  ];
  for (const [v, want] of table) assertEquals(slurmTimelimit(v), want, v);
  for (
    const bad of [
      "",
      "60",
      "1:2:3",
      "00:60:00",
      "00:00:60",
      "1-24:00:00",
      "1-00:00",
      "unlimited",
      "-01:00:00",
    ]
  ) {
    assertThrows(() => slurmTimelimit(bad), "expected [D-]HH:MM:SS, MM:SS, UNLIMITED");
  }
});

Deno.test("sacct fields: ReqMem", () => {
  const table: [string, ReturnType<typeof slurmReqMem>][] = [
    ["4000M", { megabytes: 4000 }],
    ["4G", { megabytes: 4096 }],
    ["16Gn", { megabytes: 16384, per: "node" }],
    ["2000Mc", { megabytes: 2000, per: "cpu" }],
    ["1T", { megabytes: 1048576 }],
    ["512K", { megabytes: 0.5 }],
    ["1000", { megabytes: 1000 }],
    ["0n", { megabytes: 0, per: "node" }],
    ["", undefined],
  ];
  for (const [v, want] of table) assertEquals(slurmReqMem(v), want, v);
  for (const bad of ["4 G", "G", "4Gx", "-4G", "4g"]) {
    assertThrows(() => slurmReqMem(bad), "expected a size like 4000M");
  }
});

Deno.test("sacct fields: TRES strings and their GPUs", () => {
  const t = slurmTres("billing=4,cpu=4,gres/gpu=2,mem=16G,node=1");
  assertEquals(t, { billing: 4, cpu: 4, "gres/gpu": 2, mem: 16384, node: 1 });
  assertEquals(tresGpus(t), 2);
  assertEquals(tresGpus(slurmTres("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,mem=4000M")), 3);
  assertEquals(tresGpus(slurmTres("cpu=8,gres/gpu=4,gres/gpu:a100=4")), 4);
  assertEquals(tresGpus(slurmTres("cpu=8,mem=1T")), undefined);
  assertEquals(slurmTres(""), {});
  for (const bad of ["cpu", "cpu=", "=4", "cpu=4,,mem=1G", "cpu=4,cpu=8", "mem=4Q"]) {
    assertThrows(() => slurmTres(bad), "expected name=amount");
  }
});

Deno.test("sacct fields: JobID forms", () => {
  assertEquals(slurmJobId("123"), { base: "123" });
  assertEquals(slurmJobId("123_4"), { base: "123", arrayTask: "4" });
  assertEquals(slurmJobId("123_[5-9%2]"), { base: "123", arrayTask: "[5-9%2]" });
  assertEquals(slurmJobId("123+0"), { base: "123", hetOffset: 0 });
  assertEquals(slurmJobId("123.batch"), { base: "123", step: "batch" });
  assertEquals(slurmJobId("123.extern"), { base: "123", step: "extern" });
  assertEquals(slurmJobId("123.0"), { base: "123", step: "0" });
  assertEquals(slurmJobId("123_4.0"), { base: "123", arrayTask: "4", step: "0" });
  assertEquals(slurmJobId("123+1.batch"), { base: "123", hetOffset: 1, step: "batch" });
  for (const bad of ["", "abc", "123_", "123+x", "123.", " 123"]) {
    assertThrows(() => slurmJobId(bad), "expected NNN");
  }
});

Deno.test("sacct fields: State, ExitCode, counts", () => {
  const states: [string, ReturnType<typeof slurmState>][] = [
    ["COMPLETED", { state: "COMPLETED" }],
    ["CANCELLED by 0", { state: "CANCELLED", by: "0" }],
    ["CANCELLED by 1003", { state: "CANCELLED", by: "1003" }],
    ["TIMEOUT", { state: "TIMEOUT" }],
    ["FAILED", { state: "FAILED" }],
    ["NODE_FAIL", { state: "NODE_FAIL" }],
    ["PENDING", { state: "PENDING" }],
    ["RUNNING", { state: "RUNNING" }],
    ["OUT_OF_MEMORY", { state: "OUT_OF_MEMORY" }],
    ["", undefined],
  ];
  for (const [v, want] of states) assertEquals(slurmState(v), want, v);
  assertThrows(() => slurmState("completed"), "expected a state");
  assertEquals(slurmExitCode("0:0"), { status: 0, signal: 0 });
  assertEquals(slurmExitCode("1:0"), { status: 1, signal: 0 });
  assertEquals(slurmExitCode("0:15"), { status: 0, signal: 15 });
  assertEquals(slurmExitCode(""), undefined);
  assertThrows(() => slurmExitCode("0"), "expected status:signal");
  assertEquals(slurmCount("4", 1, "nodes"), 4);
  for (const bad of ["0", "", "1.5", "-1", "x", "1e3"]) {
    assertThrows(() => slurmCount(bad, 1, "nodes ≥ 1"), "expected nodes ≥ 1");
  }
});

const HEAD = "JobID|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|" +
  "Partition|User|Account|State|ExitCode";

Deno.test("sacct: a full export, steps skipped, jobs that never ran or had not ended left out", () => {
  const text = [
    HEAD,
    "100|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:10|01:00:00|2|128|16Gn|" +
    "billing=128,cpu=128,mem=32G,node=2|billing=128,cpu=128,mem=32G,node=2|cpu|ann|phys|COMPLETED|0:0",
    "100.batch|2024-01-01T00:00:10|2024-01-01T00:00:10|2024-01-01T00:10:10||1|64||||" +
    "||phys|COMPLETED|0:0",
    "100.extern|2024-01-01T00:00:10|2024-01-01T00:00:10|2024-01-01T00:10:10||2|128||||" +
    "||phys|COMPLETED|0:0",
    "101_3|2024-01-01T00:01:00|2024-01-01T00:02:00|2024-01-01T00:32:30|30:00|1|8|2000Mc|" +
    "cpu=8,gres/gpu:a100=2|cpu=8,gres/gpu=2|gpu|bob|ml|TIMEOUT|0:0",
    "102|2024-01-01T00:02:00|None|2024-01-01T00:03:00|01:00:00|1|8|4G|||cpu|bob|ml|CANCELLED by 0|0:0",
    "103|2024-01-01T00:03:00|Unknown|Unknown|01:00:00|4|8|4G|||cpu|eve|ml|PENDING|0:0",
    "103_[1-4%2]|2024-01-01T00:03:30|None|2024-01-01T00:05:00|01:00:00|0|0|4G|||cpu|eve|ml|CANCELLED by 0|0:0",
    "104+0|2024-01-01T00:04:00|2024-01-01T00:04:00|Unknown|UNLIMITED|1|8|4G|||cpu|eve|ml|RUNNING|0:0",
    "105|2024-01-01T00:00:30|2024-01-01T00:00:30|2024-01-01T01:00:30|Partition_Limit|3|8|4G|||" +
    "cpu|eve||FAILED|1:0",
  ].join("\n") + "\n";
  const s = parseSacct(text, "x.psv");
  assertEquals(s.report, {
    read: 7,
    steps: 2,
    accepted: 3,
    neverStarted: 3,
    notEnded: 1,
    noLimit: 1,
    overruns: 1,
    overrunPolicy: "kill",
    stoppedAtMaxJobs: false,
  });
  assertEquals(s.timeOffset, 1704067200);
  const jobs: JobSpec[] = [
    {
      submitTime: 0,
      numNodes: 2,
      timeLimit: 3600,
      actualRunTime: 600,
      queue: "cpu",
      user: "ann",
      account: "phys",
    },
    {
      submitTime: 30,
      numNodes: 3,
      timeLimit: 3600,
      actualRunTime: 3600,
      queue: "cpu",
      user: "eve",
    },
    {
      submitTime: 60,
      numNodes: 1,
      timeLimit: 1800,
      actualRunTime: 1800,
      queue: "gpu",
      user: "bob",
      account: "ml",
    },
  ];
  assertEquals(s.jobs, jobs);
  assertEquals(s.recorded.map((r) => [r.beginTime, r.endTime]), [[10, 610], [30, 3630], [
    120,
    1920,
  ]]);
  const array = s.records.find((r) => r.jobId === "101_3")!;
  assertEquals(array, {
    line: 5,
    jobId: "101_3",
    arrayJobId: "101",
    arrayTask: "3",
    submit: 1704067260,
    start: 1704067320,
    end: 1704069150,
    timeLimit: 1800,
    nodes: 1,
    cpus: 8,
    memory: 2000,
    memoryPer: "cpu",
    gpus: 2,
    reqTres: { cpu: 8, "gres/gpu:a100": 2 },
    allocTres: { cpu: 8, "gres/gpu": 2 },
    partition: "gpu",
    user: "bob",
    account: "ml",
    state: "TIMEOUT",
    exitCode: { status: 0, signal: 0 },
  });
  assertEquals(s.records.find((r) => r.jobId === "102")!.cancelledBy, "0");
  assertEquals(s.records.find((r) => r.jobId === "104+0")!.hetOffset, 0);
  // The overrun policies.
  const run = parseSacct(text, "x.psv", { overrun: "run" }).jobs[2];
  assertEquals([run.timeLimit, run.actualRunTime], [1800, 1830]);
  const inflate = parseSacct(text, "x.psv", { overrun: "inflate" }).jobs[2];
  assertEquals([inflate.timeLimit, inflate.actualRunTime], [1830, 1830]);
  // Absolute times.
  assertEquals(parseSacct(text, "x.psv", { relativeTimes: false }).jobs[0].submitTime, 1704067200);
});

Deno.test("sacct: columns in any order, unknown columns ignored, --parsable's trailing bar, CRLF", () => {
  const text = "Elapsed|NNodes|End|Submit|JobName|Timelimit|Start|JobID|\r\n" +
    "00:01:00|4|2024-01-01T00:01:00|2024-01-01T00:00:00|a b|10:00|2024-01-01T00:00:00|7|\r\n";
  const s = parseSacct(text, "x.psv");
  assertEquals(s.jobs, [{ submitTime: 0, numNodes: 4, timeLimit: 600, actualRunTime: 60 }]);
});

Deno.test("sacct: --max_jobs counts job lines, not steps", () => {
  const rows = [
    "JobID|Submit|Start|End|Timelimit|NNodes",
    "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1",
    "1.batch|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00||1",
    "2|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1",
    "3|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1",
  ];
  const s = parseSacct(rows.join("\n"), "x.psv", { maxJobs: 2 });
  assertEquals([s.report.read, s.report.steps, s.report.stoppedAtMaxJobs], [2, 1, true]);
});

const MIN = "JobID|Submit|Start|End|Timelimit|NNodes|Partition";
const OK = "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1|cpu";

Deno.test("sacct: bad or contradictory lines are one line naming file, line and column", () => {
  const table: [string, string][] = [
    [
      "JobID|Submit|Start|Timelimit",
      "x.psv:1: header: expected the columns JobID, Submit, Start, End, Timelimit, NNodes " +
      "(sacct --parsable2), missing End, NNodes",
    ],
    [`${MIN}|nnodes`, "x.psv:1: header: expected each column once, got NNodes twice"],
    [
      `${MIN}\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|0|cpu`,
      "x.psv:2: NNodes: expected a whole number of nodes ≥ 1, got '0'",
    ],
    [
      `${MIN}\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|2-4|cpu`,
      "x.psv:2: NNodes: expected a whole number of nodes ≥ 1, got '2-4'",
    ],
    [
      `${MIN}\n1|2024-01-01T00:00:00|2024-01-01T00:02:00|2024-01-01T00:01:00|10:00|1|cpu`,
      "x.psv:2: End: expected a time at or after Start (2024-01-01T00:02:00), got '2024-01-01T00:01:00'",
    ],
    [
      `${MIN}\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10 min|1|cpu`,
      "x.psv:2: Timelimit: expected [D-]HH:MM:SS, MM:SS, UNLIMITED or Partition_Limit, got '10 min'",
    ],
    [`${MIN}\n${OK}\n${OK}`, "x.psv:3: JobID: expected each job once, got '1' again (line 2)"],
    [
      `${MIN}\n1|2024-01-01 00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1|cpu`,
      "x.psv:2: Submit: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got '2024-01-01 00:00:00'",
    ],
    [
      `${MIN}\n1|Unknown|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1|cpu`,
      "x.psv:2: Submit: expected a submit time YYYY-MM-DDTHH:MM:SS, got 'Unknown'",
    ],
    [
      `${MIN}\n1|2024-01-01T00:00:00`,
      "x.psv:2: expected 7 fields separated by '|' as in the header, got 2",
    ],
    [
      "",
      "x.psv: expected a header line naming the columns (JobID|Submit|Start|End|Timelimit|NNodes|…), got an empty file",
    ],
  ];
  for (const [text, want] of table) {
    let got = "";
    try {
      parseSacct(text, "x.psv");
    } catch (e) {
      got = (e as Error).message;
    }
    assertEquals(got, want, text);
  }
  let got = "";
  try {
    parseSacct(`${MIN}\n${OK}`, "x.psv", { queues: new Set(["batch", "gpu"]) });
  } catch (e) {
    got = (e as Error).message;
  }
  assertEquals(got, "x.psv:2: Partition: unknown queue 'cpu' (defined: batch, gpu)");
  // A job across the autumn change of a zone with daylight saving time can read backwards.
  got = "";
  try {
    parseSacct(
      `${MIN}\n1|2024-11-03T00:30:00|2024-11-03T01:50:00|2024-11-03T01:10:00|10:00|1|cpu`,
      "x.psv",
      { timezone: "America/Chicago" },
    );
  } catch (e) {
    got = (e as Error).message;
  }
  assertEquals(
    got,
    "x.psv:2: End: expected a time at or after Start (2024-11-03T01:50:00), got " +
      "'2024-11-03T01:10:00' (a daylight-saving change? export with TZ=UTC sacct … and read " +
      "with --timezone UTC)",
  );
});

Deno.test("sacct: a gzipped file is read like the plain one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    const text = `${MIN}\n${OK}\n`;
    const gz = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(`${dir}/j.psv.gz`, gz);
    const s = await readSacct(`${dir}/j.psv.gz`);
    assertEquals(s.jobs, parseSacct(text, "j.psv").jobs);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- property: a small export writer, then read back ----

interface GenJob {
  submit: number; // seconds after 2024-01-01T00:00:00 UTC
  wait: number;
  run: number;
  limit: number | undefined; // undefined: UNLIMITED
  nodes: number;
  cpusPerNode: number;
  memG: number;
  gpusPerNode: number;
  user: string;
  account: string;
  partition: string;
  task: number | undefined; // array task
  steps: number;
  fate: "done" | "pending" | "running";
  state: string;
}

const EPOCH = Date.UTC(2024, 0, 1) / 1000;

function stamp(s: number): string {
  return new Date((EPOCH + s) * 1000).toISOString().slice(0, 19);
}

function limitText(s: number, form: number): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (s < 3600 && form === 0) return `${two(m)}:${two(sec)}`;
  if (d > 0 && form === 1) return `${d}-${two(h)}:${two(m)}:${two(sec)}`;
  return `${two(d * 24 + h)}:${two(m)}:${two(sec)}`;
}

const genJob: fc.Arbitrary<GenJob> = fc.record({
  submit: fc.integer({ min: 0, max: 400 * 86400 }),
  wait: fc.integer({ min: 0, max: 86400 }),
  run: fc.integer({ min: 0, max: 3 * 86400 }),
  limit: fc.option(fc.integer({ min: 60, max: 7 * 86400 }), { nil: undefined }),
  nodes: fc.integer({ min: 1, max: 4096 }),
  cpusPerNode: fc.constantFrom(1, 32, 64, 128),
  memG: fc.integer({ min: 1, max: 2048 }),
  gpusPerNode: fc.constantFrom(0, 0, 1, 4, 8),
  user: fc.constantFrom("ann", "bob", "chen"),
  account: fc.constantFrom("phys", "ml"),
  partition: fc.constantFrom("cpu", "gpu", "debug"),
  task: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
  steps: fc.integer({ min: 0, max: 2 }),
  fate: fc.constantFrom("done", "done", "done", "pending", "running"),
  state: fc.constantFrom("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 0", "NODE_FAIL"),
});

const PROPERTY_COLUMNS = [
  "JobID",
  "Submit",
  "Start",
  "End",
  "Timelimit",
  "NNodes",
  "NCPUS",
  "ReqMem",
  "AllocTRES",
  "User",
  "Account",
  "Partition",
  "State",
  "ExitCode",
  "Elapsed",
];

// One export line of a generated job (or of one of its steps).
function exportField(g: GenJob, id: string, c: string, form: number, step?: string): string {
  const gpus = g.gpusPerNode * g.nodes;
  switch (c) {
    case "JobID":
      return step === undefined ? id : `${id}.${step}`;
    case "Submit":
      return stamp(g.submit);
    case "Start":
      return g.fate === "pending" ? "Unknown" : stamp(g.submit + g.wait);
    case "End":
      return g.fate === "done" ? stamp(g.submit + g.wait + g.run) : "Unknown";
    case "Timelimit":
      return step !== undefined
        ? ""
        : g.limit === undefined
        ? "UNLIMITED"
        : limitText(g.limit, form);
    case "NNodes":
      return String(g.nodes);
    case "NCPUS":
      return String(g.cpusPerNode * g.nodes);
    case "ReqMem":
      return step === undefined ? `${g.memG}G${form === 2 ? "n" : ""}` : "";
    case "AllocTRES":
      return g.fate === "pending" ? "" : `cpu=${g.cpusPerNode * g.nodes}` +
        (gpus > 0 ? `,gres/gpu=${gpus}` : "") + `,mem=${g.memG * g.nodes}G,node=${g.nodes}`;
    case "User":
      return step === undefined ? g.user : "";
    case "Account":
      return g.account;
    case "Partition":
      return g.partition;
    case "State":
      return g.fate === "done" ? g.state : g.fate === "pending" ? "PENDING" : "RUNNING";
    case "ExitCode":
      return g.state === "FAILED" ? "1:0" : "0:0";
    default:
      return "00:00:00";
  }
}

Deno.test("sacct property: random exports (any column order and field forms) parse back to their jobs", () => {
  const seed = 2801;
  try {
    fc.assert(
      fc.property(
        fc.array(genJob, { minLength: 1, maxLength: 30 }),
        fc.shuffledSubarray(PROPERTY_COLUMNS, {
          minLength: PROPERTY_COLUMNS.length,
          maxLength: PROPERTY_COLUMNS.length,
        }),
        fc.integer({ min: 0, max: 2 }),
        (gen, columns, form) => {
          const lines = [columns.join("|")];
          const ids = gen.map((g, i) =>
            g.task === undefined ? `${1000 + i}` : `${1000 + i}_${g.task}`
          );
          gen.forEach((g, i) => {
            lines.push(columns.map((c) => exportField(g, ids[i], c, form)).join("|"));
            for (const step of ["batch", "0"].slice(0, g.steps)) {
              lines.push(columns.map((c) => exportField(g, ids[i], c, form, step)).join("|"));
            }
          });
          const s = parseSacct(lines.join("\n") + "\n", "p.psv", { overrun: "run" });
          const done = gen.filter((g) => g.fate === "done");
          const first = done.length === 0 ? 0 : Math.min(...done.map((g) => g.submit));
          const want = done.map((g) => ({
            submitTime: g.submit - first,
            numNodes: g.nodes,
            timeLimit: g.limit ?? g.run,
            actualRunTime: g.run,
            queue: g.partition,
            user: g.user,
            account: g.account,
          })).map((j, i) => [j, i] as const).sort((a, b) =>
            a[0].submitTime - b[0].submitTime || a[1] - b[1]
          ).map((p) => p[0]);
          assertEquals(s.jobs, want);
          assertEquals(s.timeOffset, done.length === 0 ? 0 : EPOCH + first);
          assertEquals(s.report.steps, gen.reduce((n, g) => n + g.steps, 0));
          assertEquals(s.report.neverStarted, gen.filter((g) => g.fate === "pending").length);
          assertEquals(s.report.notEnded, gen.filter((g) => g.fate === "running").length);
          // Every job line is a record, with what a multi-resource model needs.
          assertEquals(s.records.map((r) => r.jobId), ids);
          assert(s.records.every((r, i) => r.line > (i === 0 ? 1 : s.records[i - 1].line)));
          s.records.forEach((r, i) => {
            const g = gen[i];
            assertEquals(r.cpus, g.cpusPerNode * g.nodes);
            assertEquals([r.memory, r.memoryPer], [g.memG * 1024, form === 2 ? "node" : undefined]);
            const gpus = g.fate === "pending" || g.gpusPerNode === 0
              ? undefined
              : g.gpusPerNode * g.nodes;
            assertEquals(r.gpus, gpus);
            assertEquals(r.partition, g.partition);
            assertEquals(r.state, exportField(g, ids[i], "State", form).split(" ")[0]);
            assertEquals(r.exitCode?.status, g.state === "FAILED" ? 1 : 0);
          });
        },
      ),
      { seed, numRuns: 200 },
    );
  } catch (e) {
    console.error(`fast-check seed ${seed}`);
    throw e;
  }
});

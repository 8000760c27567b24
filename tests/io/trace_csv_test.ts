import { assert, assertEquals, assertRejects, assertThrows } from "../_assert.ts";
import { EvtsimError } from "../../core/errors.ts";
import {
  type LoadedTrace,
  parseTrace,
  readTrace,
  sortBySubmitStable,
  type TraceReadOptions,
} from "../../io/trace_csv.ts";
import { LASSEN_COLUMN_COUNT, LASSEN_COLUMNS } from "../../io/lassen.ts";

type Opts = Omit<TraceReadOptions, "file">;

function parse(text: string, options: Opts = {}): LoadedTrace {
  return parseTrace(text, { file: "t.csv", ...options });
}

// The EvtsimError `fn` throws; checks its one-line message starts with file:line: field:.
function failure(fn: () => unknown, line: number, field: string, includes: string): EvtsimError {
  const e = assertThrows(fn, includes);
  assert(e instanceof EvtsimError, `expected EvtsimError, got ${e.name}`);
  assertEquals(e.kind, "input");
  assertEquals(e.location, { file: "t.csv", line, field });
  assert(e.message.startsWith(`t.csv:${line}: ${field}: `), e.message);
  assert(!e.message.includes("\n"), "one line");
  return e;
}

const SIMPLE = "job_submit_time,num_nodes,time_limit\n";

Deno.test("simple: minimal simulation trace", () => {
  const t = parse(SIMPLE + "0,70,200\n10,45,300\n20,20,50\n");
  assertEquals(t.mode, "simulation");
  assertEquals(t.jobs, [
    { submitTime: 0, numNodes: 70, timeLimit: 200 },
    { submitTime: 10, numNodes: 45, timeLimit: 300 },
    { submitTime: 20, numNodes: 20, timeLimit: 50 },
  ]);
  assertEquals(t.recorded, []);
  assertEquals(t.queueColumn, undefined);
  assertEquals(t.hasActualRunTime, false);
  assertEquals(t.linesRead, 3);
  assertEquals(t.overruns, 0);
  assertEquals(t.warnings, []);
});

Deno.test("simple: header only gives zero jobs; empty file is an error", () => {
  const t = parse(SIMPLE);
  assertEquals([t.jobs.length, t.linesRead, t.mode], [0, 0, "simulation"]);
  assertEquals(parse("job_submit_time,num_nodes,time_limit").jobs, []);
  for (const empty of ["", "\n\r\n  \n"]) {
    const e = assertThrows(() => parse(empty), "t.csv:1: expected a header row, got an empty file");
    assert(e instanceof EvtsimError && e.kind === "input");
  }
});

Deno.test("simple: columns by name in any order, other columns ignored", () => {
  const t = parse("exit_status,time_limit,q_id,num_nodes,job_submit_time\n0,100,pbatch,4,5\n");
  assertEquals(t.jobs, [{ submitTime: 5, numNodes: 4, timeLimit: 100, queue: "pbatch" }]);
  assertEquals(t.queueColumn, "q_id");
});

Deno.test("simple: queue column q_id or queue, q_id preferred, value kept verbatim", () => {
  const a = parse("job_submit_time,num_nodes,queue,time_limit\n0,1,batch,10\n1,1,,10\n");
  assertEquals(a.queueColumn, "queue");
  assertEquals(a.jobs.map((j) => j.queue), ["batch", ""]);
  const b = parse("job_submit_time,num_nodes,queue,q_id,time_limit\n0,1,x,y,10\n");
  assertEquals([b.queueColumn, b.jobs[0].queue], ["q_id", "y"]);
});

Deno.test("simple: time_limit aliases in order", () => {
  for (const name of ["time_limit", "timelimit", "walltime"]) {
    const t = parse(`job_submit_time,num_nodes,${name}\n0,1,42\n`);
    assertEquals(t.jobs[0].timeLimit, 42);
  }
  const both = parse("job_submit_time,num_nodes,walltime,time_limit\n0,1,7,42\n");
  assertEquals(both.jobs[0].timeLimit, 42);
});

Deno.test("simple: actual run time aliases in order, overruns counted", () => {
  for (
    const name of ["actual_run_time", "actual_runtime", "duration", "actual_duration", "run_time"]
  ) {
    const t = parse(`job_submit_time,num_nodes,time_limit,${name}\n0,1,100,60\n`);
    assertEquals(t.jobs[0], { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 60 });
    assertEquals(t.hasActualRunTime, true);
  }
  const pick = parse("job_submit_time,num_nodes,time_limit,run_time,duration\n0,1,100,1,2\n");
  assertEquals(pick.jobs[0].actualRunTime, 2);
  const over = parse(SIMPLE.trimEnd() + ",actual_run_time\n0,1,100,150\n1,1,100,100\n2,1,10,11\n");
  assertEquals(over.overruns, 2);
  assertEquals(over.jobs[0].actualRunTime, 150);
});

Deno.test("simple: an empty actual value is absent", () => {
  const text = "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,100,\n";
  assertEquals(parse(text).jobs[0], { submitTime: 0, numNodes: 1, timeLimit: 100 });
  assertEquals(parse(text).warnings, []);
});

Deno.test("run_time_mode actual: a missing column, an empty or a zero value runs for the limit, with one warning", () => {
  // No column at all (DR_EVT runs every job for its limit).
  const none = parse(SIMPLE + "0,1,100\n5,2,50\n", { runTimeMode: "actual" });
  assertEquals(none.jobs, [
    { submitTime: 0, numNodes: 1, timeLimit: 100 },
    { submitTime: 5, numNodes: 2, timeLimit: 50 },
  ]);
  assertEquals(none.limitFallbacks, 2);
  assertEquals(none.warnings, [
    "t.csv: no actual run time column (actual_run_time, actual_runtime, duration, actual_duration, run_time): such jobs run for their time limit (run_time_mode actual, as DR_EVT does)",
  ]);
  // Empty and zero values (DR_EVT starts a job with a zero run time with its limit).
  const text = "job_submit_time,num_nodes,time_limit,duration\n0,1,100,0\n1,1,100,\n2,1,100,30\n";
  const some = parse(text, { requireActualRunTime: true }); // the older name of the option
  assertEquals(some.jobs.map((j) => j.actualRunTime), [undefined, undefined, 30]);
  assertEquals(some.limitFallbacks, 2);
  assertEquals(some.warnings, [
    "t.csv: 2 job(s) with an empty or zero duration: such jobs run for their time limit (run_time_mode actual, as DR_EVT does)",
  ]);
  // Other modes read the values as they are; replay never reads the column.
  assertEquals(parse(text, { runTimeMode: "limit" }).jobs[0].actualRunTime, 0);
  assertEquals(parse(text, { runTimeMode: "limit" }).warnings, []);
  const replay = "job_submit_time,begin_time,end_time,num_nodes,time_limit\n0,1,2,1,5\n";
  const r = parse(replay, { runTimeMode: "actual" });
  assertEquals([r.recorded.length, r.limitFallbacks, r.warnings.length], [1, 0, 0]);
});

Deno.test("simple: trailing spaces, tabs, CR stripped; blank lines ignored; BOM skipped", () => {
  const text =
    "\uFEFFjob_submit_time ,num_nodes\t,time_limit\r\n\r\n0,2,10 \t\r\n\n  \n5, 3 ,20\r\n";
  const t = parse(text);
  assertEquals(t.jobs, [
    { submitTime: 0, numNodes: 2, timeLimit: 10 },
    { submitTime: 5, numNodes: 3, timeLimit: 20 },
  ]);
  assertEquals(t.linesRead, 2);
  // Line numbers count blank lines: the bad row is physical line 4.
  failure(() => parse(SIMPLE + "0,1,1\n\n0,x,1\n"), 4, "num_nodes", "got 'x'");
});

Deno.test("simple: quoted fields with commas and doubled quotes", () => {
  const text = "job_submit_time,script,num_nodes,queue,time_limit\n" +
    '0,"run.sh a,b,c",4,"p,batch",100\n' +
    '1,"say ""hi, there""",2,"q""x",50\n';
  const t = parse(text);
  assertEquals(t.jobs, [
    { submitTime: 0, numNodes: 4, timeLimit: 100, queue: "p,batch" },
    { submitTime: 1, numNodes: 2, timeLimit: 50, queue: 'q"x' },
  ]);
  failure(
    () => parse('job_submit_time,queue,num_nodes,time_limit\n0,"open,1,1\n'),
    2,
    "queue",
    "closing double quote",
  );
});

Deno.test("simple: stable sort by submit time (ties keep file order)", () => {
  const t = parse(
    "job_submit_time,num_nodes,queue,time_limit\n5,1,a,1\n0,1,b,1\n5,1,c,1\n0,1,d,1\n3,1,e,1\n",
  );
  assertEquals(t.jobs.map((j) => j.queue), ["b", "d", "e", "a", "c"]);
  const xs = [{ submitTime: 2, k: 0 }, { submitTime: 1, k: 1 }, { submitTime: 2, k: 2 }];
  assertEquals(sortBySubmitStable(xs).map((x) => x.k), [1, 0, 2]);
});

Deno.test("simple: calendar and offset timestamps in job_submit_time", () => {
  const text = SIMPLE + "2024-01-01 00:00:00,1,10\n2024-01-01T08:00:01Z,1,10\n1704096002.5,1,10\n";
  assertEquals(parse(text).jobs.map((j) => j.submitTime), [1704096000, 1704096001, 1704096002.5]);
  assertEquals(
    parse(SIMPLE + "2024-01-01 00:00:00,1,10\n", { timezone: "UTC" }).jobs[0].submitTime,
    1704067200,
  );
  failure(() => parse(SIMPLE + ",1,10\n"), 2, "job_submit_time", "got ''");
  const e = assertThrows(() => parse(SIMPLE, { timezone: "Nowhere/Land" }), "Nowhere/Land");
  assert(e instanceof EvtsimError && e.kind === "usage" && e.location.field === "timezone");
});

Deno.test("simple: number fields are validated with file:line: field", () => {
  failure(
    () => parse(SIMPLE + "0,-3,10\n"),
    2,
    "num_nodes",
    "expected a non-negative integer, got '-3'",
  );
  failure(() => parse(SIMPLE + "0,2.5,10\n"), 2, "num_nodes", "got '2.5'");
  failure(() => parse(SIMPLE + "0,,10\n"), 2, "num_nodes", "got ''");
  failure(() => parse(SIMPLE + "0,4x,10\n"), 2, "num_nodes", "got '4x'");
  failure(
    () => parse(SIMPLE + "0,1,-1\n"),
    2,
    "time_limit",
    "expected a non-negative number of seconds, got '-1'",
  );
  failure(() => parse(SIMPLE + "0,1,1h\n"), 2, "time_limit", "got '1h'");
  failure(() => parse("job_submit_time,num_nodes,walltime\n0,1,\n"), 2, "walltime", "got ''");
  failure(() => parse(SIMPLE + "1-2,1,1\n"), 2, "job_submit_time", "got '1-2'");
  failure(() => parse(SIMPLE + "tomorrow,1,1\n"), 2, "job_submit_time", "got 'tomorrow'");
  const duration = "job_submit_time,num_nodes,time_limit,duration\n0,1,10,-5\n";
  failure(() => parse(duration), 2, "duration", "got '-5'");
  const ok = parse(SIMPLE + "0,0,0\n1,007,1.5e2\n2,1,.5\n").jobs;
  assertEquals(ok.map((j) => [j.numNodes, j.timeLimit]), [[0, 0], [7, 150], [1, 0.5]]);
});

Deno.test("simple: fewer fields than the header is an error naming the first missing column", () => {
  failure(
    () => parse(SIMPLE + "0,1\n"),
    2,
    "time_limit",
    "expected 3 comma-separated fields (as in the header), got 2",
  );
});

Deno.test("simple: more fields than the header (outside quotes) is an error naming the line", () => {
  const more = "expected 3 comma-separated fields (as in the header), got more";
  failure(() => parse(SIMPLE + "0,4,1,000,500\n"), 2, "field 4", more);
  failure(() => parse(SIMPLE + "0,4,1\n5,4,1,\n"), 3, "field 4", more);
  failure(() => parse(SIMPLE + '0,"a",1,"b,c"\n'), 2, "field 4", more);
  // Commas inside quotes do not make fields.
  const quoted = 'job_submit_time,num_nodes,time_limit,note\n0,4,1,"a,b,c"\n';
  assertEquals(parse(quoted).jobs[0].timeLimit, 1);
  const lassen = Array.from({ length: LASSEN_COLUMN_COUNT + 1 }, () => "1").join(",");
  failure(
    () => parseTrace(`h\n${lassen}\n`, { file: "t.csv", format: "lassen" }),
    2,
    "field 34",
    "expected 33 comma-separated fields",
  );
});

Deno.test("blank required fields are errors, not epoch 0 or a zero-length job", () => {
  failure(() => parse(SIMPLE + " ,1,10\n"), 2, "job_submit_time", "got ''");
  const replay = "job_submit_time,begin_time,end_time,num_nodes,time_limit\n";
  failure(() => parse(replay + "0,5,,1,5\n"), 2, "end_time", "got ''");
  failure(() => parse(replay + "0,,9,1,5\n"), 2, "begin_time", "got ''");
  failure(() => parse(SIMPLE + "0,1,\n"), 2, "time_limit", "got ''");
});

Deno.test("times before 1970 are reported by the reader with file, line and field", () => {
  failure(() => parse(SIMPLE + "0,1,1\n-5,1,10\n"), 3, "job_submit_time", "got '-5' (-5 s)");
  failure(
    () => parse(SIMPLE + "1969-12-31 23:00:00,1,10\n", { timezone: "UTC" }),
    2,
    "job_submit_time",
    "at or after 1970-01-01 00:00:00 UTC (epoch 0), got '1969-12-31 23:00:00' (-3600 s)",
  );
  const replay = "job_submit_time,begin_time,end_time,num_nodes,time_limit\n0,-1,9,1,5\n";
  failure(() => parse(replay), 2, "begin_time", "epoch 0");
});

Deno.test("values beyond 2^53 are refused, not rounded", () => {
  failure(() => parse(SIMPLE + "9007199254740993,1,10\n"), 2, "job_submit_time", "2^53 - 1");
  failure(() => parse(SIMPLE + "0,9007199254740993,10\n"), 2, "num_nodes", "2^53 - 1");
  failure(() => parse(SIMPLE + "0,1,1e300\n"), 2, "time_limit", "2^53 - 1");
  const duration = "job_submit_time,num_nodes,time_limit,duration\n0,1,10,9007199254740993\n";
  failure(() => parse(duration), 2, "duration", "2^53 - 1");
  const ok = parse(SIMPLE + "9007199254740991,0000000000000000001,9007199254740991\n").jobs[0];
  assertEquals([ok.submitTime, ok.numNodes, ok.timeLimit], [2 ** 53 - 1, 1, 2 ** 53 - 1]);
});

Deno.test("simple: header errors", () => {
  const missing = failure(() => parse("job_submit_time,num_nodes\n"), 1, "time_limit", "got none");
  assert(missing.message.includes("time_limit, timelimit, walltime"), missing.message);
  failure(() => parse("num_nodes,time_limit\n"), 1, "job_submit_time", "expected this column");
  failure(() => parse("job_submit_time,time_limit\n"), 1, "num_nodes", "expected this column");
  failure(
    () => parse("job_submit_time,num_nodes,time_limit,begin_time\n"),
    1,
    "end_time",
    "ambiguous trace: has begin_time but not end_time",
  );
  failure(
    () => parse("end_time,job_submit_time,num_nodes,time_limit\n"),
    1,
    "begin_time",
    "ambiguous trace: has end_time but not begin_time",
  );
  failure(() => parse("job_submit_time,num_nodes,num_nodes,time_limit\n"), 1, "num_nodes", "twice");
  assertEquals(parse("job_submit_time,x,x,num_nodes,time_limit\n0,a,b,1,1\n").jobs.length, 1);
});

Deno.test("replay: begin_time and end_time give replay mode", () => {
  const text =
    "job_submit_time,begin_time,end_time,num_nodes,exit_status,q_id,time_limit,actual_run_time\n" +
    "10,20,70,4,0,pbatch,100,5\n0,0,50,2,0,pall,60,5\n";
  const t = parse(text);
  assertEquals(t.mode, "replay");
  assertEquals(t.jobs, []);
  assertEquals(t.recorded, [
    { submitTime: 0, numNodes: 2, timeLimit: 60, queue: "pall", beginTime: 0, endTime: 50 },
    { submitTime: 10, numNodes: 4, timeLimit: 100, queue: "pbatch", beginTime: 20, endTime: 70 },
  ]);
  assertEquals([t.queueColumn, t.hasActualRunTime, t.overruns], ["q_id", true, 0]);
  failure(
    () => parse("job_submit_time,begin_time,end_time,num_nodes,time_limit\n0,x,1,1,1\n"),
    2,
    "begin_time",
    "got 'x'",
  );
});

Deno.test("replay: rows with submit > begin or begin > end are skipped with a warning", () => {
  const text = "job_submit_time,begin_time,end_time,num_nodes,time_limit\n" +
    "0,5,10,1,10\n7,5,10,1,10\n0,12,10,1,10\n\n3,3,3,1,10\n";
  const t = parse(text);
  assertEquals(t.recorded.map((j) => j.submitTime), [0, 3]);
  assertEquals(t.linesRead, 4);
  assertEquals(t.warnings, [
    "t.csv:3: job event times are incorrect (submit > begin)",
    "t.csv:4: job event times are incorrect (begin > end)",
  ]);
});

Deno.test("maxJobs stops after N data lines read (skipped rows count)", () => {
  const t = parse(SIMPLE + "0,1,1\n\n1,1,1\n2,1,1\nbad\n", { maxJobs: 2 });
  assertEquals([t.linesRead, t.jobs.length], [2, 2]);
  assertEquals(parse(SIMPLE + "0,1,1\n1,1,1\n", { maxJobs: 0 }).linesRead, 2);
  const replay =
    "job_submit_time,begin_time,end_time,num_nodes,time_limit\n9,5,10,1,10\n0,5,10,1,10\n";
  const r = parse(replay, { maxJobs: 1 });
  assertEquals([r.linesRead, r.recorded.length, r.warnings.length], [1, 0, 1]);
});

Deno.test("requireSorted: an earlier submit time is an error naming file and line", () => {
  const text = SIMPLE + "0,1,1\n5,1,1\n5,1,1\n4,1,1\n";
  failure(() => parse(text, { requireSorted: true }), 5, "job_submit_time", "non-decreasing order");
  assertEquals(parse(text).jobs.map((j) => j.submitTime), [0, 4, 5, 5]);
  assertEquals(parse(SIMPLE + "0,1,1\n0,1,1\n3,1,1\n", { requireSorted: true }).jobs.length, 3);
});

function lassenRow(v: Record<number, string>): string {
  const cells = Array.from({ length: LASSEN_COLUMN_COUNT }, (_, i) => v[i] ?? `c${i}`);
  return cells.join(",");
}

Deno.test("lassen: fixed columns, header skipped, quoted commas, replay mode", () => {
  const C = LASSEN_COLUMNS;
  const header = Array.from({ length: LASSEN_COLUMN_COUNT }, (_, i) => `h${i}`).join(",");
  const row = (
    submit: string,
    begin: string,
    end: string,
    nodes: string,
    queue: string,
    limit: string,
  ) =>
    lassenRow({
      [C.job_submit_time]: submit,
      [C.begin_time]: begin,
      [C.end_time]: end,
      [C.num_nodes]: nodes,
      [C.queue]: queue,
      [C.time_limit]: limit,
      5: '"#!/bin/sh, with, commas"',
    });
  const text = [
    header,
    row(
      "2018-11-08 10:00:00",
      "2018-11-08 10:00:05",
      "2018-11-08 11:00:05",
      "16",
      "pbatch",
      "7200",
    ),
    row("100", "90", "200", "1", "pdebug", "60"),
    "",
  ].join("\r\n");
  const t = parseTrace(text, { file: "t.csv", format: "lassen" });
  assertEquals(t.mode, "replay");
  assertEquals(t.queueColumn, "queue");
  assertEquals(t.recorded, [{
    submitTime: 1541700000, // 18:00 UTC (PST)
    numNodes: 16,
    timeLimit: 7200,
    queue: "pbatch",
    beginTime: 1541700005,
    endTime: 1541703605,
  }]);
  assertEquals(t.warnings, ["t.csv:3: job event times are incorrect (submit > begin)"]);
  failure(
    () => parseTrace(header + "\na,b,c\n", { file: "t.csv", format: "lassen" }),
    2,
    "field 4",
    "got 3",
  );
  const badNodes = row("0", "0", "1", "x", "q", "1");
  failure(
    () => parseTrace(header + "\n" + badNodes, { file: "t.csv", format: "lassen" }),
    2,
    "num_nodes",
    "got 'x'",
  );
});

Deno.test("readTrace reads a file and names it in errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/trace.csv`;
    await Deno.writeTextFile(path, SIMPLE + "0,1,1\n1,x,1\n");
    const e = await assertRejects(() => readTrace(path, {}), `${path}:3: num_nodes:`);
    assert(e instanceof EvtsimError);
    await Deno.writeTextFile(path, SIMPLE + "0,1,1\n");
    assertEquals((await readTrace(path, { maxJobs: 5 })).jobs.length, 1);
    await assertRejects(
      () => readTrace(`${dir}/missing.csv`, {}),
      "missing.csv: cannot read the trace",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a generated 50k-line trace parses", () => {
  const lines = [
    "job_submit_time,num_nodes,exit_status,q_id,time_limit,actual_run_time,user_script",
  ];
  for (let i = 0; i < 50_000; i++) {
    const script = i % 10 === 0 ? `"run ${i}, fast"` : `run${i}`;
    lines.push(
      `${1_700_000_000 + (i * 7) % 50_000},${1 + (i % 64)},0,pbatch,${3600 + i % 100},${
        i % 4000
      },${script}`,
    );
  }
  const t = parse(lines.join("\n") + "\n");
  assertEquals([t.linesRead, t.jobs.length], [50_000, 50_000]);
  for (let i = 1; i < t.jobs.length; i++) {
    assert(t.jobs[i - 1].submitTime <= t.jobs[i].submitTime, "sorted");
  }
  assertEquals(t.overruns, t.jobs.filter((j) => j.actualRunTime! > j.timeLimit).length);
  assert(t.overruns > 0, "some rows overrun");
});

// The fault catalogue: one table of the mistakes and attacks evtsim must
// answer with one clear line (and no stack, no partial output), each row
// naming the surface it goes through (process, library, HTTP, gRPC), the
// input, and the line expected. A new defect class found in review gets a row
// here, so CI keeps it fixed.
//
// The table is assembled from one array per area so that work on different
// areas never edits the same lines; `CATALOGUE` below is the one table.

import { assert } from "./_assert.ts";
import { runCli } from "./_cli.ts";
import {
  ALIAS_BOMB,
  cli,
  cliProcess,
  DEEP,
  deepJson,
  deepJsonText,
  deepRecording,
  editedRun,
  grpcInit,
  httpCreate,
  library,
  libraryAsync,
  merged,
  withField,
  zerosGzip,
} from "./_input_faults.ts";
import { readTraceStream } from "../io/mod.ts";
import { initialState, loadSnapshot, saveSnapshot, Simulation } from "../mod.ts";

/** Where a fault is fed in. */
export type Surface = "process" | "in-process" | "library" | "http" | "grpc";

/** What one fault gave: an exit code (or status) and its error text. */
export interface FaultOutcome {
  /** Process exit code, HTTP status, or 1 for a library throw. */
  readonly code: number;
  /** The error text: stderr, the response's error message, or the thrown message. */
  readonly error: string;
}

/** One row of the catalogue. */
export interface FaultRow {
  /** The surface the fault goes through. */
  readonly surface: Surface;
  /** The input, said in a few words (the row's name in the test report). */
  readonly input: string;
  /** Feeds the fault in, in a temp folder of its own (removed afterwards). */
  readonly run: (dir: string) => Promise<FaultOutcome>;
  /** The one line expected (matched against the error text). */
  readonly expected: RegExp;
  /** The code expected (default: 1). */
  readonly code?: number;
}

// Each area appends its rows to its own array.

/** Snapshots, recordings and computed-time bounds (issue 32 items 1, 19, 20). */
const STATE_ROWS: FaultRow[] = [];

/** Outputs that would overwrite inputs, folders, interrupts, sweeps (items 2, 4, 17, 18, 21). */
const COMMAND_ROWS: FaultRow[] = [];

/** Policies that misbehave (items 3, 8, 10, 14, 15). */
const POLICY_ROWS: FaultRow[] = [];

/** The server's fronts (items 5, 6, 7, 12, 13, 22). */
const SERVER_ROWS: FaultRow[] = [];

/** Oversized and malicious inputs: nesting, YAML aliases, long lines, report files (items 9, 11, 16, 23). */
const INPUT_ROWS: FaultRow[] = [
  // Item 9: free-form JSON nested thousands deep overflowed the stack.
  {
    surface: "library",
    input: "picker settings nested 100,000 deep",
    run: () =>
      Promise.resolve(
        library(() => new Simulation({ totalNodes: 8, pickerSettings: { x: deepJson(DEEP) } })),
      ),
    expected: /^picker settings: x\.a\.a.*: nested more than 64 levels deep$/,
  },
  {
    surface: "library",
    input: "a snapshot whose picker memory is nested 100,000 deep",
    run: () => {
      const snap = {
        ...saveSnapshot(initialState({ totalNodes: 8 })),
        pickerMemory: deepJson(DEEP),
      };
      return Promise.resolve(library(() => loadSnapshot(snap)));
    },
    expected: /pickerMemory: a\.a\.a.*: nested more than 64 levels deep$/,
  },
  {
    surface: "http",
    input: "POST /sessions with pickerSettings nested 100,000 deep",
    run: () => httpCreate({ totalNodes: 8, pickerSettings: { x: deepJson(DEEP) } }),
    expected: /^picker settings: x\.a\.a.*: nested more than 64 levels deep$/,
    code: 400,
  },
  {
    surface: "grpc",
    input: "init with picker_settings_json nested 100,000 deep",
    run: () => grpcInit({ picker_settings_json: `{"x":${deepJsonText(DEEP)}}` }),
    expected: /^picker settings: x\.a\.a.*: nested more than 64 levels deep$/,
  },
  {
    surface: "process",
    input: "replay of a log whose picker settings are nested 100,000 deep",
    run: async (dir) =>
      cliProcess(["replay", await deepRecording(dir, DEEP), "-o", `${dir}/r.csv`]),
    expected:
      /deep\.replay:1: header: config\.pickerSettings: x\.a\.a.*: nested more than 64 levels/,
  },
  // Item 11: YAML alias bombs escaped as the yaml package's ReferenceError.
  {
    surface: "process",
    input: "simulate --queues with a YAML alias bomb",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/q.yaml`, ALIAS_BOMB);
      return await cliProcess([
        "simulate",
        "examples/demo_trace.csv",
        "-n",
        "8",
        "--queues",
        `${dir}/q.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected: /q\.yaml:2: its aliases expand to too many nodes \(a YAML alias bomb/,
  },
  {
    surface: "in-process",
    input: "simulate -c with a YAML alias bomb",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/c.yaml`, ALIAS_BOMB);
      return await cli([
        "simulate",
        "examples/demo_trace.csv",
        "-c",
        `${dir}/c.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected: /c\.yaml:2: its aliases expand to too many nodes \(a YAML alias bomb/,
  },
  {
    surface: "in-process",
    input: "sweep with a spec that is a YAML alias bomb",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/s.yaml`, ALIAS_BOMB);
      return await cli(["sweep", `${dir}/s.yaml`, "--results", `${dir}/out`]);
    },
    expected: /s\.yaml:2: its aliases expand to too many nodes \(a YAML alias bomb/,
  },
  {
    surface: "in-process",
    input: "topo compare --cluster with a YAML alias bomb",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/c.yaml`, ALIAS_BOMB);
      return await cli([
        "topo",
        "compare",
        "--cluster",
        `${dir}/c.yaml`,
        "--jobs",
        "examples/topo/jobs.yaml",
      ]);
    },
    expected: /cluster file ".*c\.yaml": yaml: line 2: its aliases expand to too many nodes/,
  },
  {
    surface: "in-process",
    input: "simulate --queues with JSON nested 100,000 deep",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/q.json`,
        `{"fairshare": {"weights": ${deepJsonText(DEEP)}}}`,
      );
      return await cli([
        "simulate",
        "examples/demo_trace.csv",
        "-n",
        "8",
        "--queues",
        `${dir}/q.json`,
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected: /q\.json:1: nested more than 64 levels deep$/,
  },
  // Item 16: a gzip of zeros (no newline) outgrew the largest string: RangeError.
  {
    surface: "process",
    input: "simulate on a .swf.gz of 600 MiB of zeros",
    run: async (dir) => {
      await zerosGzip(`${dir}/zeros.swf.gz`, 600);
      return await cliProcess(["simulate", `${dir}/zeros.swf.gz`, "-n", "8", "-o", `${dir}/o.csv`]);
    },
    expected: /zeros\.swf\.gz:1: line longer than 1048576 characters \(is this a trace\?\)$/,
  },
  {
    surface: "library",
    input: "readTraceStream of a gzip stream of 600 MiB of zeros",
    run: async (dir) => {
      await zerosGzip(`${dir}/zeros.gz`, 600);
      const file = await Deno.open(`${dir}/zeros.gz`);
      return await libraryAsync(() => readTraceStream(file.readable, { file: "zeros.gz" }));
    },
    expected: /^zeros\.gz:1: line longer than 1048576 characters \(is this a trace\?\)$/,
  },
  {
    surface: "in-process",
    input: "simulate on a CSV trace with a 2 MiB line",
    run: async (dir) => {
      const row = "0".repeat(2 << 20);
      await Deno.writeTextFile(`${dir}/t.csv`, `job_submit_time,num_nodes,time_limit\n${row}\n`);
      return await cli(["simulate", `${dir}/t.csv`, "-n", "8", "-o", `${dir}/o.csv`]);
    },
    expected: /t\.csv:2: line longer than 1048576 characters \(is this a trace\?\)$/,
  },
  // Item 23: report read rows with more fields than the header (a lost
  // newline) as numbers: a node count of 112127 drew for minutes and ~19 GB.
  {
    surface: "process",
    input: "report with two lines of the resource CSV merged",
    run: async (dir) =>
      cliProcess([
        "report",
        await editedRun(dir, { resources: (l) => merged(l, 1) }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected: /run_resources\.csv:2: expected 3 fields \(time,free_nodes,allocated_nodes\), got 5$/,
  },
  {
    surface: "in-process",
    input: "report with two rows of the schedule CSV merged",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, { schedule: (l) => merged(l, 2) }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected: /run\.csv:3: expected 7 fields \(job_submit_time,.*,time_limit\), got 13$/,
  },
  {
    surface: "in-process",
    input: "report with a schedule row of too few fields",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, { schedule: (l) => l.map((x, i) => (i === 4 ? "1,2,3" : x)) }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected: /run\.csv:5: expected 7 fields \(job_submit_time,.*\), got 3$/,
  },
  {
    surface: "in-process",
    input: "report with a schedule num_nodes of 0x10",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, { schedule: (l) => withField(l, 2, 3, "0x10") }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected: /run\.csv:3: num_nodes: expected a number, got '0x10'$/,
  },
  {
    surface: "in-process",
    input: "report with a resource allocated_nodes of 1.5",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, { resources: (l) => withField(l, 3, 2, "1.5") }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected:
      /run_resources\.csv:4: allocated_nodes: expected a whole number of at least 0, got '1\.5'$/,
  },
  {
    surface: "in-process",
    input: "report with a schedule header of an unknown column",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, {
          schedule: (l) => [l[0] + ",user", ...l.slice(1).map((x) => x && x + ",7")],
        }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected:
      /run\.csv:1: not a schedule CSV \(simulate --outfile\): header has an unknown column 'user'$/,
  },
  {
    surface: "in-process",
    input: "report with a resource row of 999,999,999,999 free nodes",
    run: async (dir) =>
      cli([
        "report",
        await editedRun(dir, { resources: (l) => withField(l, 1, 1, "999999999999") }),
        "-o",
        `${dir}/r.html`,
      ]),
    expected:
      /run_resources\.csv:2: free_nodes \+ allocated_nodes is 999999999999 nodes, more than a report draws \(16777216\)$/,
  },
];

/** A policy module (first fit) and a run of it recorded into `dir/run.replay`. */
async function recordWithModule(dir: string): Promise<{ log: string; module: string }> {
  const module = `${dir}/my_policies.ts`;
  await Deno.writeTextFile(
    module,
    `export const admissions = [{
  name: "first_fit",
  runSession(s) {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes <= s.free) s.dispatch(job, false);
      else s.pend(job, { code: "insufficient_nodes", message: "needs " + job.numNodes });
    }
  },
}];
`,
  );
  await Deno.writeTextFile(
    `${dir}/jobs.csv`,
    "job_submit_time,num_nodes,time_limit,actual_run_time\n0,3,10,8\n1,2,10,5\n2,1,10,5\n",
  );
  const log = `${dir}/run.replay`;
  const r = await runCli([
    "simulate",
    `${dir}/jobs.csv`,
    "-n",
    "4",
    "--policy_module",
    module,
    "--admission",
    "first_fit",
    "-o",
    `${dir}/out.csv`,
    "--record",
    log,
  ]);
  assert(r.code === 0, r.err.join("\n"));
  return { log, module };
}

/** Policy modules and recordings across commands (issue 27). */
const REGISTRY_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "replay of a log whose policy module changed since the recording",
    run: async (dir) => {
      const { log, module } = await recordWithModule(dir);
      await Deno.writeTextFile(module, "// edited\n", { append: true });
      const r = await runCli(["replay", log, "--verify"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /run\.replay:1: the policy module \S+my_policies\.ts has changed since the recording \(sha256 [0-9a-f]{12}… recorded, [0-9a-f]{12}… now\); give --policy_module \S+my_policies\.ts to replay with it as it is now$/,
  },
  {
    surface: "in-process",
    input: "replay of a log whose policy module is missing",
    run: async (dir) => {
      const { log, module } = await recordWithModule(dir);
      await Deno.remove(module);
      const r = await runCli(["replay", log, "-i"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /run\.replay:1: the policy module it was recorded with, \S+my_policies\.ts, cannot be read \(no such file or folder\); give --policy_module FILE to replay with another module$/,
  },
  {
    surface: "in-process",
    input: "replay of a log naming a policy of no module it names",
    run: async (dir) => {
      const { log } = await recordWithModule(dir);
      // The log as an older recording (or a library one) would have it: no module named.
      const lines = (await Deno.readTextFile(log)).split("\n");
      const header = JSON.parse(lines[0]);
      delete header.policyModules;
      await Deno.writeTextFile(log, [JSON.stringify(header), ...lines.slice(1)].join("\n"));
      const r = await runCli(["replay", log]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /run\.replay:1: unknown backfill policy 'first_fit': the log names no policy module; give --policy_module FILE that exports it$/,
  },
  {
    surface: "in-process",
    input: "replay what-if under a picker nobody registered",
    run: async (dir) => {
      const { log } = await recordWithModule(dir);
      const r = await runCli(["replay", log, "--picker", "largest_first"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /unknown picker 'largest_first' \(registered: builtin_fcfs, fairshare, ljf, sjf\)$/,
  },
  {
    surface: "library",
    input: "resimulate a log recorded with a policy module, without its registry",
    run: async (dir) => {
      const { log } = await recordWithModule(dir);
      const { resimulate } = await import("../mod.ts");
      try {
        resimulate(await Deno.readTextFile(log), { file: log });
        return { code: 0, error: "" };
      } catch (e) {
        return { code: 1, error: (e as Error).message };
      }
    },
    expected: /run\.replay:2: unknown backfill policy 'first_fit' \(registered: /,
  },
];

/** Replay, what-if and first-day usage (issue 27). */
const USAGE_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate on a trace that does not exist",
    run: async (dir) => {
      const r = await runCli(["simulate", `${dir}/missing.csv`, "-n", "8", "-o", `${dir}/out.csv`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /missing\.csv/,
  },
  {
    surface: "in-process",
    input: "simulate with a mistyped long option (--backfil)",
    run: async () => {
      const r = await runCli(["simulate", "x.csv", "--backfil", "easy"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: unknown option '--backfil'; did you mean '--backfill_policy'\?/,
  },
  {
    surface: "in-process",
    input: "simulate with a mistyped option value (-b eassy)",
    run: async () => {
      const r = await runCli(["simulate", "x.csv", "-b", "eassy"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: -b: unknown value 'eassy' .*; did you mean 'easy'\?$/,
  },
  {
    surface: "in-process",
    input: "a mistyped command (simulat)",
    run: async () => {
      const r = await runCli(["simulat", "x.csv"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: unknown command 'simulat' .*; did you mean 'simulate'\?$/,
  },
  {
    surface: "in-process",
    input: "replay given a CSV trace",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/t.csv`, "job_submit_time,num_nodes,time_limit\n0,1,1\n");
      const r = await runCli(["replay", `${dir}/t.csv`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /t\.csv:1: not a \.replay log \(no header\)$/,
  },
  {
    surface: "library",
    input: "pendingReason of a job that does not exist",
    run: async () => {
      const { Simulation } = await import("../mod.ts");
      try {
        new Simulation({ totalNodes: 4 }).pendingReason(3);
        return { code: 0, error: "" };
      } catch (e) {
        return { code: 1, error: (e as Error).message };
      }
    },
    expected: /^no job 3: no job has been created yet$/,
  },
  {
    surface: "in-process",
    input: "simulate --report with a Parquet --outfile (the report reads the schedule CSV)",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/t.csv`, "job_submit_time,num_nodes,time_limit\n0,1,1\n");
      const r = await runCli([
        "simulate",
        `${dir}/t.csv`,
        "-n",
        "2",
        "-o",
        `${dir}/s.parquet`,
        "--report",
        `${dir}/r.html`,
      ]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: --report reads the schedule CSV: it needs a CSV --outfile$/,
  },
];

/** The one table. */
export const CATALOGUE: readonly FaultRow[] = [
  ...STATE_ROWS,
  ...COMMAND_ROWS,
  ...POLICY_ROWS,
  ...SERVER_ROWS,
  ...INPUT_ROWS,
  ...REGISTRY_ROWS,
  ...USAGE_ROWS,
];

for (const row of CATALOGUE) {
  Deno.test(`fault catalogue [${row.surface}] ${row.input}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-fault-" });
    try {
      const got = await row.run(dir);
      assert(
        got.code === (row.code ?? 1),
        `exit ${got.code}, expected ${row.code ?? 1}:\n${got.error}`,
      );
      const lines = got.error.trim().split("\n").filter((l) => l.trim() !== "");
      assert(lines.length === 1, `expected one line, got ${lines.length}:\n${got.error}`);
      assert(row.expected.test(lines[0]), `${lines[0]}\n  does not match ${row.expected}`);
      assert(!/^\s{4}at /m.test(got.error), `a stack trace:\n${got.error}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("fault catalogue: every row names its surface and input once", () => {
  const names = CATALOGUE.map((r) => `${r.surface} ${r.input}`);
  assert(new Set(names).size === names.length, "two rows with the same surface and input");
});

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
const INPUT_ROWS: FaultRow[] = [];

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

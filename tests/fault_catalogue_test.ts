// The fault catalogue: one table of the mistakes and attacks evtsim must
// answer with one clear line (and no stack, no partial output), each row
// naming the surface it goes through (process, library, HTTP, gRPC), the
// input, and the line expected. A new defect class found in review gets a row
// here, so CI keeps it fixed.
//
// The table is assembled from one array per area so that work on different
// areas never edits the same lines; `CATALOGUE` below is the one table.

import { assert } from "./_assert.ts";
import { runCli, runCliProcess } from "./_cli.ts";
import { type JobRecord, type Picker, Simulation } from "../mod.ts";

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

/**
 * Runs `evtsim simulate` on two 8-node jobs (8 nodes) with admission policy
 * `name` from a policy module in `dir` whose admission is `name` with `method`.
 */
async function policyModuleRun(
  dir: string,
  name: string,
  method: string,
  process = false,
): Promise<FaultOutcome> {
  await Deno.writeTextFile(
    `${dir}/t.csv`,
    "job_submit_time,num_nodes,time_limit,actual_run_time\n0,8,100,100\n0,8,100,100\n",
  );
  await Deno.writeTextFile(
    `${dir}/p.ts`,
    `export const admissions = [{ name: "${name}", ${method} }];\n`,
  );
  const args = ["simulate", `${dir}/t.csv`, "-n", "8", "--policy_module", `${dir}/p.ts`];
  args.push("--admission", name, "-o", `${dir}/out.csv`);
  const r = process ? await runCliProcess(args) : await runCli(args);
  return { code: r.code, error: r.err.join("\n") };
}

/** Policies that misbehave (items 3, 8, 10, 14, 15). */
const POLICY_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "an admission policy writes the node count of the job it is offered",
    run: (dir) =>
      policyModuleRun(
        dir,
        "shrink",
        "runSession(s) { const j = s.next(); if (j) { j.numNodes = 1; s.dispatch(j, false); } }",
      ),
    expected: /^evtsim: policy 'shrink' failed at t=0: Cannot assign to read only property/,
  },
  {
    surface: "in-process",
    input: "an admission policy throws an Error",
    run: (dir) => policyModuleRun(dir, "boom", 'runSession() { throw new Error("boom"); }'),
    expected: /^evtsim: policy 'boom' failed at t=0: boom$/,
  },
  {
    surface: "in-process",
    input: "an admission policy throws a string",
    run: (dir) => policyModuleRun(dir, "str", 'runSession() { throw "bad thing"; }'),
    expected: /^evtsim: policy 'str' failed at t=0: bad thing$/,
  },
  {
    surface: "in-process",
    input: "an admission policy recurses without bound",
    run: (dir) =>
      policyModuleRun(dir, "deep", "runSession() { const f = (n) => f(n + 1) + 1; f(0); }"),
    expected: /^evtsim: policy 'deep' failed at t=0: Maximum call stack size exceeded$/,
  },
  {
    surface: "in-process",
    input: "an admission policy dispatches null",
    run: (dir) => policyModuleRun(dir, "nul", "runSession(s) { s.dispatch(null, false); }"),
    expected: /^evtsim: admission policy nul started null, which is not the candidate just offered/,
  },
  {
    surface: "in-process",
    input: "an admission policy dispatches the same job twice",
    run: (dir) =>
      policyModuleRun(
        dir,
        "twice",
        "runSession(s) { const j = s.next(); if (j) { s.dispatch(j, false); s.dispatch(j, false); } }",
      ),
    expected:
      /^evtsim: admission policy twice started job 0, which is not the candidate just offered/,
  },
  {
    surface: "in-process",
    input: "an async runSession",
    run: (dir) =>
      policyModuleRun(
        dir,
        "later",
        "async runSession(s) { await null; const j = s.next(); if (j) s.dispatch(j, false); }",
      ),
    expected: /^evtsim: policy 'later' returned a promise from runSession at t=0/,
  },
  {
    surface: "process",
    input: "an admission policy dispatches from a timer",
    run: (dir) =>
      policyModuleRun(
        dir,
        "timer",
        "runSession(s) { setTimeout(() => { const j = s.next(); if (j) s.dispatch(j, false); }, 0); }",
        true,
      ),
    expected: /^evtsim: policy 'timer' called next on its session of t=0 after runSession returned/,
  },
  {
    surface: "library",
    input: "a picker offers a job that has already started",
    run: () => {
      // A picker that offers its first job in every session: the second session at 0 fails.
      const once: Picker<JobRecord[]> = {
        name: "offers_again",
        init: () => [],
        onQueueUpdate: (s) => s,
        onJobPush: (s, job) => [...s, job],
        onJobStateChange: (s) => s,
        onJobUpdate: (s) => s,
        size: (s) => s.length,
        pending: (s) => s,
        beginSession: (s) => {
          let i = 0;
          return {
            nextJob: () => (i++ === 0 ? s[0] : undefined),
            onDispatch: () => {},
            onPend: () => {},
            endSession: () => s,
          };
        },
      };
      const sim = new Simulation({ totalNodes: 8, picker: once as Picker });
      sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 10 });
      try {
        sim.advanceTo(0);
        return Promise.resolve({ code: 0, error: "" });
      } catch (e) {
        return Promise.resolve({ code: 1, error: (e as Error).message });
      }
    },
    expected: /^picker offers_again offered job 0, which is not waiting \(it started at 0\)$/,
  },
  {
    surface: "in-process",
    input: "jobs held by a queue with max_running 0 are not blamed on capacity",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/t.csv`,
        "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n0,2,held,10,10\n1,2,held,10,10\n",
      );
      await Deno.writeTextFile(`${dir}/q.yaml`, "queues:\n  - name: held\n    max_running: 0\n");
      const args = ["simulate", `${dir}/t.csv`, "-n", "8", "--queues", `${dir}/q.yaml`];
      const r = await runCli([...args, "-o", `${dir}/s.csv`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /^Warning: 2 job\(s\) \(the first: job 0\) never started: held by the limits of queue held \(max_running 0\)/,
    code: 0,
  },
];

/** The server's fronts (items 5, 6, 7, 12, 13, 22). */
const SERVER_ROWS: FaultRow[] = [];

/** Oversized and malicious inputs: nesting, YAML aliases, long lines, report files (items 9, 11, 16, 23). */
const INPUT_ROWS: FaultRow[] = [];

/** Policy modules and recordings across commands (issue 27). */
const REGISTRY_ROWS: FaultRow[] = [];

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

// The fault catalogue: one table of the mistakes and attacks evtsim must
// answer with one clear line (and no stack, no partial output), each row
// naming the surface it goes through (process, library, HTTP, gRPC), the
// input, and the line expected. A new defect class found in review gets a row
// here, so CI keeps it fixed.
//
// The table is assembled from one array per area so that work on different
// areas never edits the same lines; `CATALOGUE` below is the one table.

import { initialState, loadSnapshot, saveSnapshot, step } from "../mod.ts";
import { configHash } from "../io/replay_log.ts";
import { assert } from "./_assert.ts";
import { runCli, runCliProcess } from "./_cli.ts";

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
const STATE_ROWS: FaultRow[] = [
  {
    surface: "process",
    input:
      "simulate --from_snapshot: a running job holds 100 nodes of 8 (record, end event, allocated agree)",
    run: (dir) =>
      fromSnapshot(dir, (v) => {
        v.store.records[0].numNodes = 100;
        v.events[0].numNodes = 100;
        v.allocatedNodes = 100;
      }, runCliProcess),
    expected: /bad\.json: snapshot: store\.records\[0\]\.numNodes: job 0 holds 100 nodes/,
  },
  {
    surface: "in-process",
    input: "simulate --from_snapshot: a running job has no end event",
    run: (dir) => fromSnapshot(dir, (v) => v.events.length = 0),
    expected: /bad\.json: snapshot: events: 0 end events for 1 running jobs/,
  },
  {
    surface: "library",
    input: "loadSnapshot: a negative sum of waits",
    run: () => {
      const v = runningSnapshot();
      v.stats.sumWait = -5e305;
      return Promise.resolve(thrown(() => loadSnapshot(v)));
    },
    expected: /^snapshot: stats\.sumWait: -5e\+305 is not a non-negative number/,
  },
  {
    surface: "in-process",
    input: "replay: the log's first snapshot has a negative sum of waits",
    run: async (dir) => {
      await recordLog(dir);
      await editLine(`${dir}/r.replay`, 2, (m) => m.state.stats.sumWait = -5e305);
      const r = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /r\.replay:2: snapshot: stats\.sumWait: -5e\+305/,
  },
  {
    surface: "process",
    input: "replay --verify: the header's totalNodes edited 8 -> 64, configHash left as it was",
    run: async (dir) => {
      await recordLog(dir);
      await editLine(`${dir}/r.replay`, 1, (m) => m.config.totalNodes = 64);
      const r = await runCliProcess(["replay", `${dir}/r.replay`, "--verify"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /r\.replay:1: header: configHash sha256:[0-9a-f]{64} is not the hash of the header's config/,
  },
  {
    surface: "in-process",
    input: "dump: the header's config and hash edited, its first snapshot not",
    run: async (dir) => {
      await recordLog(dir);
      await editLine(`${dir}/r.replay`, 1, (m) => {
        m.config.totalNodes = 64;
        m.configHash = configHash(m.config);
      });
      const r = await runCli(["dump", `${dir}/r.replay`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /r\.replay:2: snapshot: state\.config\.totalNodes is 8 but the header \(line 1\) says 64/,
  },
  {
    surface: "process",
    input:
      "simulate: a job whose limit is 2^53-1, then a 50 s job (it would end at ...1040, not ...1041)",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/big.csv`,
        "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
          "0,8,9007199254740991,9007199254740991\n0,8,50,50\n",
      );
      const r = await runCliProcess([
        "simulate",
        `${dir}/big.csv`,
        "-n",
        "8",
        "-o",
        `${dir}/o.csv`,
      ]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /big\.csv: job 1 \(submitted at 0 s\): .* could take times past 2\^53 - 1 s/,
  },
  {
    surface: "library",
    input: "step appendJobs: a job whose limit is 2^53-1, then a 50 s job",
    run: () =>
      Promise.resolve(thrown(() =>
        step(initialState({ totalNodes: 8 }), {
          kind: "appendJobs",
          jobs: [
            { submitTime: 0, numNodes: 8, timeLimit: 2 ** 53 - 1 },
            { submitTime: 0, numNodes: 8, timeLimit: 50 },
          ],
        })
      )),
    expected: /^job 1: from the latest input time 0 s, .* past 2\^53 - 1 s/,
  },
  {
    surface: "library",
    input: "step changeCapacity: at 2^53-20 while a 50 s job waits",
    run: () => {
      const s = step(initialState({ totalNodes: 8 }), {
        kind: "appendJobs",
        jobs: [{ submitTime: 0, numNodes: 8, timeLimit: 50 }],
      }).state;
      return Promise.resolve(
        thrown(() => step(s, { kind: "changeCapacity", capacity: 8, time: 2 ** 53 - 20 })),
      );
    },
    expected: /^changeCapacity at 9007199254740972: .* past 2\^53 - 1 s/,
  },
];

// deno-lint-ignore no-explicit-any
type Json = any;

/** A snapshot's JSON at t=5 of an 8-node run: job 0 runs on 4 nodes, job 1 (8 nodes) waits. */
function runningSnapshot(): Json {
  let s = initialState({ totalNodes: 8 });
  s = step(s, {
    kind: "appendJobs",
    jobs: [
      { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 100 },
      { submitTime: 0, numNodes: 8, timeLimit: 100, actualRunTime: 50 },
    ],
  }).state;
  return JSON.parse(JSON.stringify(saveSnapshot(step(s, { kind: "advanceTo", time: 5 }).state)));
}

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n0,4,100,100\n0,8,100,50\n";

/** `simulate TRACE --from_snapshot bad.json` with the running snapshot changed by `edit`. */
async function fromSnapshot(
  dir: string,
  edit: (v: Json) => void,
  run: (args: string[]) => Promise<{ code: number; err: string[] }> = runCli,
): Promise<FaultOutcome> {
  const v = runningSnapshot();
  edit(v);
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify(v));
  const r = await run([
    "simulate",
    `${dir}/t.csv`,
    "--from_snapshot",
    `${dir}/bad.json`,
    "-o",
    `${dir}/out.csv`,
  ]);
  return { code: r.code, error: r.err.join("\n") };
}

/** Records `dir/r.replay` of the small trace. */
async function recordLog(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  const r = await runCli([
    "simulate",
    `${dir}/t.csv`,
    "-n",
    "8",
    "-o",
    `${dir}/out.csv`,
    "--record",
    `${dir}/r.replay`,
  ]);
  assert(r.code === 0, r.err.join("\n"));
}

/** Changes the JSON message on line `n` (1-based) of a log. */
async function editLine(path: string, n: number, edit: (m: Json) => void): Promise<void> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const m = JSON.parse(lines[n - 1]);
  edit(m);
  lines[n - 1] = JSON.stringify(m);
  await Deno.writeTextFile(path, lines.join("\n"));
}

/** What a library call threw. */
function thrown(f: () => unknown): FaultOutcome {
  try {
    f();
  } catch (e) {
    return { code: 1, error: (e as Error).message };
  }
  return { code: 0, error: "" };
}

/** Outputs that would overwrite inputs, folders, interrupts, sweeps (items 2, 4, 17, 18, 21). */
const COMMAND_ROWS: FaultRow[] = [];

/** Policies that misbehave (items 3, 8, 10, 14, 15). */
const POLICY_ROWS: FaultRow[] = [];

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

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
import { altEvents, tinyLog } from "./_replay_fault_logs.ts";

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
  {
    surface: "in-process",
    input: "replay --alt_events with an event of an unknown kind",
    run: async (dir) => {
      const { log, alt } = await altEvents(dir, { kind: "cancelJobs", id: 1 });
      const r = await runCli(["replay", log, "--alt_events", alt]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /alt\.replay:4: event: input\.kind: expected one of appendJobs, submitJob, .*, changeCapacity$/,
  },
  {
    surface: "in-process",
    input: "replay --alt_events with a field of the wrong type",
    run: async (dir) => {
      const { log, alt } = await altEvents(dir, {
        kind: "updateQueue",
        queue: { name: "a", priority: "high" },
      });
      const r = await runCli(["replay", log, "--alt_events", alt]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /alt\.replay:4: event: input\.queue\.priority: expected number, received string$/,
  },
  {
    surface: "in-process",
    input: "replay --alt_events with an end outcome it does not know",
    run: async (dir) => {
      const { log, alt } = await altEvents(dir, { kind: "endJob", id: 0, outcome: "exploded" });
      const r = await runCli(["replay", log, "--alt_events", alt]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /alt\.replay:4: event: input\.outcome: expected one of "completed"\|"failed"\|"killed"$/,
  },
  {
    surface: "in-process",
    input: "replay what-if with --speed",
    run: async (dir) => {
      const log = await tinyLog(dir);
      const r = await runCli(["replay", log, "--picker", "sjf", "--speed", "10"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /--speed paces a replay; a what-if runs as fast as it can$/,
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

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

// Item 21: a folder where a file is expected, for every command's file
// arguments; the one line names the folder.
const DEMO = new URL("../examples/demo_trace.csv", import.meta.url).pathname;
const inProcess = async (args: string[]): Promise<FaultOutcome> => {
  const r = await runCli(args);
  return { code: r.code, error: r.err.join("\n") };
};
for (
  const [what, args] of [
    ["simulate TRACE", (d: string) => ["simulate", `${d}/F`]],
    ["simulate --infile_list", (d: string) => ["simulate", "--infile_list", `${d}/F`]],
    ["simulate --queues", (d: string) => ["simulate", DEMO, "-n", "128", "--queues", `${d}/F`]],
    ["simulate -c", (d: string) => ["simulate", DEMO, "-c", `${d}/F`]],
    ["simulate --from_snapshot", (d: string) => ["simulate", DEMO, "--from_snapshot", `${d}/F`]],
    ["simulate --stats_json", (d: string) => ["simulate", DEMO, "--stats_json", `${d}/F`]],
    ["replay LOG", (d: string) => ["replay", `${d}/F`]],
    ["replay --alt_events", (d: string) => ["replay", `${d}/log`, "--alt_events", `${d}/F`]],
    ["replay --output", (d: string) => ["replay", `${d}/log`, "-o", `${d}/F`]],
    ["dump LOG", (d: string) => ["dump", `${d}/F`]],
    ["compare TRACE", (d: string) => ["compare", `${d}/F`]],
    ["compare --report", (d: string) => ["compare", DEMO, "--report", `${d}/F`]],
    ["report RUN", (d: string) => ["report", `${d}/F`, "--out", `${d}/r.html`]],
    ["report RUN,RESOURCES", (d: string) => ["report", `${d}/run,${d}/F`, "--out", `${d}/r.html`]],
    ["report --out", (d: string) => ["report", DEMO, "--out", `${d}/F`]],
    ["sweep SPEC", (d: string) => ["sweep", `${d}/F`]],
    ["sweep-cell SPEC", (d: string) => ["sweep-cell", `${d}/F`, "--cell", "0", "--results", d]],
  ] as const
) {
  COMMAND_ROWS.push({
    surface: "in-process",
    input: `${what} given a folder`,
    run: (d) => {
      Deno.mkdirSync(`${d}/F`);
      Deno.writeTextFileSync(`${d}/log`, "");
      Deno.writeTextFileSync(
        `${d}/run`,
        "job_submit_time,begin_time,end_time,num_nodes,exit_status\n0,0,10,1,0\n",
      );
      return inProcess([...args(d)]);
    },
    expected: /\/F\b.*(it is a folder|is a folder|a directory)/i,
  });
}

// Item 17: a grid over the cell limit, refused with its count before it is planned.
COMMAND_ROWS.push({
  surface: "process",
  input: "sweep of 1,000,000 cells",
  run: async (d) => {
    Deno.copyFileSync(DEMO, `${d}/t.csv`);
    const many = (n: number) => `[${Array.from({ length: n }, (_, i) => i + 1).join(", ")}]`;
    Deno.writeTextFileSync(
      `${d}/s.yaml`,
      `traces: [t.csv]\ntotal_nodes: ${many(1000)}\nseeds: ${many(1000)}\n`,
    );
    const r = await runCliProcess(["sweep", `${d}/s.yaml`, "--results", `${d}/res`]);
    return { code: r.code, error: r.err.join("\n") };
  },
  expected: /s\.yaml: the sweep has 1000000 cells .* more than --max_cells 100000/,
});

// Item 2: an output that is an input, one row per command (the property in
// tests/output_rule_test.ts covers every command, input and output option).
for (
  const [what, args] of [
    ["replay LOG -o LOG", (d: string) => ["replay", `${d}/in`, "-o", `${d}/in`]],
    [
      "replay A --alt_events B -o B",
      (d: string) => ["replay", `${d}/log`, "--alt_events", `${d}/in`, "-o", `${d}/in`],
    ],
    [
      "simulate --from_snapshot F -o F",
      (d: string) => ["simulate", DEMO, "--from_snapshot", `${d}/in`, "-o", `${d}/in`],
    ],
    ["compare TRACE --report TRACE", (d: string) => ["compare", `${d}/in`, "--report", `${d}/in`]],
    ["report RUN.csv --out RUN.csv", (d: string) => ["report", `${d}/in`, "--out", `${d}/in`]],
  ] as const
) {
  COMMAND_ROWS.push({
    surface: "in-process",
    input: what,
    run: async (d) => {
      Deno.writeTextFileSync(`${d}/in`, "precious\n");
      Deno.writeTextFileSync(`${d}/log`, "");
      const got = await inProcess([...args(d)]);
      const kept = Deno.readTextFileSync(`${d}/in`) === "precious\n";
      return kept ? got : { code: 0, error: `the input was overwritten: ${got.error}` };
    },
    expected: /\/in is .*\(.*\/in\); refusing to overwrite an input/,
  });
}

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

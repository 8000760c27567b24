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
import { GrpcSession, HttpClient, withServer } from "./_service_helpers.ts";

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
const SERVER_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "serve --grpc_port on a busy port",
    run: async () => {
      const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const port = String((busy.addr as Deno.NetAddr).port);
        const r = await runCli(["serve", "--port", "0", "--grpc_port", port]);
        return { code: r.code, error: r.err.join("\n") };
      } finally {
        busy.close();
      }
    },
    expected: /cannot listen on 127\.0\.0\.1:\d+ \(gRPC\): the port is in use/,
  },
  {
    surface: "in-process",
    input: "serve --host 127.999.0.1",
    run: async () => {
      const r = await runCli(["serve", "--host", "127.999.0.1", "--port", "0"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /--host 127\.999\.0\.1 is not an IPv4 address/,
  },
  {
    surface: "in-process",
    input: "serve --policy_module that exports no policy",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/none.ts`, "export const x = 1;\n");
      const r = await runCli(["serve", "--port", "0", "--policy_module", `${dir}/none.ts`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /none\.ts: exports no picker and no admission policy/,
  },
  {
    surface: "http",
    input: "a call over --call_time_limit",
    run: () =>
      withServer({ grpcPort: undefined, callTimeLimit: 0.05 }, async (_s, api) => {
        const { sessionId } = await api.ok("POST", "/sessions", {
          totalNodes: 64,
          backfillPolicy: "conservative",
          decisions: true,
        });
        const jobs = Array.from({ length: 5000 }, (_, i) => ({
          submitTime: i,
          numNodes: 1 + (i * 37) % 64,
          timeLimit: 100 + (i * 7919) % 20000,
        }));
        // On a loaded machine the append may already run over the budget: either call does.
        const a = await api.send("POST", `/sessions/${sessionId}/jobs`, { jobs });
        const r = a.status !== 200
          ? a
          : await api.send("POST", `/sessions/${sessionId}/finish`, {});
        return { code: r.status, error: r.body.error };
      }),
    expected: /^the call ran over the session's time budget \(--call_time_limit 0\.05 s\)/,
    code: 503,
  },
  {
    surface: "http",
    input: "GET /sessions without the token",
    run: () =>
      withServer({ grpcPort: undefined, token: "catalogue-token" }, async (_s, api) => {
        const r = await new HttpClient(api.base).send("GET", "/sessions");
        return { code: r.status, error: r.body.error };
      }),
    expected: /^missing or wrong token$/,
    code: 401,
  },
  {
    surface: "grpc",
    input: "a request on a stream whose session was deleted over HTTP",
    run: () =>
      withServer({}, async (server, api) => {
        const g = new GrpcSession(server.grpcPort!);
        try {
          const id = (await g.ok({ init: { total_nodes: 4, session_name: "a" } })).session_id;
          await api.ok("DELETE", `/sessions/${id}`);
          const r = await g.request({ advance_to: { target_time: 1 } });
          return { code: 1, error: r.error.message };
        } finally {
          await g.close();
        }
      }),
    expected: /^session '[0-9a-f]{32}' is gone \(deleted, expired or over its budget\): send init/,
  },
];

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

// The fault catalogue: one table of the mistakes and attacks evtsim must
// answer with one clear line (and no stack, no partial output), each row
// naming the surface it goes through (process, library, HTTP, gRPC), the
// input, and the line expected. A new defect class found in review gets a row
// here, so CI keeps it fixed.
//
// The table is assembled from one array per area so that work on different
// areas never edits the same lines; `CATALOGUE` below is the one table.

import {
  initialState,
  type JobRecord,
  loadSnapshot,
  type Picker,
  saveSnapshot,
  Simulation,
  step,
} from "../../mod.ts";
import { configHash } from "../../io/replay_log.ts";
import { assert } from "../_assert.ts";
import { runCli, runCliProcess } from "../_cli.ts";
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
} from "../_input_faults.ts";
import { readTraceStream } from "../../io/mod.ts";
import { altEvents, tinyLog } from "../_replay_fault_logs.ts";
import { WARM_ROWS } from "../_fault_rows_p-warm.ts";
import { GrpcSession, HttpClient, withServer } from "../_service_helpers.ts";
import { MACHINE_ROWS } from "../_fault_rows_m-machine.ts";
import { METRICS_ROWS } from "../_fault_rows_r-metrics.ts";
import { EASY_ROWS } from "../_fault_rows_m-easy.ts";
import { ALLOC_ROWS } from "../_fault_rows_m-alloc.ts";
import { M_CONS_ROWS } from "../_fault_rows_m-cons.ts";
import { RECORD_ROWS } from "../_fault_rows_m-record.ts";
import { GANTT_ROWS } from "../_fault_rows_r-gantt.ts";
import { SERVE_MACHINE_ROWS } from "../_fault_rows_m-serve.ts";
import { FRONTS_ROWS } from "../_fault_rows_m-fronts.ts";
import { LIVE_ROWS } from "../_fault_rows_m-live.ts";
import { H_GAPS_ROWS } from "../_fault_rows_h_gaps.ts";
import { FAIL_ROWS } from "../_fault_rows_fail.ts";
import { REDIS_ROWS } from "../_fault_rows_redis.ts";
import { EXT_ROWS } from "../_fault_rows_ext.ts";
import { PREEMPT_ROWS } from "../_fault_rows_preempt.ts";
import { GRPCF_ROWS } from "../_fault_rows_grpcf.ts";
import { CAP_ROWS } from "../_fault_rows_cap.ts";
import { GRACE_ROWS } from "../_fault_rows_grace.ts";

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
  // Issue 28 item 5: the capacity-change options are checked like the others.
  {
    surface: "library",
    input: "onCapacityCut that is neither drain nor kill",
    run: () =>
      Promise.resolve(
        library(() =>
          new Simulation({ totalNodes: 8, onCapacityCut: "preempt" as unknown as "kill" })
        ),
      ),
    expected: /^unknown on capacity cut 'preempt' \(expected drain, kill\)$/,
  },
  {
    surface: "in-process",
    input: "simulate --capacity_semantics that is neither evtsim nor drevt",
    run: (dir) => {
      Deno.writeTextFileSync(`${dir}/t.csv`, "job_submit_time,num_nodes,time_limit\n0,1,10\n");
      return cli(["simulate", `${dir}/t.csv`, "-n", "4", "--capacity_semantics", "dr_evt"]);
    },
    expected:
      /^evtsim: --capacity_semantics: unknown value 'dr_evt' \(expected evtsim, drevt\); did you mean 'drevt'\?$/,
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

// Item 21: a folder where a file is expected, for every command's file
// arguments; the one line names the folder.
const DEMO = new URL("../../examples/demo_trace.csv", import.meta.url).pathname;
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
    run: async (d) => {
      Deno.mkdirSync(`${d}/F`);
      Deno.writeTextFileSync(`${d}/log`, "");
      // The alternative events are read once the log has been: a real one.
      if (what === "replay --alt_events") await Deno.copyFile(await tinyLog(d), `${d}/log`);
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
// tests/io/output_rule_test.ts covers every command, input and output option).
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

// Issue 29 item 4: a results folder of the old format (cells in id order).
COMMAND_ROWS.push({
  surface: "in-process",
  input: "sweep into a results folder written by an older evtsim",
  run: async (d) => {
    Deno.copyFileSync(DEMO, `${d}/t.csv`);
    Deno.writeTextFileSync(`${d}/s.yaml`, "traces: [t.csv]\n");
    Deno.mkdirSync(`${d}/res`);
    Deno.writeTextFileSync(`${d}/res/sweep.json`, '{"evtsim_sweep": 1, "cells": []}\n');
    return await inProcess(["sweep", `${d}/s.yaml`, "--results", `${d}/res`]);
  },
  expected: /res\/sweep\.json: written by an older evtsim .*another --results folder$/,
});

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
  {
    surface: "in-process",
    input: "serve --spare_workers 1.5",
    run: async () => {
      const r = await runCli(["serve", "--port", "0", "--spare_workers", "1.5"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /--spare_workers must be an integer >= 0, got 1\.5/,
  },
];

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
  // Issue 28 item 2: Slurm accounting exports (sacct --parsable2).
  {
    surface: "in-process",
    input: "simulate on a sacct export whose header has no NNodes column",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/j.psv`, "JobID|Submit|Start|End|Timelimit\n");
      return await cli(["simulate", `${dir}/j.psv`, "-n", "8", "-o", `${dir}/o.csv`]);
    },
    expected: /j\.psv:1: header: expected the columns JobID, .* missing NNodes$/,
  },
  {
    surface: "in-process",
    input: "simulate on a sacct export with NNodes 'two'",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/j.psv`,
        "JobID|Submit|Start|End|Timelimit|NNodes\n" +
          "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|two\n",
      );
      return await cli(["simulate", `${dir}/j.psv`, "-n", "8", "-o", `${dir}/o.csv`]);
    },
    expected: /j\.psv:2: NNodes: expected a whole number of nodes ≥ 1, got 'two'$/,
  },
  {
    surface: "process",
    input: "simulate on a sacct export whose End is before its Start",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/j.psv`,
        "JobID|Submit|Start|End|Timelimit|NNodes\n" +
          "1|2024-01-01T00:00:00|2024-01-01T00:05:00|2024-01-01T00:01:00|10:00|1\n",
      );
      return await cliProcess(["simulate", `${dir}/j.psv`, "-n", "8", "-o", `${dir}/o.csv`]);
    },
    expected: /j\.psv:2: End: expected a time at or after Start \(2024-01-01T00:05:00\), got/,
  },
  {
    surface: "in-process",
    input: "compare on a sacct export with Timelimit '1h'",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/j.psv`,
        "JobID|Submit|Start|End|Timelimit|NNodes\n" +
          "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|1h|1\n",
      );
      return await cli(["compare", `${dir}/j.psv`, "-n", "8", "--policies", "none,easy"]);
    },
    expected:
      /j\.psv:2: Timelimit: expected \[D-\]HH:MM:SS, MM:SS, UNLIMITED or Partition_Limit, got '1h'$/,
  },
  {
    surface: "library",
    input: "parseSacct of an export naming one JobID twice",
    run: async () => {
      const { parseSacct } = await import("../../io/mod.ts");
      const line = "7_1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1\n";
      return library(() =>
        parseSacct("JobID|Submit|Start|End|Timelimit|NNodes\n" + line + line, "j.psv")
      );
    },
    expected: /^j\.psv:3: JobID: expected each job once, got '7_1' again \(line 2\)$/,
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
      const { resimulate } = await import("../../mod.ts");
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
      const { Simulation } = await import("../../mod.ts");
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
    input: "replay --alt_events with an event of an unknown kind",
    run: async (dir) => {
      const { log, alt } = await altEvents(dir, { kind: "cancelJobs", id: 1 });
      const r = await runCli(["replay", log, "--alt_events", alt]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /alt\.replay:4: event: input\.kind: expected one of appendJobs, submitJob, .*, changeCapacity, changeNodes$/,
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
  ...MACHINE_ROWS,
  ...METRICS_ROWS,
  ...EASY_ROWS,
  ...ALLOC_ROWS,
  ...RECORD_ROWS,
  ...WARM_ROWS,
  ...M_CONS_ROWS,
  ...GANTT_ROWS,
  ...SERVE_MACHINE_ROWS,
  ...FRONTS_ROWS,
  ...LIVE_ROWS,
  ...H_GAPS_ROWS,
  ...FAIL_ROWS,
  ...GRACE_ROWS,
  ...REDIS_ROWS,
  ...EXT_ROWS,
  ...PREEMPT_ROWS,
  ...GRPCF_ROWS,
  ...CAP_ROWS,
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

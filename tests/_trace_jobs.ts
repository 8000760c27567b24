// A CSV trace's rows as the jobs a serve front takes, for tests that feed the
// same jobs to `serve` and to `simulate`: HTTP's request names or gRPC's
// JobAppendData names (empty cells left out); and the options a trace is
// loaded with by default.

import type { LoadOptions } from "../cli/load.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const TEXT_FIELDS = new Set(["memory", "partition", "user"]);

function rowsAsJobs(text: string, rename: Record<string, string>): Json[] {
  const [header, ...rows] = text.trim().split("\n");
  const names = header.split(",");
  return rows.map((row) => {
    const job: Json = {};
    row.split(",").forEach((v, k) => {
      if (v === "") return;
      const column = names[k];
      job[rename[column] ?? column] = TEXT_FIELDS.has(column) ? v : Number(v);
    });
    return job;
  });
}

/** Each row as an HTTP job (`submitTime`, `numNodes`, `numCores`, ...). */
export function httpJobs(text: string): Json[] {
  return rowsAsJobs(text, {
    job_submit_time: "submitTime",
    num_nodes: "numNodes",
    time_limit: "timeLimit",
    actual_run_time: "actualRunTime",
    num_cores: "numCores",
  });
}

/** Each row as gRPC's JobAppendData (the proto's names). */
export function grpcJobs(text: string): Json[] {
  return rowsAsJobs(text, { job_submit_time: "submit_time", time_limit: "limit_time" });
}

/** Orders schedule rows `[id, start, end]` (or any number triples) by their fields. */
export const byTimes = (a: number[], b: number[]): number =>
  a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** `loadInput`'s options as `simulate`'s defaults give them, for a CSV trace. */
export const LOAD_DEFAULTS: LoadOptions = {
  format: "simple",
  timezone: "UTC",
  maxJobs: 0,
  runTimeMode: "actual",
  swfUnit: "procs",
  swfReplayWait: false,
  requireSorted: false,
};

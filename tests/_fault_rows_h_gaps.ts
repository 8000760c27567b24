// Fault rows of machine-model features in every front (issue 28, h-gaps):
// gRPC's change_capacity and the init fields it depends on.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { ROOT, runCli } from "./_cli.ts";
import { GrpcSession, withServer } from "./_service_helpers.ts";
import { readMachine } from "../io/machine_file.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;

/** One gRPC request after an init (`request` undefined: the init's reply), on a machine server or not. */
async function grpcReply(
  init: Record<string, unknown>,
  request?: Record<string, unknown>,
  machine = true,
) {
  const options = machine ? { machine: await readMachine(MACHINE) } : {};
  return await withServer({ ...options, port: 0 }, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      let r = await g.request({
        init: { session_name: "f", total_nodes: machine ? 0 : 4, ...init },
      });
      if (request !== undefined && r.response !== "error") r = await g.request(request);
      return { code: r.response === "error" ? 1 : 0, error: r.error?.message ?? "" };
    } finally {
      await g.close();
    }
  });
}

/** `evtsim report` of a machine run (gpu_trace.csv) with the stats JSON of a run of `trace` with `statsArgs`. */
async function reportWithStats(
  dir: string,
  trace: string,
  statsArgs: string[],
  reportArgs: string[] = [],
) {
  const sim = await runCli([
    "simulate",
    `${ROOT}examples/gpu_trace.csv`,
    "--machine",
    MACHINE,
    "-o",
    `${dir}/m.csv`,
    "--no_progress",
  ]);
  if (sim.code !== 0) return { code: -1, error: sim.err.join("\n") };
  const stats = await runCli([
    "simulate",
    `${ROOT}examples/${trace}`,
    "-o",
    `${dir}/w.csv`,
    "--stats_json",
    `${dir}/s.json`,
    "--no_progress",
    ...statsArgs,
  ]);
  if (stats.code !== 0) return { code: -1, error: stats.err.join("\n") };
  const r = await runCli([
    "report",
    `${dir}/m.csv,${dir}/s.json`,
    "--out",
    `${dir}/r.html`,
    ...reportArgs,
  ]);
  return { code: r.code, error: r.err.join("\n") };
}

export const H_GAPS_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "report RUN,STATS.json: a stats JSON without machine figures (a whole-node run's)",
    run: (dir) => reportWithStats(dir, "demo_trace.csv", ["-n", "128"]),
    expected: /s\.json: no machine figures \(resources\): the stats JSON of a run with --machine/,
  },
  {
    surface: "in-process",
    input: "report RUN,STATS.json: the stats JSON of another machine run (other jobs)",
    run: (dir) => reportWithStats(dir, "slurm_sacct.psv", ["--machine", MACHINE]),
    expected:
      /s\.json: its run measured \d+ jobs, the schedule 10: the stats JSON of another run\?$/,
  },
  {
    surface: "in-process",
    input: "report RUN,STATS.json: machine figures measured with another --measure_window",
    run: (dir) =>
      reportWithStats(
        dir,
        "gpu_trace.csv",
        ["--machine", MACHINE, "--measure_window", "0:5000"],
        ["--measure_window", "0:6000"],
      ),
    expected:
      /s\.json: its machine figures were measured with --measure_window 0:5000 and no --trim: give the report the same$/,
  },
  {
    surface: "in-process",
    input: "report RUN: a per-resource column of the resource CSV that is not a count",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/s.csv`,
        "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit\n0,0,10,0,0,10\n",
      );
      await Deno.writeTextFile(
        `${dir}/s_resources.csv`,
        "time,free_nodes,allocated_nodes,cores_free,cores_used\n0,2,0,60,4\n10,2,0,64,-4\n",
      );
      const r = await runCli(["report", `${dir}/s.csv`, "--out", `${dir}/r.html`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /s_resources\.csv:3: cores_used: expected a whole number of at least 0, got '-4'$/,
  },
  {
    surface: "grpc",
    input: "change_capacity: a node name the --machine lacks",
    run: () => grpcReply({}, { change_capacity: { down: ["gpu9"] } }),
    expected:
      /^down: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu9'$/,
  },
  {
    surface: "grpc",
    input: "change_capacity: a node count and names at once",
    run: () => grpcReply({}, { change_capacity: { capacity: 2, up: ["gpu"] } }),
    expected: /^give either capacity \(a node count\) or down\/up \(node or group names/,
  },
  {
    surface: "grpc",
    input: "change_capacity: node names on a whole-node session",
    run: () => grpcReply({}, { change_capacity: { down: ["n1"] } }, false),
    expected: /^down, up: name nodes of a machine \(a server started with --machine\)/,
  },
  {
    surface: "grpc",
    input: "init: on_capacity_cut neither drain nor kill",
    run: () => grpcReply({ on_capacity_cut: "melt" }),
    expected: /^on_capacity_cut must be one of drain, kill, got 'melt'$/,
  },
];

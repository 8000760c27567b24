// Fault catalogue rows of recorded and snapshotted machine runs (--machine
// with --record, --from_snapshot, replay): each a one-line error, exit 1.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli } from "./_input_faults.ts";

const MACHINE = "groups:\n  - name: cpu\n    count: 2\n    resources: { cores: 8 }\n";
const OTHER = MACHINE.replace("count: 2", "count: 3");
const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores\n0,1,60,30,4\n";

// A recording of a run of TRACE (on M when `machine`), written to dir/r.replay.
async function recorded(dir: string, machine: boolean): Promise<void> {
  await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE);
  await Deno.writeTextFile(`${dir}/other.yaml`, OTHER);
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  const { code } = await cli([
    "simulate",
    `${dir}/t.csv`,
    ...(machine ? ["--machine", `${dir}/m.yaml`] : ["-n", "2"]),
    "-b",
    "none",
    "--record",
    `${dir}/r.replay`,
    "-o",
    `${dir}/first.csv`,
  ]);
  if (code !== 0) throw new Error("the recording failed");
}

const continued = (dir: string, ...machine: string[]) =>
  cli([
    "simulate",
    `${dir}/t.csv`,
    ...machine,
    "--from_snapshot",
    `${dir}/r.replay`,
    "-o",
    `${dir}/o.csv`,
  ]);

// simulate TRACE --machine M --capacity_schedule C (the schedule `schedule`).
async function withSchedule(dir: string, schedule: string, ...more: string[]) {
  await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE);
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  await Deno.writeTextFile(`${dir}/c.csv`, schedule);
  return cli([
    "simulate",
    `${dir}/t.csv`,
    "--machine",
    `${dir}/m.yaml`,
    "--capacity_schedule",
    `${dir}/c.csv`,
    ...more,
    "-o",
    `${dir}/o.csv`,
  ]);
}

/** Machine runs recorded and continued from snapshots, and their capacity changes (issue 28 items 5, 6). */
export const RECORD_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "--machine --capacity_schedule naming a node the machine does not have",
    run: (dir) => withSchedule(dir, "time,nodes,state\n0,cpu001,down\n10,gpu001,down\n"),
    expected:
      /c\.csv:3: nodes: expected a node or group of the machine \(groups: cpu\), got 'gpu001'$/,
  },
  {
    surface: "in-process",
    input: "--machine --capacity_schedule with a state other than down or up",
    run: (dir) => withSchedule(dir, "time,nodes,state\n0,cpu,off\n"),
    expected: /c\.csv:2: state: expected down or up, got 'off'$/,
  },
  {
    surface: "in-process",
    input: "--machine --capacity_schedule in the whole-node form (time,capacity)",
    run: (dir) => withSchedule(dir, "time,capacity\n0,1\n"),
    expected:
      /c\.csv:1: expected the header 'time,nodes,state' \(a schedule of nodes going down and up, with --machine\)$/,
  },
  {
    surface: "in-process",
    input: "--machine --capacity_schedule with --capacity_semantics drevt",
    run: (dir) =>
      withSchedule(dir, "time,nodes,state\n0,cpu,down\n", "--capacity_semantics", "drevt"),
    expected:
      /^evtsim: --machine cannot be used with --capacity_semantics drevt \(DR_EVT's rules count whole nodes\)$/,
  },
  {
    surface: "in-process",
    input: "--from_snapshot of a machine run without --machine",
    run: async (dir) => {
      await recorded(dir, true);
      return continued(dir);
    },
    expected: /r\.replay: the snapshot is of a machine run: give its machine file with --machine$/,
  },
  {
    surface: "in-process",
    input: "--machine with --from_snapshot of a whole-node run",
    run: async (dir) => {
      await recorded(dir, false);
      return continued(dir, "--machine", `${dir}/m.yaml`);
    },
    expected: /r\.replay: --machine: the snapshot is of a run without a machine$/,
  },
  {
    surface: "in-process",
    input: "--machine with --from_snapshot of a run on another machine",
    run: async (dir) => {
      await recorded(dir, true);
      return continued(dir, "--machine", `${dir}/other.yaml`);
    },
    expected:
      /r\.replay: --machine: the machine file's nodes are not those of the snapshot's machine$/,
  },
];

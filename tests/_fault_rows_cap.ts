// Fault rows of the power model (issue 30 item 3, docs/power.md): a bad
// --power_cap_schedule file (header, fields, watts, order), bad watts on the
// command line, power options where they do not apply (--machine, a schedule
// replay), the library's bad cap, schedule, node watts and job power, and
// serve's (HTTP and gRPC): one line each, exit 1 (400), nothing written.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, grpcInit, httpCreate, library } from "./_input_faults.ts";
import { ROOT } from "./_cli.ts";
import { Simulation, topologyCluster } from "../mod.ts";

const TRACE = `${ROOT}examples/demo_trace.csv`;

// simulate the demo trace with `extra`, the schedule file `schedule` (dir/cap.csv) if given.
async function run(dir: string, extra: string[], schedule?: string) {
  if (schedule !== undefined) await Deno.writeTextFile(`${dir}/cap.csv`, schedule);
  const out = await cli([
    "simulate",
    TRACE,
    ...extra,
    ...(schedule === undefined ? [] : ["--power_cap_schedule", `${dir}/cap.csv`]),
    "-o",
    `${dir}/out.csv`,
  ]);
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "cap.csv");
  return left.length === 0 ? out : { code: 98, error: `left behind: ${left.join(", ")}` };
}

const N = ["-n", "128"];

/** The power model: schedule files, options, the library, serve. */
export const CAP_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: a header other than time,watts",
    run: (dir) => run(dir, N, "time,power\n0,100\n"),
    expected: /cap\.csv:1: expected the header 'time,watts'$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: a row of three fields",
    run: (dir) => run(dir, N, "time,watts\n0,100\n10,200,3\n"),
    expected: /cap\.csv:3: expected 2 fields \(time,watts\), got 3$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: negative watts",
    run: (dir) => run(dir, N, "time,watts\n0,-5\n"),
    expected: /cap\.csv:2: watts: expected a non-negative number of watts, got '-5'$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: watts that are not a number",
    run: (dir) => run(dir, N, "time,watts\n0,lots\n"),
    expected: /cap\.csv:2: watts: expected a non-negative number of watts, got 'lots'$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: times going back",
    run: (dir) => run(dir, N, "time,watts\n100,5\n50,6\n"),
    expected: /cap\.csv:3: time: times must be non-decreasing$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: a bad time",
    run: (dir) => run(dir, N, "time,watts\nsoon,5\n"),
    expected: /cap\.csv:2: time: .+$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap_schedule: a file that does not exist",
    run: (dir) => run(dir, [...N, "--power_cap_schedule", `${dir}/none.csv`]),
    expected: /none\.csv: cannot read: .+$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap -1",
    run: (dir) => run(dir, [...N, "--power_cap", "-1"]),
    expected: /--power_cap: must be >= 0, got -1$/,
  },
  {
    surface: "in-process",
    input: "simulate --busy_watts abc",
    run: (dir) => run(dir, [...N, "--busy_watts", "abc"]),
    expected: /--busy_watts: expects a number, got 'abc'$/,
  },
  {
    surface: "in-process",
    input: "simulate --idle_watts with --machine",
    run: (dir) => run(dir, ["--machine", `${ROOT}examples/gpu_machine.yaml`, "--idle_watts", "50"]),
    expected:
      /--idle_watts cannot be used with --machine: give idle_watts and busy_watts per group in the machine file$/,
  },
  {
    surface: "in-process",
    input: "simulate --machine: a group with busy_watts -5",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/cap.csv`,
        "groups:\n  - name: a\n    count: 2\n    resources: { cores: 4 }\n    busy_watts: -5\n",
      );
      return run(dir, ["--machine", `${dir}/cap.csv`]);
    },
    expected: /cap\.csv:5: groups\.0\.busy_watts: expected a non-negative number of watts$/,
  },
  {
    surface: "library",
    input: "Simulation: node watts that do not cover the resource model's nodes",
    run: () =>
      Promise.resolve(library(() =>
        new Simulation({
          totalNodes: 1,
          resourceModel: topologyCluster([{ name: "a1", capacity: { cores: 4 } }]),
          nodeWatts: [{ nodes: 2, idleWatts: 1, busyWatts: 2 }],
        })
      )),
    expected: /^node watts cover 2 nodes, but the resource model has 1$/,
  },
  {
    surface: "library",
    input: "Simulation: node watts without a resource model",
    run: () =>
      Promise.resolve(
        library(() =>
          new Simulation({ totalNodes: 1, nodeWatts: [{ nodes: 1, idleWatts: 1, busyWatts: 2 }] })
        ),
      ),
    expected: /^node watts need a resource model that lists its nodes and their allocations$/,
  },
  {
    surface: "in-process",
    input: "simulate --power_cap on a schedule replay trace",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/cap.csv`,
        "job_submit_time,num_nodes,time_limit,begin_time,end_time\n0,1,10,0,5\n",
      );
      const out = await cli([
        "simulate",
        `${dir}/cap.csv`,
        "-n",
        "4",
        "--power_cap",
        "10",
        "-o",
        `${dir}/out.csv`,
      ]);
      const left = [...Deno.readDirSync(dir)].filter((e) => e.name !== "cap.csv");
      return left.length === 0 ? out : { code: 98, error: "left behind" };
    },
    expected: /--power_cap needs a simulation trace: .+$/,
  },
  {
    surface: "library",
    input: "Simulation: powerCap NaN",
    run: () => Promise.resolve(library(() => new Simulation({ totalNodes: 2, powerCap: NaN }))),
    expected: /^power cap must be a non-negative number of watts of at most 2\^53 - 1, got NaN$/,
  },
  {
    surface: "library",
    input: "Simulation: a power cap schedule going back in time",
    run: () =>
      Promise.resolve(library(() =>
        new Simulation({
          totalNodes: 2,
          powerCapSchedule: [{ time: 10, watts: 5 }, { time: 5, watts: 6 }],
        })
      )),
    expected: /^power cap change 1: times must be non-decreasing$/,
  },
  {
    surface: "library",
    input: "Simulation: idleWatts -3",
    run: () => Promise.resolve(library(() => new Simulation({ totalNodes: 2, idleWatts: -3 }))),
    expected: /^idle watts must be a non-negative number of watts of at most 2\^53 - 1, got -3$/,
  },
  {
    surface: "library",
    input: "Simulation: a job with power -1",
    run: () =>
      Promise.resolve(library(() => {
        const sim = new Simulation({ totalNodes: 2, powerCap: 10 });
        sim.appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 5, power: -1 }]);
      })),
    expected: /^job 0: power must be a non-negative number of watts of at most 2\^53 - 1, got -1$/,
  },
  {
    surface: "http",
    input: "serve: a session with powerCap -1",
    run: () => httpCreate({ totalNodes: 4, powerCap: -1 }),
    expected: /^powerCap: Too small: expected number to be >=0$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: a power cap schedule going back in time",
    run: () =>
      httpCreate({
        totalNodes: 4,
        powerCapSchedule: [{ time: 10, watts: 5 }, { time: 5, watts: 6 }],
      }),
    expected: /^power cap change 1: times must be non-decreasing$/,
    code: 400,
  },
  {
    surface: "grpc",
    input: "serve: init with power_cap_schedule_json that is not a list",
    run: () => grpcInit({ power_cap_schedule_json: '{"time": 0}' }),
    expected:
      /^power_cap_schedule_json must be a JSON list \(e\.g\. \[\{"time": 0, "watts": 1000\}\]\)$/,
  },
  {
    surface: "grpc",
    input: "serve: init with idle_watts -2",
    run: () => grpcInit({ idle_watts: -2 }),
    expected: /^idle watts must be a non-negative number of watts of at most 2\^53 - 1, got -2$/,
  },
];

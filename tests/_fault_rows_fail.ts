// Fault catalogue rows of node failures (issue 30 item 1): a failure trace
// naming a node the machine lacks, a bad state or a time going back, a
// failure model missing a field, failures on a whole-node run, the failure
// options without failures, and the library's bad onNodeFailure: one line
// each, exit 1, no output written.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, library } from "./_input_faults.ts";
import { ROOT } from "./_cli.ts";
import { Simulation } from "../mod.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// simulate the example trace on the example machine with `extra` options,
// a failure trace `failures` written to dir/f.csv when given.
async function run(dir: string, extra: string[], failures?: string, machine = true) {
  if (failures !== undefined) await Deno.writeTextFile(`${dir}/f.csv`, failures);
  const out = await cli([
    "simulate",
    TRACE,
    ...(machine ? ["--machine", MACHINE] : ["-n", "20"]),
    ...(failures !== undefined ? ["--node_failures", `${dir}/f.csv`] : []),
    ...extra,
    "-o",
    `${dir}/out.csv`,
  ]);
  // No partial output: a refused run writes nothing.
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "f.csv");
  return left.length === 0 ? out : { code: 98, error: `left behind: ${left.join(", ")}` };
}

/** Node failures: failure traces, the failure model, the options (CLI and library). */
export const FAIL_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --node_failures: a node the machine does not have",
    run: (dir) => run(dir, [], "time,node,state\n10,gpu009,down\n"),
    expected:
      /f\.csv:2: node: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu009'$/,
  },
  {
    surface: "in-process",
    input: "simulate --node_failures: a state other than down or up",
    run: (dir) => run(dir, [], "time,node,state\n10,gpu001,broken\n"),
    expected: /f\.csv:2: state: expected down or up, got 'broken'$/,
  },
  {
    surface: "in-process",
    input: "simulate --node_failures: a time before the row above",
    run: (dir) => run(dir, [], "time,node,state\n10,gpu001,down\n5,gpu001,up\n"),
    expected: /f\.csv:3: time: times must be non-decreasing$/,
  },
  {
    surface: "in-process",
    input: "simulate --node_failures: the capacity schedule's header",
    run: (dir) => run(dir, [], "time,capacity\n10,4\n"),
    expected: /f\.csv:1: expected the header 'time,node,state' \(nodes failing and repaired\)$/,
  },
  {
    surface: "in-process",
    input: "simulate --node_failures on whole nodes (-n, no --machine)",
    run: (dir) => run(dir, [], "time,node,state\n10,n1,down\n", false),
    expected:
      /^evtsim: --node_failures needs --machine FILE \(failures name nodes; a whole-node run with -n has none: cut its capacity with --capacity_schedule\)$/,
  },
  {
    surface: "in-process",
    input: "simulate --failure_model without until",
    run: (dir) => run(dir, ["--failure_model", "mtbf=100,repair=10"]),
    expected: /--failure_model: until is missing \(expected mtbf=S,repair=S,until=T\[,seed=N\]\)$/,
  },
  {
    surface: "in-process",
    input: "simulate --failure_model with a zero mtbf",
    run: (dir) => run(dir, ["--failure_model", "mtbf=0,repair=10,until=100"]),
    expected: /--failure_model: mtbf must be a positive number, got '0'/,
  },
  {
    surface: "in-process",
    input: "simulate --failure_model without mtbf and repair, on a machine without failures:",
    run: (dir) => run(dir, ["--failure_model", "until=100"]),
    expected:
      /--failure_model: mtbf and repair are missing, and no group of --machine has failures:/,
  },
  {
    surface: "in-process",
    input: "simulate --machine: a group's failures with a zero repair time",
    run: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/m.yaml`,
        "groups:\n  - name: n\n    count: 2\n    resources: { cores: 4 }\n" +
          "    failures: { mtbf: 100, repair: 0 }\n",
      );
      const out = await cli([
        "simulate",
        TRACE,
        "--machine",
        `${dir}/m.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]);
      await Deno.remove(`${dir}/m.yaml`);
      return out;
    },
    expected: /m\.yaml:5: groups\.0\.failures\.repair: expected a positive number of seconds$/,
  },
  {
    surface: "in-process",
    input: "simulate --on_node_failure requeue without any failures",
    run: (dir) => run(dir, ["--on_node_failure", "requeue"]),
    expected: /--on_node_failure needs --node_failures FILE or --failure_model SPEC$/,
  },
  {
    surface: "in-process",
    input: "simulate --node_failures with --capacity_semantics drevt",
    run: (dir) => run(dir, ["--capacity_semantics", "drevt"], "time,node,state\n10,gpu001,down\n"),
    expected:
      /^evtsim: --machine cannot be used with --capacity_semantics drevt \(DR_EVT's rules count whole nodes\)$/,
  },
  {
    surface: "library",
    input: "Simulation: onNodeFailure 'retry'",
    run: () =>
      Promise.resolve(library(() =>
        new Simulation({
          totalNodes: 2,
          onNodeFailure: "retry" as unknown as "kill",
        })
      )),
    expected: /^unknown on node failure 'retry' \(expected kill, requeue\)$/,
  },
  {
    surface: "library",
    input: "Simulation: a failed node without a machine",
    run: () =>
      Promise.resolve(library(() => {
        const sim = new Simulation({
          totalNodes: 2,
          capacitySchedule: [{ time: 5, capacity: 1, failed: ["n1"] }],
        });
        sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 10 });
        sim.finish();
      })),
    expected: /capacity change names nodes/,
  },
];

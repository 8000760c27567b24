// Fault catalogue rows of preempt_mode suspend (issue 30 item 2): a .replay
// log whose PREEMPT decision names a mode that is not one, and a snapshot
// whose suspended job lacks what its resume and its row need. One line
// each, exit 1, nothing written.

import type { FaultRow } from "./fault_catalogue_test.ts";
import { cli, library } from "./_input_faults.ts";
import { ROOT } from "./_cli.ts";
import { loadSnapshot, saveSnapshot, Simulation } from "../mod.ts";

const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const SUSPENDING = "queues:\n  - name: pbatch\n    preempt_mode: suspend\n" +
  "  - name: pdebug\n    priority: 10\n";

// A snapshot taken while job 0 waits suspended (it ran 0..10, job 1 preempted it).
function suspendedSnapshot() {
  const sim = new Simulation({
    totalNodes: 4,
    queues: [{ name: "batch", preemptMode: "suspend" }, { name: "urgent", priority: 10 }],
  });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 100, queue: "batch" },
    { submitTime: 10, numNodes: 4, timeLimit: 20, queue: "urgent" },
  ]);
  sim.advanceTo(15);
  return JSON.parse(JSON.stringify(saveSnapshot(sim.state)));
}

/** preempt_mode suspend: .replay logs and snapshots. */
export const GRACE_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "replay: a PREEMPT decision whose mode is 'pause'",
    run: async (dir) => {
      const rec = `${dir}/rec`;
      await Deno.mkdir(rec);
      await Deno.writeTextFile(`${rec}/q.yaml`, SUSPENDING);
      const made = await cli([
        "simulate",
        TRACE,
        "-n",
        "128",
        "--queues",
        `${rec}/q.yaml`,
        "-o",
        `${rec}/out.csv`,
        "--record",
        `${rec}/r.replay`,
      ]);
      if (made.code !== 0) return { code: 97, error: `recording: ${made.error}` };
      const text = await Deno.readTextFile(`${rec}/r.replay`);
      const bad = text.replace(/\["suspend"\]/, '["pause"]');
      if (bad === text) return { code: 97, error: "no suspending PREEMPT decision recorded" };
      await Deno.remove(rec, { recursive: true });
      await Deno.writeTextFile(`${dir}/bad.replay`, bad);
      return cli(["replay", `${dir}/bad.replay`, "--verify"]);
    },
    expected:
      /bad\.replay:\d+: session: decisions\.\d+: expected \["DISPATCH", job, nodes\], .* or \["PREEMPT", job, \[victims\], \[modes\], \{code, …\}\]$/,
  },
  {
    surface: "library",
    input: "loadSnapshot: a suspended job without its first begin time",
    run: () =>
      Promise.resolve(library(() => {
        const v = suspendedSnapshot();
        delete v.store.records[0].firstBeginTime;
        loadSnapshot(v);
      })),
    expected:
      /^snapshot: store\.records\[0\]\.firstBeginTime: a suspended job has its first begin time and its full time limit$/,
  },
  {
    surface: "library",
    input: "loadSnapshot: a job with a suspension instant that was never suspended",
    run: () =>
      Promise.resolve(library(() => {
        const v = suspendedSnapshot();
        delete v.store.records[0].suspensions;
        loadSnapshot(v);
      })),
    expected: /^snapshot: store\.records\[0\]\.suspendedAt: only a suspended job has one$/,
  },
];

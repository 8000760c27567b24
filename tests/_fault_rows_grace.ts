// Fault catalogue rows of preempt_mode suspend and grace_time (issue 30
// item 2): a queues file's or the library's bad grace time, a .replay log
// whose PREEMPT decision names a mode that is not one or a grace time for no
// victim, and a snapshot whose suspended job lacks what its resume and its
// row need. One line each, exit 1, nothing written.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
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

// simulate the demo queues trace with the queues file `queues`; nothing may be left.
async function simulateWith(dir: string, queues: string) {
  await Deno.writeTextFile(`${dir}/q.yaml`, queues);
  const out = await cli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "--queues",
    `${dir}/q.yaml`,
    "-o",
    `${dir}/o.csv`,
  ]);
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "q.yaml");
  return left.length === 0 ? out : { code: 98, error: `left behind: ${left.join(", ")}` };
}

/** preempt_mode suspend and grace_time: queue files, the library, .replay logs and snapshots. */
export const GRACE_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --queues: grace_time -5",
    run: (dir) =>
      simulateWith(
        dir,
        "queues:\n  - name: pbatch\n    preempt_mode: requeue\n    grace_time: -5\n",
      ),
    expected: /q\.yaml:4: queue 0 \(pbatch\): grace_time: expected a number of seconds, 0 or more$/,
  },
  {
    surface: "in-process",
    input: "simulate --queues: grace_time soon",
    run: (dir) =>
      simulateWith(
        dir,
        "queues:\n  - name: pbatch\n    preempt_mode: cancel\n    grace_time: soon\n",
      ),
    expected: /q\.yaml:4: queue 0 \(pbatch\): grace_time: expected a number of seconds, 0 or more$/,
  },
  {
    surface: "library",
    input: "Simulation: a queue's graceTime NaN",
    run: () =>
      Promise.resolve(library(() =>
        new Simulation({
          totalNodes: 2,
          queues: [{ name: "batch", preemptMode: "requeue", graceTime: NaN }],
        })
      )),
    expected: /^queue 0 \(batch\): graceTime must be a number of seconds of 0 or more, got NaN$/,
  },
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
    surface: "in-process",
    input: "replay: a PREEMPT decision whose grace times are all 0",
    run: async (dir) => {
      const rec = `${dir}/rec`;
      await Deno.mkdir(rec);
      await Deno.writeTextFile(
        `${rec}/q.yaml`,
        SUSPENDING.replace("suspend\n", "requeue\n    grace_time: 30\n"),
      );
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
      const bad = text.replace(/,\[30\]\]/, ",[0]]");
      if (bad === text) {
        return { code: 97, error: "no PREEMPT decision with a grace time recorded" };
      }
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

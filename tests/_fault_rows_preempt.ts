// Fault catalogue rows of preemption (issue 30 item 2): a queues file's
// preempt_mode other than off/requeue/cancel/suspend (gang scheduling is not
// simulated), the library's bad preemptMode and an orderVictims hook that names a job that is
// not a candidate, a .replay log whose PREEMPT decision is malformed, and
// serve's bad preemptMode: one line each, exit 1 (400), nothing written.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, library } from "./_input_faults.ts";
import { ROOT } from "./_cli.ts";
import { type Admission, Simulation } from "../mod.ts";

const TRACE = `${ROOT}examples/demo_queues_trace.csv`;

// simulate the demo queues trace with the queues file `queues` (dir/q.yaml).
async function run(dir: string, queues: string, extra: string[] = []) {
  await Deno.writeTextFile(`${dir}/q.yaml`, queues);
  const out = await cli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "--queues",
    `${dir}/q.yaml`,
    ...extra,
    "-o",
    `${dir}/out.csv`,
  ]);
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "q.yaml");
  return left.length === 0 ? out : { code: 98, error: `left behind: ${left.join(", ")}` };
}

const firstFit: Admission = {
  name: "first_fit",
  runSession(s) {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (s.place(job).placement !== undefined) s.dispatch(job, false);
      else s.pend(job, { code: "insufficient_nodes", message: "no room" });
    }
  },
};

/** Preemption: queue files, the library's queues and hook, .replay logs. */
export const PREEMPT_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --queues: preempt_mode gang (not simulated)",
    run: (dir) => run(dir, "queues:\n  - name: pbatch\n    preempt_mode: gang\n"),
    expected:
      /q\.yaml:3: queue 0 \(pbatch\): preempt_mode: expected off, requeue, cancel or suspend$/,
  },
  {
    surface: "in-process",
    input: "simulate --queues: preempt_mode true",
    run: (dir) => run(dir, "queues:\n  - name: pbatch\n  - name: pdebug\n    preempt_mode: true\n"),
    expected:
      /q\.yaml:4: queue 1 \(pdebug\): preempt_mode: expected off, requeue, cancel or suspend$/,
  },
  {
    surface: "library",
    input: "Simulation: a queue's preemptMode 'gang'",
    run: () =>
      Promise.resolve(library(() =>
        new Simulation({
          totalNodes: 2,
          queues: [{ name: "batch", preemptMode: "gang" as unknown as "off" }],
        })
      )),
    expected: /^queue 0 \(batch\): preemptMode must be off, requeue, cancel or suspend, got gang$/,
  },
  {
    surface: "library",
    input: "Simulation: orderVictims returns a job that is not a candidate",
    run: () =>
      Promise.resolve(library(() => {
        const sim = new Simulation({
          totalNodes: 2,
          admission: { ...firstFit, orderVictims: () => [{ id: 7 } as never] },
          queues: [{ name: "batch", preemptMode: "requeue" }, { name: "urgent", priority: 1 }],
        });
        sim.appendJobs([
          { submitTime: 0, numNodes: 2, timeLimit: 10, queue: "batch" },
          { submitTime: 1, numNodes: 2, timeLimit: 10, queue: "urgent" },
        ]);
        sim.finish();
      })),
    expected:
      /^admission policy first_fit's orderVictims returned something other than its candidates \(each at most once\)$/,
  },
  {
    surface: "in-process",
    input: "replay: a PREEMPT decision without a mode for each victim",
    run: async (dir) => {
      // Recorded in a folder of its own (a run that succeeds leaves its files:
      // 98 from run's check); only the replay must write nothing.
      const rec = `${dir}/rec`;
      await Deno.mkdir(rec);
      const made = await run(
        rec,
        "queues:\n  - name: pbatch\n    preempt_mode: requeue\n" +
          "  - name: pdebug\n    priority: 10\n",
        ["--record", `${rec}/r.replay`],
      );
      if (made.code !== 98) return { code: 97, error: `recording: ${made.error}` };
      const text = await Deno.readTextFile(`${rec}/r.replay`);
      const bad = text.replace(
        /\["PREEMPT",(\d+),\[(\d+)\],\["requeue"\]/,
        '["PREEMPT",$1,[$2],[]',
      );
      if (bad === text) return { code: 97, error: "no PREEMPT decision recorded" };
      await Deno.writeTextFile(`${dir}/bad.replay`, bad);
      return cli(["replay", `${dir}/bad.replay`, "--verify"]);
    },
    expected:
      /bad\.replay:\d+: session: decisions\.\d+: expected \["DISPATCH", job, nodes\], .* or \["PREEMPT", job, \[victims\], \[modes\], \{code, …\}\]$/,
  },
];

// One scheduling pass of the EASY and CONSERVATIVE admission policies over
// the builtin_fcfs picker's indexed queue, on a deep wait queue (20k jobs
// from the heavy generator, as heavy_100k reaches 17k), with a head that does
// not fit, 6 free nodes and a known shadow time. Baseline: the plain scan
// DR_EVT does, walking the queue in order and testing every job (plus the
// shadow from a sorted array of running jobs). The indexed pass also removes
// the started jobs from its persistent queue; the scan only lists them.
//
// Scenarios:
// - "typical": shadow 1 h away, candidates are common; both stop early.
// - "rare": shadow 51 s away, about one job in a hundred qualifies.
// - "adversarial": no job qualifies, but small jobs and short jobs are
//   interleaved, so the two subtree minima rarely prune together; the scan
//   walks everything and the tree degrades towards a full walk too.
//
// run: deno task bench (or deno bench bench/fcfs_bench.ts)

import type { Admission, AdmissionSession } from "../core/admission.ts";
import { reservationTime } from "../core/running.ts";
import { emptyRunningSet, type RunningJob, runningJob, type RunningSet } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import { conservativeBackfill, easyBackfill } from "../schedulers/admission.ts";
import { orderedSession } from "../schedulers/ordered_picker.ts";
import { emptySizeClassedQueue, enqueue, type SizeClassedQueue } from "../schedulers/wait_queue.ts";
import { generateTrace } from "./gen_trace.ts";

const DEPTH = 20_000;
const NODES = 1024;
const FREE = 6;
const NOW = 1_000_000;

function record(id: number, submitTime: number, numNodes: number, timeLimit: number): JobRecord {
  return {
    id,
    submitTime,
    numNodes,
    timeLimit,
    runTime: timeLimit,
    queue: "pbatch",
    priority: 0,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden: false,
  };
}

/** Running jobs holding NODES - FREE nodes; the 512-node head's shadow is NOW + 51 * step. */
function runningFor(step: number): RunningSet {
  let r = emptyRunningSet();
  for (let i = 0; i < 101; i++) r = r.add(runningJob(i, 10, step * (i + 1), NOW));
  return r.add(runningJob(101, NODES - FREE - 1010, 1e9, NOW));
}

function queueFor(
  transform: (j: JobRecord) => JobRecord,
): { tree: SizeClassedQueue; plain: SizeClassedQueue; array: JobRecord[] } {
  const trace = generateTrace({ seed: 8, jobs: DEPTH, nodes: NODES, load: 1.5, ties: true });
  const jobs = trace.map((j, i) =>
    transform(record(1000 + i, j.submitTime, j.numNodes, j.timeLimit))
  );
  jobs[0] = record(1000, -1, 512, 3600);
  let tree = emptySizeClassedQueue(true);
  let plain = emptySizeClassedQueue(false);
  for (const j of jobs) {
    tree = enqueue(tree, j);
    plain = enqueue(plain, j);
  }
  return { tree, plain, array: tree.all.toArray() };
}

/** Shadow time by walking running jobs kept in an array sorted by projected end. */
function shadowByWalk(running: readonly RunningJob[], need: number, free: number): number {
  let released = 0;
  for (const r of running) {
    if (r.projectedEnd <= NOW) continue;
    released += r.numNodes;
    if (released >= need - free) return r.projectedEnd;
  }
  return NOW;
}

/** DR_EVT's EASY backfill scan over an array, for the baseline. */
function scanEasy(queue: readonly JobRecord[], free: number, shadow: number): JobRecord[] {
  const start: JobRecord[] = [];
  for (let i = 1; i < queue.length && free > 0; i++) {
    const j = queue[i];
    if (j.numNodes <= free && NOW + j.timeLimit < shadow) {
      start.push(j);
      free -= j.numNodes;
    }
  }
  return start;
}

const SCENARIOS = [
  { name: "typical", step: 3600 / 51, transform: (j: JobRecord) => j },
  { name: "rare", step: 1, transform: (j: JobRecord) => j },
  {
    name: "adversarial",
    step: 300 / 51,
    transform: (j: JobRecord) =>
      j.numNodes <= FREE ? { ...j, timeLimit: Math.max(j.timeLimit, 600) } : j,
  },
];

/** One admission pass over a queue, as the core runs it (without the bookkeeping). */
function pass(admission: Admission, q: SizeClassedQueue, running0: RunningSet): JobRecord[] {
  const session = orderedSession(
    q,
    { now: NOW, queuesConfigured: false, queueReady: () => true },
    true,
  );
  let free = FREE;
  let running = running0;
  const started: JobRecord[] = [];
  const api: AdmissionSession = {
    now: NOW,
    get free() {
      return free;
    },
    get running() {
      return running;
    },
    endsByShadow: false,
    next: () => session.nextJob(),
    search: session.search,
    dispatch(job) {
      session.onDispatch(job);
      free -= job.numNodes;
      running = running.add(runningJob(job.id, job.numNodes, job.timeLimit, NOW));
      started.push(job);
    },
    pend: (job) => session.onPend(job),
    // The node-count pool's answer, as the core gives it without a resource model.
    place: (job) =>
      job.numNodes <= free ? { placement: { domain: "", allocation: [] } } : {
        reason: {
          code: "insufficient_nodes",
          message: `needs ${job.numNodes} nodes, ${free} free`,
        },
      },
  };
  admission.runSession(api);
  session.endSession();
  return started;
}

for (const s of SCENARIOS) {
  const running = runningFor(s.step);
  const { tree, plain, array } = queueFor(s.transform);
  const shadow = reservationTime(array[0].numNodes, FREE, running, NOW);
  const runningArray = running.toArray();
  const expected = scanEasy(array, FREE, shadow).map((j) => j.id);
  Deno.bench({
    name: `EASY pass, indexed queue (${s.name}, depth ${DEPTH})`,
    group: `easy ${s.name}`,
    fn() {
      const got = pass(easyBackfill, tree, running);
      if (got.length !== expected.length || got.some((j, i) => j.id !== expected[i])) {
        throw new Error("indexed pass and scan disagree");
      }
    },
  });
  Deno.bench({
    name: `EASY pass, plain scan (${s.name}, depth ${DEPTH})`,
    group: `easy ${s.name}`,
    baseline: true,
    fn() {
      scanEasy(array, FREE, shadowByWalk(runningArray, array[0].numNodes, FREE));
    },
  });
  Deno.bench({
    name: `CONSERVATIVE pass, indexed queue (${s.name}, depth ${DEPTH})`,
    group: `conservative ${s.name}`,
    fn() {
      pass(conservativeBackfill, plain, running);
    },
  });
}

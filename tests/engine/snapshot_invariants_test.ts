// Snapshots that cannot lie (issue 32 item 1). Over random runs (every
// picker × admission policy, queues, live events, external ends, drawn run
// times, capacity schedules, small stores and resource buffers):
// - every snapshot of the run loads, and continuing from it gives the rows
//   the original gives from there on;
// - every corruption of a catalogue of single-field mutations of the
//   snapshot's JSON is refused with one line naming the field, or, for a
//   mutation nothing can observe, gives the rows the original would.

import fc from "fast-check";
import {
  EvtsimError,
  initialState,
  type Input,
  loadSnapshot,
  saveSnapshot,
  type SimState,
  type SimulationConfig,
  statistics,
  step,
} from "../../mod.ts";
import {
  arbLivePlan,
  configOf,
  drivePlan,
  type LivePlan,
  REGISTRY,
} from "../_recording_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 60);

/** A plan with the configuration knobs the live plans leave at their defaults. */
const arbRun = fc.record({
  plan: arbLivePlan,
  schedule: fc.array(
    fc.record({ time: fc.integer({ min: 0, max: 400 }), capacity: fc.nat({ max: 12 }) }),
    { maxLength: 3 },
  ),
  history: fc.constantFrom(0, 2, 5),
  flushInterval: fc.constantFrom(0, 1, 4),
  cut: fc.nat(),
});

function configOfRun(r: RunSpec): SimulationConfig {
  const base = configOf(r.plan);
  return {
    ...base,
    capacitySchedule: r.schedule
      .map((c) => ({ time: c.time, capacity: Math.min(c.capacity, r.plan.totalNodes) }))
      .sort((a, b) => a.time - b.time),
    resourceHistoryCapacity: r.history,
    jobFlushInterval: r.flushInterval,
  };
}

interface RunSpec {
  readonly plan: LivePlan;
  readonly schedule: readonly { time: number; capacity: number }[];
  readonly history: number;
  readonly flushInterval: number;
  readonly cut: number;
}

/** The run's inputs and the state before each of them (and the last state). */
function recordRun(r: RunSpec): { inputs: Input[]; states: SimState[] } {
  let s = initialState(configOfRun(r), { registry: REGISTRY });
  const inputs: Input[] = [];
  const states: SimState[] = [];
  drivePlan(r.plan, (input) => {
    const next = step(s, input).state;
    inputs.push(input);
    states.push(s);
    s = next;
  }, () => s);
  states.push(s);
  return { inputs, states };
}

/**
 * Everything a run from `s` through `inputs` shows: its rows (per step, or
 * `joined` as one list per kind: when rows are written may depend on the
 * store's bookkeeping, what is written may not), the statistics, and the
 * refusal if one comes.
 */
function continuation(s: SimState, inputs: readonly Input[], joined = false): string {
  const out: unknown[] = [];
  const all = {
    jobs: [] as unknown[],
    resources: [] as unknown[],
    notices: [] as unknown[],
    decisions: [] as unknown[],
  };
  try {
    for (const input of inputs) {
      const { state, rows } = step(s, input);
      if (joined) {
        all.jobs.push(...rows.jobs);
        all.resources.push(...rows.resources);
        all.notices.push(...rows.notices);
        all.decisions.push(...rows.decisions);
      } else out.push(rows.jobs, rows.resources, rows.notices, rows.decisions);
      s = state;
    }
    out.push(statistics(s));
  } catch (e) {
    out.push(`refused: ${(e as Error).message}`);
  }
  return JSON.stringify(joined ? [all, out] : out);
}

const copyOf = (s: SimState) => JSON.parse(JSON.stringify(saveSnapshot(s)));

Deno.test("snapshot invariants: every snapshot of a random run loads, and continuing from it gives the original rows", () => {
  let loaded = 0;
  fc.assert(
    fc.property(arbRun, (r) => {
      const { inputs, states } = recordRun(r);
      states.forEach((s, k) => {
        if (s.finished) return; // a finished run takes no input
        const copy = loadSnapshot(copyOf(s), { registry: REGISTRY });
        loaded++;
        // Continuing from every cut is quadratic: compare from one cut and the start.
        if (k === r.cut % states.length || k === 0) {
          assertEquals(continuation(copy, inputs.slice(k)), continuation(s, inputs.slice(k)));
        }
      });
    }),
    { seed: 3201, numRuns: RUNS },
  );
  assert(loaded > 20 * RUNS, `only ${loaded} snapshots loaded`);
});

// ---- the catalogue of corruptions ------------------------------------------

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * A named single-field corruption of a snapshot's JSON: `apply` changes the
 * value in place and returns false when the snapshot has nothing to corrupt
 * that way (no running job, say). `harmless`: nothing can observe it, so the
 * rows must be the original's (otherwise the load must be refused).
 */
interface Corruption {
  readonly name: string;
  readonly apply: (v: Json) => boolean;
  readonly harmless?: boolean;
}

const runningOf = (v: Json): Json[] =>
  v.store.records.filter((r: Json) => !r.rejected && r.beginTime >= 0 && r.endTime < 0);
const waitingOf = (v: Json): Json[] =>
  v.store.records.filter((r: Json) =>
    !r.rejected && r.unsubmitted !== true && r.beginTime < 0 && r.endTime < 0
  );
const finishedOf = (v: Json): Json[] => v.store.records.filter((r: Json) => r.endTime >= 0);
const endEventOf = (v: Json, id: number): Json => v.events.find((e: Json) => e.id === id);

const CORRUPTIONS: readonly Corruption[] = [
  {
    // The repro: the record, its end event and the allocated sum agree with each other.
    name: "a running job holds more nodes than the machine",
    apply: (v) => {
      const r = runningOf(v)[0];
      if (r === undefined) return false;
      const more = v.config.totalNodes + 92 - r.numNodes;
      r.numNodes += more;
      const e = endEventOf(v, r.id);
      if (e !== undefined) e.numNodes = r.numNodes;
      v.allocatedNodes += more;
      for (const row of v.resourceBuffer) row.allocatedNodes = v.allocatedNodes;
      return true;
    },
  },
  {
    name: "a running job has no end event",
    apply: (v) => v.events.length > 0 && (v.events.shift(), true),
  },
  {
    name: "an end event twice",
    apply: (v) => v.events.length > 0 && (v.events.push({ ...v.events[0] }), true),
  },
  {
    name: "an end event later than the job's run time",
    apply: (v) => v.events.length > 0 && (v.events[0].time += 7, true),
  },
  {
    name: "an end event with other nodes than its job",
    apply: (v) => v.events.length > 0 && (v.events[0].numNodes += 1, true),
  },
  {
    name: "an end event of a waiting job",
    apply: (v) => {
      const w = waitingOf(v)[0];
      if (v.events.length === 0 || w === undefined) return false;
      v.events[0].id = w.id;
      return true;
    },
  },
  {
    name: "a start event (only replay has them)",
    apply: (v) => v.events.length > 0 && (v.events[0].kind = 1, true),
  },
  { name: "allocated nodes off by one", apply: (v) => (v.allocatedNodes += 1, true) },
  {
    name: "capacity above the machine",
    apply: (v) => (v.capacity = v.config.totalNodes + 1, true),
  },
  {
    name: "the clock before the start time",
    apply: (v) => (v.time = v.config.startTime - 1, true),
  },
  {
    name: "the clock before a job's begin",
    apply: (v) => {
      const b = Math.max(-1, ...runningOf(v).map((r: Json) => r.beginTime));
      if (b <= 0) return false;
      v.time = b - 1;
      return true;
    },
  },
  { name: "the clock beyond 2^53", apply: (v) => (v.time = 2 ** 60, true) },
  { name: "a negative sum of waits", apply: (v) => (v.stats.sumWait = -5e305, true) },
  {
    name: "a sum of waits no completed jobs can give",
    apply: (v) => v.stats.jobsCompleted > 0 && (v.stats.sumWait = 1e300, true),
  },
  {
    name: "a wait longer than the run",
    apply: (v) => v.stats.jobsCompleted > 0 && (v.stats.maxWait = v.time + 1000, true),
  },
  { name: "one more job created", apply: (v) => (v.stats.jobsCreated += 1, true) },
  { name: "one more job started", apply: (v) => (v.stats.jobsStarted += 1, true) },
  {
    name: "one more job completed",
    apply: (v) => (v.stats.jobsCompleted += 1, v.stats.firstSubmit ??= 0, true),
  },
  { name: "one more job rejected", apply: (v) => (v.stats.jobsRejected += 1, true) },
  { name: "one more job cancelled", apply: (v) => (v.stats.jobsCancelled += 1, true) },
  { name: "negative node-seconds", apply: (v) => (v.stats.nodeSeconds = -1, true) },
  {
    name: "more node-seconds than the machine has",
    apply: (v) => (v.stats.nodeSeconds = 1e12, v.stats.lastEnd ??= v.time, true),
  },
  {
    name: "no first submit although jobs completed",
    apply: (v) => v.stats.jobsCompleted > 0 && (v.stats.firstSubmit = null, true),
  },
  { name: "a last end after the clock", apply: (v) => (v.stats.lastEnd = v.time + 10, true) },
  {
    name: "a peak queue length above the sum",
    apply: (v) => (v.stats.queueSampleMax = v.stats.queueSampleSum + 1, true),
  },
  {
    name: "more rounds than queue samples",
    apply: (v) => (v.round = v.stats.queueSamples + 1, true),
  },
  { name: "the initial sample flag flipped", apply: (v) => (v.sampled = !v.sampled, true) },
  {
    name: "a running job begins after the clock",
    apply: (v) => {
      const r = runningOf(v)[0];
      if (r === undefined) return false;
      r.beginTime = v.time + 1;
      return true;
    },
  },
  {
    name: "a running job begins before its submission",
    apply: (v) => {
      const r = runningOf(v).find((x: Json) => x.submitTime > 0);
      if (r === undefined) return false;
      r.beginTime = r.submitTime - 1;
      const e = endEventOf(v, r.id);
      if (e !== undefined) (e.beginTime = r.beginTime, e.time -= r.submitTime - r.beginTime);
      return true;
    },
  },
  {
    name: "a finished job ends before it begins",
    apply: (v) => {
      const r = finishedOf(v).find((x: Json) => x.beginTime > 0);
      if (r === undefined) return false;
      r.endTime = r.beginTime - 1;
      return true;
    },
  },
  {
    name: "a finished job ends after the clock",
    apply: (v) => {
      const r = finishedOf(v)[0];
      if (r === undefined) return false;
      r.endTime = v.time + 1;
      return true;
    },
  },
  {
    name: "a running job has an outcome",
    apply: (v) => {
      const r = runningOf(v)[0];
      if (r === undefined) return false;
      r.outcome = "failed";
      r.exitStatus = 1;
      return true;
    },
  },
  {
    name: "an exit status without an outcome",
    apply: (v) => {
      const r = v.store.records[0];
      if (r === undefined || r.outcome !== undefined) return false;
      r.exitStatus = 3;
      return true;
    },
  },
  {
    name: "a waiting job marked rejected",
    apply: (v) => {
      const r = waitingOf(v)[0];
      if (r === undefined) return false;
      r.rejected = true;
      return true;
    },
  },
  {
    name: "a hidden job (only replay hides jobs)",
    apply: (v) => v.store.records.length > 0 && (v.store.records[0].hidden = true, true),
  },
  {
    name: "a run time beyond 2^53",
    apply: (v) => v.store.records.length > 0 && (v.store.records[0].runTime = 2 ** 60, true),
  },
  {
    name: "jobs whose time limits together pass 2^53",
    apply: (v) => {
      const open = [...waitingOf(v), ...runningOf(v)];
      if (open.length < 2) return false;
      for (const r of open) r.timeLimit = r.runTime = 2 ** 52;
      return true;
    },
  },
  {
    name: "a negative time limit",
    apply: (v) => v.store.records.length > 0 && (v.store.records[0].timeLimit = -5, true),
  },
  {
    name: "a submit time beyond 2^53",
    apply: (v) => v.store.records.length > 0 && (v.store.records[0].submitTime = 2 ** 60, true),
  },
  {
    name: "an arrival listed twice",
    apply: (v) => v.arrivals.length > 0 && (v.arrivals.push(v.arrivals[0]), true),
  },
  {
    name: "a future submission missing from the arrivals",
    apply: (v) => {
      const id = v.arrivals.find((a: Json) =>
        v.store.records[a - v.store.firstId].submitTime > v.time
      );
      if (id === undefined) return false;
      v.arrivals = v.arrivals.filter((a: Json) => a !== id);
      return true;
    },
  },
  {
    name: "a past submission still arriving",
    apply: (v) => {
      const r = waitingOf(v).find((x: Json) => x.submitTime < v.time);
      if (r === undefined) return false;
      v.arrivals.push(r.id);
      return true;
    },
  },
  {
    name: "a live event before the clock",
    apply: (v) => v.liveEvents.length > 0 && (v.liveEvents[0].time = v.time - 1, true),
  },
  {
    name: "a live event's seq used twice",
    apply: (v) =>
      v.liveEvents.length > 0 && (v.liveEvents.push({ ...v.liveEvents[0] }), v.liveSeq++, true),
  },
  {
    name: "a live capacity change above the machine",
    apply: (v) => (v.liveEvents.push({
      kind: "capacity",
      time: v.time,
      seq: v.liveSeq++,
      capacity: v.config.totalNodes + 1,
    }),
      true),
  },
  {
    name: "a live event naming a job that does not exist",
    apply: (
      v,
    ) => (v.liveEvents.push({
      kind: "cancel",
      time: v.time,
      seq: v.liveSeq++,
      id: v.nextJobId + 3,
    }),
      true),
  },
  {
    name: "a live job update to a queue nobody defined",
    apply: (v) => {
      const r = waitingOf(v)[0];
      if (r === undefined || v.queues.length === 0) return false;
      v.liveEvents.push({
        kind: "updateJob",
        time: v.time,
        seq: v.liveSeq++,
        id: r.id,
        update: { queue: "nowhere" },
      });
      return true;
    },
  },
  {
    name: "a pend reason for a running job",
    apply: (v) => {
      const r = runningOf(v)[0];
      if (r === undefined) return false;
      v.pendCodes.push([r.id, "insufficient_nodes"]);
      return true;
    },
  },
  {
    name: "a pend reason although decisions are off",
    apply: (v) => {
      const r = waitingOf(v).find((x: Json) => !v.arrivals.includes(x.id));
      if (r === undefined || v.config.decisions !== false) return false;
      v.pendCodes.push([r.id, "insufficient_nodes"]);
      return true;
    },
  },
  { name: "one capacity change too many applied", apply: (v) => (v.capacityIndex += 1, true) },
  {
    name: "a resource row after the clock",
    apply: (v) => v.resourceBuffer.length > 0 && (v.resourceBuffer[0].time = v.time + 1, true),
  },
  {
    name: "a resource row beyond the machine",
    apply: (v) =>
      v.resourceBuffer.length > 0 &&
      (v.resourceBuffer[0].allocatedNodes = v.config.totalNodes + 1, true),
  },
  {
    name: "resource rows out of order",
    apply: (v) => {
      const rows = v.resourceBuffer;
      const i = rows.findIndex((r: Json, k: number) => k > 0 && r.time > rows[k - 1].time);
      if (i < 0) return false;
      [rows[i - 1], rows[i]] = [rows[i], rows[i - 1]];
      return true;
    },
  },
  {
    name: "the generator dropped or added",
    apply: (v) => {
      v.rng = v.rng === null ? { index: 0, words: new Array(624).fill(1) } : null;
      return true;
    },
  },
  {
    name: "a store smaller than its records",
    apply: (v) =>
      v.config.jobStoreCapacity > 0 && v.store.records.length > 1 &&
      (v.store.capacity = v.store.records.length - 1, true),
  },
  {
    name: "a configured queue missing from the queues in force",
    apply: (v) => v.queues.length > 0 && (v.queues.shift(), true),
  },
  { name: "the next job id skips one", apply: (v) => (v.nextJobId += 1, true) },
  // Mutations nothing can observe: they must load and run as the original.
  {
    name: "completions since the last flush reset",
    apply: (v) => (v.store.completedSinceFlush = 0, true),
    harmless: true,
  },
  {
    name: "the over-allocation notice marked as given",
    apply: (v) => (v.overallocationReported = true, true),
    harmless: true,
  },
];

// A refusal names the field: `snapshot: <path>: …` (the schema's paths use dots).
const NAMED = /^snapshot: [A-Za-z][\w.[\]]*: \S/;

Deno.test("snapshot invariants: every corruption in the catalogue is refused naming the field, or changes nothing", () => {
  const applied = new Map<string, number>(CORRUPTIONS.map((c) => [c.name, 0]));
  fc.assert(
    fc.property(arbRun, (r) => {
      const { inputs, states } = recordRun(r);
      const live = states.filter((s) => !s.finished);
      const k = r.cut % live.length;
      const s = live[k];
      const rest = inputs.slice(states.indexOf(s));
      const original = continuation(s, rest, true);
      for (const c of CORRUPTIONS) {
        const v = copyOf(s);
        if (!c.apply(v)) continue;
        applied.set(c.name, applied.get(c.name)! + 1);
        let copy: SimState;
        try {
          copy = loadSnapshot(v, { registry: REGISTRY });
        } catch (e) {
          assert(e instanceof EvtsimError, `${c.name}: not an EvtsimError: ${e}`);
          assert(!c.harmless, `${c.name}: harmless, but refused: ${e.message}`);
          assert(!e.message.includes("\n"), `${c.name}: more than one line: ${e.message}`);
          assert(NAMED.test(e.message), `${c.name}: the field is not named: ${e.message}`);
          continue;
        }
        assertEquals(
          continuation(copy, rest, true),
          original,
          `${c.name}: loaded and ran differently`,
        );
      }
    }),
    { seed: 3202, numRuns: RUNS },
  );
  // Every corruption met a snapshot it applies to.
  for (const [name, n] of applied) assert(n > 0, `the corruption '${name}' was never applied`);
});

Deno.test("snapshot invariants: jobs stored without submission (any size, any submit time) load and run on", () => {
  let s = initialState({ totalNodes: 4 });
  s = step(s, {
    kind: "appendJobs",
    jobs: [
      { submitTime: 0, numNodes: 4, timeLimit: 10 },
      { submitTime: 999, numNodes: 9, timeLimit: 10 },
      { submitTime: 3, numNodes: 2, timeLimit: 10 },
    ],
    submit: false,
  }).state;
  s = step(s, { kind: "submitJob", id: 0, submitTime: 0 }).state;
  s = step(s, { kind: "advanceTo", time: 5 }).state;
  const rest: Input[] = [
    { kind: "submitJob", id: 1, submitTime: 6 },
    { kind: "submitJob", id: 2, submitTime: 7 },
    { kind: "runToCompletion" },
    { kind: "finish" },
  ];
  const copy = loadSnapshot(copyOf(s));
  assertEquals(continuation(copy, rest), continuation(s, rest));
});

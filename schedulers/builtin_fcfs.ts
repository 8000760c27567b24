// `builtin_fcfs` (docs/policies.md, "Every policy by name"): queues by priority (descending, then in
// definition order); within a queue, jobs by priority (descending), then
// submit time, then job id — or by the queue's own picker when it names one
// (`queue.picker`). Without configured queues it is one FCFS queue, kept as
// a bare size-classed tree so that DR_EVT's FCFS, EASY and CONSERVATIVE cost
// what they always did.

import type {
  CandidateSearch,
  Picker,
  PickerSession,
  PickerSetup,
  SessionContext,
} from "../core/picker.ts";
import { EvtsimError } from "../core/errors.ts";
import type { ResolvedQueue } from "../core/queues.ts";
import type { JobRecord } from "../core/types.ts";
import { keyOrderPicker, orderedSession } from "./ordered_picker.ts";
import {
  fcfsCompare,
  persistentQueue,
  type SizeClassedQueue,
  transientQueue,
} from "./wait_queue.ts";

/** The FCFS order used within a queue (and for the whole machine without queues). */
const FCFS_WITHIN = keyOrderPicker({ name: "fcfs", compare: fcfsCompare });

/** One queue's candidates, ordered by its picker. */
interface Slot {
  readonly name: string;
  readonly priority: number;
  /** Definition order: breaks priority ties. */
  readonly order: number;
  readonly picker: Picker;
  readonly state: unknown;
}

/** The `builtin_fcfs` state with configured queues. */
interface BuiltinFcfsQueues {
  /** Queues in the order they are offered. */
  readonly slots: readonly {
    readonly name: string;
    readonly priority: number;
    readonly order: number;
    readonly picker: Picker;
    readonly state: unknown;
  }[];
  /** Position in `slots` by queue name. */
  readonly index: ReadonlyMap<string, number>;
  /** Candidates over all queues. */
  readonly size: number;
  /** How the picker was set up (per-queue pickers are looked up through it). */
  readonly setup: PickerSetup;
}

type State = SizeClassedQueue | BuiltinFcfsQueues;

const isQueued = (s: State): s is BuiltinFcfsQueues => "slots" in s;

/**
 * The default picker, `builtin_fcfs`.
 *
 * @example
 * ```ts
 * import { builtinFcfs, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4, picker: builtinFcfs, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 2, numNodes: 4, timeLimit: 10, priority: 1 },
 * ]);
 * // Job 2's priority puts it ahead of job 1, which came first.
 * if (sim.finish().jobs.map((r) => r.beginTime).join() !== "0,20,10") throw new Error("priority");
 * ```
 */
export const builtinFcfs: Picker = builtinFcfsPicker();

function builtinFcfsPicker(): Picker<State> {
  return {
    name: "builtin_fcfs",
    // A key order within each queue; with queues configured the session
    // says its order is not stable (a start may fill a queue).
    stableOrder: true,
    init(setup) {
      const whole = FCFS_WITHIN.init(setup) as SizeClassedQueue;
      if (setup.queues.length === 0) return whole;
      let q: BuiltinFcfsQueues = { slots: [], index: new Map(), size: 0, setup };
      for (const def of setup.queues) q = upsertQueue(q, def);
      return q;
    },
    onQueueUpdate: (s, def) => (isQueued(s) ? upsertQueue(s, def) : s),
    beginEdit: (s, owner) =>
      isQueued(s)
        ? mapSlots(s, (p, st) => p.beginEdit?.(st, owner) ?? st)
        : transientQueue(s, owner),
    endEdit: (
      s,
    ) => (isQueued(s) ? mapSlots(s, (p, st) => p.endEdit?.(st) ?? st) : persistentQueue(s)),
    onJobPush: (s, job) =>
      isQueued(s)
        ? withSlot(s, slotOf(s, job), (p, st) => p.onJobPush(st, job), +1)
        : FCFS_WITHIN.onJobPush(s, job),
    onJobStateChange: (s, job, change) =>
      isQueued(s)
        ? withSlot(
          s,
          slotOf(s, job),
          (p, st) => p.onJobStateChange(st, job, change),
          change === "pending" ? +1 : -1,
        )
        : FCFS_WITHIN.onJobStateChange(s, job, change),
    onJobUpdate(s, before, after) {
      if (!isQueued(s)) return FCFS_WITHIN.onJobUpdate(s, before, after);
      const from = slotOf(s, before);
      const to = slotOf(s, after);
      if (from === to) return withSlot(s, from, (p, st) => p.onJobUpdate(st, before, after), 0);
      const out = withSlot(s, from, (p, st) => p.onJobStateChange(st, before, "cancelled"), -1);
      return withSlot(out, to, (p, st) => p.onJobPush(st, after), +1);
    },
    // Every queue picker that keeps a memory (fairshare's usage) sees every
    // job end, whichever queue it ran in: usage is the whole machine's.
    onJobEnd: (s, job) =>
      isQueued(s) && s.slots.some((x) => x.picker.onJobEnd !== undefined)
        ? mapSlots(s, (p, st) => p.onJobEnd?.(st, job) ?? st)
        : s,
    saveMemory(s) {
      if (!isQueued(s)) return undefined;
      const queues: Record<string, unknown> = {};
      let any = false;
      for (const slot of s.slots) {
        if (slot.picker.saveMemory === undefined) continue;
        queues[slot.name] = slot.picker.saveMemory(slot.state);
        any = true;
      }
      return any ? { queues } : undefined;
    },
    restoreMemory(s, memory) {
      const queues = (memory as { queues?: unknown } | null)?.queues;
      if (!isQueued(s) || typeof queues !== "object" || queues === null || Array.isArray(queues)) {
        throw new EvtsimError(
          "input",
          "snapshot: builtin_fcfs memory must hold a queues object (queue name -> its picker's memory)",
        );
      }
      const saved = queues as Record<string, unknown>;
      for (const name of Object.keys(saved)) {
        const at = s.index.get(name);
        if (at === undefined || s.slots[at].picker.restoreMemory === undefined) {
          throw new EvtsimError(
            "input",
            `snapshot: builtin_fcfs memory names queue '${name}', which has no picker memory here`,
          );
        }
      }
      const slots = s.slots.map((slot) =>
        saved[slot.name] === undefined
          ? slot
          : { ...slot, state: slot.picker.restoreMemory!(slot.state, saved[slot.name]) }
      );
      return { ...s, slots };
    },
    size: (s) => (isQueued(s) ? s.size : s.all.size),
    pending: (s) => (isQueued(s) ? allPending(s) : s.all.values()),
    beginSession: (s, ctx) => (isQueued(s) ? queuedSession(s, ctx) : orderedSession(s, ctx, true)),
  };
}

function mapSlots(
  s: BuiltinFcfsQueues,
  f: (p: Picker, st: unknown) => unknown,
): BuiltinFcfsQueues {
  return { ...s, slots: s.slots.map((slot) => ({ ...slot, state: f(slot.picker, slot.state) })) };
}

function slotOf(s: BuiltinFcfsQueues, job: JobRecord): number {
  const i = job.queue === undefined ? 0 : s.index.get(job.queue);
  if (i === undefined) {
    throw new Error(`builtin_fcfs: job ${job.id} names unknown queue ${job.queue}`);
  }
  return i;
}

function withSlot(
  s: BuiltinFcfsQueues,
  i: number,
  f: (p: Picker, st: unknown) => unknown,
  sizeDelta: number,
): BuiltinFcfsQueues {
  const slots = s.slots.slice();
  const slot = slots[i];
  slots[i] = { ...slot, state: f(slot.picker, slot.state) };
  return { ...s, slots, size: s.size + sizeDelta };
}

// A queue's own picker gets its own settings (`pickerSettings[its name]`), not builtin_fcfs's.
function initSlot(setup: PickerSetup, picker: Picker): unknown {
  return picker.init({ ...setup, settings: setup.settingsOf?.(picker.name) });
}

function upsertQueue(s: BuiltinFcfsQueues, def: ResolvedQueue): BuiltinFcfsQueues {
  const picker = def.picker === undefined ? FCFS_WITHIN : s.setup.pickerNamed(def.picker);
  const at = s.index.get(def.name);
  const slots = s.slots.slice();
  if (at === undefined) {
    const order = slots.reduce((m, x) => Math.max(m, x.order + 1), 0);
    slots.push({
      name: def.name,
      priority: def.priority,
      order,
      picker,
      state: initSlot(s.setup, picker),
    });
  } else {
    const old = slots[at];
    let state = old.state;
    if (old.picker !== picker) {
      // A new per-queue picker: rebuild its state from the queue's candidates.
      state = initSlot(s.setup, picker);
      for (const job of old.picker.pending(old.state)) state = picker.onJobPush(state, job);
    }
    slots[at] = { ...old, priority: def.priority, picker, state };
  }
  slots.sort((a, b) => b.priority - a.priority || a.order - b.order);
  return { slots, index: new Map(slots.map((x, i) => [x.name, i])), size: s.size, setup: s.setup };
}

function* allPending(s: BuiltinFcfsQueues): Generator<JobRecord> {
  for (const slot of s.slots) yield* slot.picker.pending(slot.state);
}

// Queues in order; within each, its picker's session. Every queue's session
// is opened up front (cheap), so the search exists only if each has one.
function queuedSession(s: BuiltinFcfsQueues, ctx: SessionContext): PickerSession<State> {
  const sessions = s.slots.map((slot) =>
    slot.picker === FCFS_WITHIN
      ? orderedSession(slot.state as SizeClassedQueue, ctx, true)
      : slot.picker.beginSession(slot.state, ctx)
  );
  let k = 0;
  let dispatched = 0;
  const ready = (i: number) => ctx.queueReady(s.slots[i].name);
  const searches = sessions.map((x) => x.search);
  const search: CandidateSearch | undefined = searches.every((x) => x !== undefined)
    ? {
      nextFitting(maxNodes, limitFits, noRoomFrom) {
        for (; k < sessions.length; k++) {
          if (!ready(k)) continue;
          const found = searches[k]!.nextFitting(maxNodes, limitFits, noRoomFrom);
          if (found !== undefined) return found;
        }
        return undefined;
      },
      minNodesBefore(job) {
        const at = job === undefined ? sessions.length : slotOf(s, job);
        let m = at < sessions.length ? searches[at]!.minNodesBefore(job) : Infinity;
        for (let i = 0; i < at; i++) {
          if (ready(i)) m = Math.min(m, searches[i]!.minNodesBefore(undefined));
        }
        return m;
      },
      maxNodesBefore(job) {
        const at = job === undefined ? sessions.length : slotOf(s, job);
        let m = at < sessions.length ? searches[at]!.maxNodesBefore(job) : -Infinity;
        for (let i = 0; i < at; i++) {
          if (ready(i)) m = Math.max(m, searches[i]!.maxNodesBefore(undefined));
        }
        return m;
      },
    }
    : undefined;
  return {
    nextJob() {
      for (; k < sessions.length; k++) {
        const job = sessions[k].nextJob();
        if (job !== undefined) return job;
      }
      return undefined;
    },
    onDispatch(job) {
      sessions[slotOf(s, job)].onDispatch(job);
      dispatched++;
    },
    onPend(job) {
      sessions[slotOf(s, job)].onPend(job);
    },
    endSession() {
      const slots = s.slots.map((slot, i) => ({ ...slot, state: sessions[i].endSession() }));
      return { ...s, slots, size: s.size - dispatched };
    },
    ...(search === undefined ? {} : { search }),
  };
}

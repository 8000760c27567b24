// One scheduling session: the core's side of the picker and admission
// contracts. The picker hands out candidates, the core pends those whose
// queue may not start, the admission policy decides the rest, and the core
// starts each dispatched job at once and records the decisions. The core
// checks what it is told (a dispatched job must be waiting and must fit), so
// a faulty policy fails loudly instead of corrupting the state.

import type { Working } from "./_engine.ts";
import type { AdmissionSession } from "./admission.ts";
import {
  type DispatchDecision,
  type PendReason,
  type PendReasonCode,
  pendReasons,
} from "./decisions.ts";
import { EvtsimError } from "./errors.ts";
import type { CandidateSearch, PickerSession, SessionContext } from "./picker.ts";
import type { Placement, PlaceResult } from "./resource_model.ts";
import { queueBlock } from "./queues.ts";
import type { RunningSet } from "./running.ts";
import type { JobRecord } from "./types.ts";

/** Runs one picker session at the clock; returns the number of jobs started. */
export function runRound(w: Working): number {
  const round = new Round(w);
  w.admission.runSession(round);
  w.pickerState = round.session.endSession();
  return round.dispatched;
}

// One object per session (a run has hundreds of thousands): the admission
// session, the picker's session context and the checked search in one.
class Round implements AdmissionSession, SessionContext, CandidateSearch {
  readonly w: Working;
  readonly now: number;
  readonly queuesConfigured: boolean;
  readonly endsByShadow: boolean;
  readonly session: PickerSession<unknown>;
  readonly search: CandidateSearch | undefined;
  readonly decisions: boolean;
  dispatched = 0;
  /** Jobs needing more nodes than this are held (Infinity: no cut in effect). */
  readonly capacity: number;
  /** The candidate last handed to the admission policy. */
  current: JobRecord | undefined = undefined;
  /** The job `place` last answered for, and its answer (until the next dispatch). */
  private placedJob: JobRecord | undefined = undefined;
  private placed: PlaceResult | undefined = undefined;

  constructor(w: Working) {
    this.w = w;
    this.now = w.time;
    this.queuesConfigured = w.queues.list.length > 0;
    this.endsByShadow = w.picker.backfillEndsByShadow === true;
    this.decisions = w.config.decisions !== false;
    this.session = w.picker.beginSession(w.pickerState, this);
    // Below the machine size a waiting job may need more nodes than there
    // are: `next` holds it back. The indexed search would still count it
    // among the jobs ahead, so the policies walk instead while a cut lasts.
    this.capacity = w.drevtCapacity || w.capacity >= w.config.totalNodes ? Infinity : w.capacity;
    // Every waiting job gets a verdict only with `decisions: true`; "heads"
    // keeps the policy on its indexed path and records what it pends there.
    this.search = w.config.decisions === true || this.session.search === undefined ||
        this.capacity !== Infinity
      ? undefined
      : this;
  }

  get free(): number {
    const f = this.w.capacity - this.w.allocatedNodes;
    return f > 0 ? f : 0;
  }

  get running(): RunningSet {
    return this.w.running;
  }

  get memory(): unknown {
    return this.w.admissionMemory;
  }

  remember(value: unknown): void {
    this.w.admissionMemory = value;
  }

  queueReady(name: string): boolean {
    const t = this.w.queues;
    const i = t.byName.get(name);
    return i === undefined || queueBlock(t.list[i]) === undefined;
  }

  next(): JobRecord | undefined {
    for (;;) {
      const job = this.session.nextJob();
      this.current = job;
      if (job === undefined) return job;
      if (job.numNodes > this.capacity) {
        // It cannot run on the machine as it is now: held, so that it
        // neither blocks the jobs behind it nor holds a reservation.
        const capacity = this.capacity;
        this.pend(
          job,
          () => pendReasons.exceedsCapacity(job.numNodes, capacity),
          "exceeds_capacity",
        );
        continue;
      }
      if (!this.queuesConfigured) return job;
      const blocked = queueReason(this.w, job);
      if (blocked === undefined) return job;
      this.pend(job, blocked);
    }
  }

  nextFitting(maxNodes: number, limitFits: (limit: number) => boolean): JobRecord | undefined {
    this.current = this.session.search!.nextFitting(maxNodes, limitFits);
    return this.current;
  }

  minNodesBefore(job: JobRecord | undefined): number {
    return this.session.search!.minNodesBefore(job);
  }

  maxNodesBefore(job: JobRecord | undefined): number {
    return this.session.search!.maxNodesBefore(job);
  }

  place(job: JobRecord): PlaceResult {
    const model = this.w.resourceModel;
    if (model === undefined) {
      const free = this.free;
      return job.numNodes <= free
        ? { placement: NODE_POOL }
        : { reason: pendReasons.insufficientNodes(job.numNodes, free) };
    }
    if (job === this.placedJob && this.placed !== undefined) return this.placed;
    const r = model.place(this.w.resourceState, waitingRecord(this.w, job));
    this.placedJob = job;
    this.placed = r;
    return r;
  }

  dispatch(job: JobRecord, backfill: boolean): void {
    const w = this.w;
    const rec = waitingRecord(w, job);
    const free = this.free;
    if (rec.numNodes > free) {
      throw new EvtsimError(
        "state",
        `admission policy ${w.admission.name} started job ${rec.id} needing ${rec.numNodes} nodes with ${free} free`,
      );
    }
    if (this.queuesConfigured && queueReason(w, rec) !== undefined) {
      throw new EvtsimError(
        "state",
        `admission policy ${w.admission.name} started job ${rec.id} of a queue that may not start jobs`,
      );
    }
    if (job !== this.current) {
      throw new EvtsimError(
        "state",
        `admission policy ${w.admission.name} started job ${rec.id}, which is not the candidate just offered`,
      );
    }
    let placement: Placement | undefined;
    if (w.resourceModel !== undefined) {
      const r = this.place(job);
      if (r.placement === undefined) {
        throw new EvtsimError(
          "state",
          `admission policy ${w.admission.name} started job ${rec.id}, which resource model ${w.resourceModel.name} cannot place now (${r.reason.code}: ${r.reason.message})`,
        );
      }
      placement = r.placement;
      this.placedJob = undefined;
      this.placed = undefined;
    }
    this.session.onDispatch(job);
    w.startJob(rec, this.now, placement);
    this.dispatched++;
    if (placement !== undefined) {
      if (this.decisions) w.decisionRows.push(placedRow(w, rec, this.now, backfill, placement));
      return;
    }
    if (this.decisions) {
      const key = { id: rec.id, code: "insufficient_nodes" as const };
      if (w.pendCodes.has(key)) w.pendCodes = w.pendCodes.delete(key);
      const row: DispatchDecision = rec.queue === undefined
        ? {
          type: "DISPATCH",
          time: this.now,
          round: w.round,
          jobId: rec.id,
          numNodes: rec.numNodes,
          backfill,
        }
        : {
          type: "DISPATCH",
          time: this.now,
          round: w.round,
          jobId: rec.id,
          numNodes: rec.numNodes,
          backfill,
          queue: rec.queue,
        };
      w.decisionRows.push(row);
    }
  }

  pend(
    job: JobRecord,
    reason: PendReason | (() => PendReason),
    code?: PendReasonCode,
  ): void {
    this.session.onPend(job);
    if (this.decisions) {
      if (code !== undefined && this.w.pendCodes.find({ id: job.id, code })?.code === code) return;
      recordPend(this.w, job.id, typeof reason === "function" ? reason() : reason);
    }
  }
}

/** What the node-count pool answers when a job fits: it takes its node count, nothing else. */
const NODE_POOL: Placement = Object.freeze({ domain: "", allocation: Object.freeze([]) });

// The DISPATCH row of a job a resource model placed: where it went.
function placedRow(
  w: Working,
  rec: JobRecord,
  now: number,
  backfill: boolean,
  p: Placement,
): DispatchDecision {
  const row: DispatchDecision = {
    type: "DISPATCH",
    time: now,
    round: w.round,
    jobId: rec.id,
    numNodes: p.allocation.length,
    backfill,
    domain: p.domain,
    allocation: p.allocation,
  };
  return rec.queue === undefined ? row : { ...row, queue: rec.queue };
}

function queueReason(w: Working, job: JobRecord): PendReason | undefined {
  const q = w.queueStateOf(job);
  if (q === undefined) return undefined;
  const block = queueBlock(q);
  if (block === undefined) return undefined;
  return block === "queue_closed"
    ? pendReasons.queueClosed(q.def.name)
    : pendReasons.queueLimit(q.def.name, q.def.maxRunning!);
}

/** Records a PEND decision when the job's reason code changed since the last one. */
export function recordPend(w: Working, id: number, reason: PendReason): void {
  if (w.pendCodes.find({ id, code: reason.code })?.code === reason.code) return;
  w.pendCodes = w.pendCodes.add({ id, code: reason.code });
  w.decisionRows.push({ type: "PEND", time: w.time, round: w.round, jobId: id, reason });
}

// The job's current record, checked to be waiting: a picker that hands out
// a job twice, a finished job or a stale copy is a bug to report, not to run.
function waitingRecord(w: Working, job: JobRecord): JobRecord {
  const rec = job.id >= w.store.firstId && job.id < w.nextJobId
    ? w.store.records.get(job.id - w.store.firstId)
    : undefined;
  if (
    rec === undefined || rec.beginTime >= 0 || rec.endTime >= 0 || rec.rejected ||
    rec.unsubmitted === true || rec.submitTime > w.time
  ) {
    throw new EvtsimError(
      "state",
      `picker ${w.picker.name} offered job ${job.id}, which is not waiting`,
    );
  }
  return rec;
}

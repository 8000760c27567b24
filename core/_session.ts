// One scheduling session: the core's side of the picker and admission
// contracts. The picker hands out candidates, the core pends those whose
// queue may not start, the admission policy decides the rest, and the core
// starts each dispatched job at once and records the decisions. The core
// checks what it is told (a dispatched job must be waiting and must fit), so
// a faulty policy fails loudly instead of corrupting the state.

import type { Working } from "./_engine.ts";
import type { AdmissionSession, SessionResources } from "./admission.ts";
import {
  type DispatchDecision,
  type PendReason,
  type PendReasonCode,
  pendReasons,
} from "./decisions.ts";
import { EvtsimError } from "./errors.ts";
import { checkInterrupt } from "./_interrupt.ts";
import { describeValue } from "./_input_check.ts";
import { isThenable, lateCall, policyFailure, returnedPromise } from "./_policy_faults.ts";
import type { CandidateSearch, PickerSession, SessionContext } from "./picker.ts";
import type { Placement, PlaceResult, ResourceModel } from "./resource_model.ts";
import { queueBlock, type QueueState } from "./queues.ts";
import type { RunningSet } from "./running.ts";
import type { JobRecord } from "./types.ts";
import { type UnplaceableCache, unplaceableCache } from "./_unplaceable.ts";
import { holdCapacity, holdReason } from "./_hold_rule.ts";
import {
  capAt,
  capOver,
  highestCapFrom,
  lowestCapFrom,
  machineDraw,
  overEveryCap,
  runWindow,
} from "./_power.ts";

/**
 * The session's running set as the engine holds it now, for a built-in
 * policy that reads it at once (a reservation) and keeps nothing of it: it is
 * the step's scratch set, which the session's next dispatch changes in place.
 * `s.running` hands out a set that stays as it is, and so makes the engine
 * copy its scratch array at the next start or end (a copy per session).
 * Another session (a test's, a wrapper's) gets its `running`.
 */
export function runningNow(s: AdmissionSession): RunningSet {
  return Round.runningNow(s);
}

/** Runs one picker session at the clock; returns the number of jobs started. */
export function runRound(w: Working): number {
  const round = new Round(w);
  let returned: unknown;
  try {
    returned = w.admission.runSession(round);
  } catch (e) {
    throw round.fault ?? policyFailure(w.admission.name, w.time, e);
  } finally {
    round.end();
  }
  return endRound(w, round, returned);
}

/**
 * A session the core runs itself (the preemption pass, core/_preemption.ts)
 * with the picker's candidates: `pass` gives each a verdict, `passOver`
 * leaving one waiting without a PEND row. Returns the number of jobs started.
 */
export function runCoreRound(w: Working, pass: (s: CoreSession) => void): number {
  const round = new Round(w, true);
  try {
    pass(round);
  } catch (e) {
    throw round.fault ?? e;
  } finally {
    round.end();
  }
  return endRound(w, round, undefined);
}

/** What the core's own sessions may do beyond an admission policy's. */
export interface CoreSession extends AdmissionSession {
  /** Leaves the candidate just offered waiting, writing no decision. */
  passOver(job: JobRecord): void;
}

function endRound(w: Working, round: Round, returned: unknown): number {
  // A refusal or a picker's failure stands even when the policy caught it.
  if (round.fault !== undefined) throw round.fault;
  if (returned !== undefined && isThenable(returned)) {
    throw returnedPromise(w.admission.name, "runSession", w.time, returned);
  }
  // The policy believes the starts the cap refused were made: a memory it
  // kept of them (reservations) starts again from `init()`.
  if (round.powerRefused && w.admission.init !== undefined) {
    w.admissionMemory = w.admission.init();
  }
  w.pickerState = round.endSession();
  return round.dispatched;
}

// One object per session (a run has hundreds of thousands): the admission
// session, the picker's session context and the checked search in one. It is
// handed to user code, so everything of the engine's is truly private (`#`):
// a policy sees only the contract's members, and `running` as a read-only
// view (updating it returns a new set and leaves the engine's unchanged).
// Two per job on HPC2N: what follows from the run's settings is read from
// them when asked rather than copied into each session, and a resource
// model's session state is one object made only with a model.
class Round implements AdmissionSession, SessionContext, CandidateSearch {
  readonly #w: Working;
  readonly now: number;
  #session: PickerSession<unknown>;
  readonly search: CandidateSearch | undefined;
  #dispatched = 0;
  #ended = false;
  /** The first refusal or picker failure of this session. */
  #fault: EvtsimError | undefined = undefined;
  /** The candidate last offered and not yet decided (dispatched or pended). */
  #current: JobRecord | undefined = undefined;
  /**
   * Jobs needing more nodes than this are held (-1: no cut in effect; a
   * small integer, where Infinity made V8 box the field in every session).
   */
  readonly #cut: number;
  /** With a resource model: what `place` and `resources` keep for this session. */
  readonly #model: ModelRound | undefined;
  /**
   * With a power cap (core/_power.ts), what this session keeps of it; one
   * field, undefined without a cap, so an uncapped session is as it was.
   */
  readonly #power: PowerRound | undefined;
  /**
   * After a start the cap refused, `next` and `nextFitting` offer nothing
   * more: no later start of the session would be made (searchesUnderCap).
   */
  readonly #stopsAtRefusal: boolean;

  // `core`: one of the core's own sessions (a preemption's), which must see
  // every waiting job.
  constructor(w: Working, core = false) {
    this.#w = w;
    this.now = w.time;
    // Below the machine size a waiting job may need more nodes than there
    // are: `next` holds it back. The indexed search would still count it
    // among the jobs ahead, so the policies walk instead while a cut lasts.
    const hold = holdCapacity(w.capacity, w.config.totalNodes, w.drevtCapacity);
    this.#cut = hold === Infinity ? -1 : hold;
    this.#power = w.capped
      ? {
        cap: capAt(w.config, w.time),
        highest: highestCapFrom(w.config, w.time),
        lowest: lowestCapFrom(w.config, w.time),
        refused: false,
      }
      : undefined;
    this.#stopsAtRefusal = w.capped && !core && searchesUnderCap(w);
    const model = w.resourceModel;
    this.#model = model === undefined ? undefined : {
      unplaceable: w.admission.offersUnplaceable !== true ? unplaceableCache(model) : undefined,
      placedJob: undefined,
      placed: undefined,
      resources: undefined,
    };
    // A picker hook that returned a promise made it the picker's state.
    if (isThenable(w.pickerState)) {
      throw returnedPromise(w.picker.name, "a hook", w.time, w.pickerState);
    }
    let session: PickerSession<unknown>;
    try {
      session = w.picker.beginSession(w.pickerState, this);
    } catch (e) {
      throw policyFailure(w.picker.name, w.time, e);
    }
    if (isThenable(session)) throw returnedPromise(w.picker.name, "beginSession", w.time, session);
    this.#session = session;
    // Every waiting job gets a verdict only with `decisions: true`; "heads"
    // keeps the policy on its indexed path and records what it pends there.
    this.search = w.config.decisions === true || session.search === undefined ||
        this.#cut >= 0 || (w.capped && !searchesUnderCap(w))
      ? undefined
      : this;
  }

  get queuesConfigured(): boolean {
    return this.#w.queues.list.length > 0;
  }

  get endsByShadow(): boolean {
    return this.#w.picker.backfillEndsByShadow === true;
  }

  // Queues open and fill as jobs start, and a cut holds jobs back: the
  // candidates of the next session then depend on more than the order.
  get stableOrder(): boolean {
    return this.#w.picker.stableOrder === true && !this.queuesConfigured && this.#cut < 0 &&
      !this.#w.capped;
  }

  // Every applied live event (a cancel, an update, ...) counts: that is all
  // that takes a waiting job out of the candidates or reorders them.
  get waitingChanges(): number {
    return this.#w.liveSeq - this.#w.liveEvents.size;
  }

  // Only where `next` would pend none of the jobs passed over itself.
  skip(n: number, to: JobRecord): boolean {
    if (this.#ended) throw this.#late("skip");
    const session = this.#session;
    if (
      session.skip === undefined || this.#current !== undefined || this.#cut >= 0 ||
      this.#w.resourceModel !== undefined || this.queuesConfigured || this.#w.capped
    ) return false;
    try {
      if (session.skip(n, to) !== true) return false;
    } catch (e) {
      throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
    }
    this.#current = to;
    return true;
  }

  restart(): void {
    if (this.#ended) throw this.#late("restart");
    const w = this.#w;
    w.pickerState = this.endSession();
    this.#current = undefined;
    let session: PickerSession<unknown>;
    try {
      session = w.picker.beginSession(w.pickerState, this);
    } catch (e) {
      throw this.#fail(policyFailure(w.picker.name, w.time, e));
    }
    if (isThenable(session)) {
      throw this.#fail(returnedPromise(w.picker.name, "beginSession", w.time, session));
    }
    this.#session = session;
  }

  queueStates(): readonly QueueState[] {
    if (this.#ended) throw this.#late("queueStates");
    return this.#w.queues.list;
  }

  get recordsDecisions(): boolean {
    return this.#w.config.decisions !== false;
  }

  get #decisions(): boolean {
    return this.#w.config.decisions !== false;
  }

  get dispatched(): number {
    return this.#dispatched;
  }

  /** Whether the power cap refused a start of this session. */
  get powerRefused(): boolean {
    return this.#power?.refused === true;
  }

  /** The first refusal or picker failure of this session, if any. */
  get fault(): EvtsimError | undefined {
    return this.#fault;
  }

  // Keeps the session's first fault (the root cause) and returns `e` to throw.
  #fail(e: EvtsimError): EvtsimError {
    this.#fault ??= e;
    return e;
  }

  /** Ends the session for the admission policy: any later call is an error. */
  end(): void {
    this.#ended = true;
  }

  /** Ends the picker's session and returns its next state. */
  endSession(): unknown {
    try {
      return this.#session.endSession();
    } catch (e) {
      throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
    }
  }

  // A call after `runSession` returned: recorded for the run (its next step
  // fails) and thrown, so a kept session used in a later one fails at once.
  #late(method: string): EvtsimError {
    const w = this.#w;
    return lateCall(w.config, w.admission.name, method, this.now);
  }

  get free(): number {
    const f = this.#w.capacity - this.#w.allocatedNodes;
    return f > 0 ? f : 0;
  }

  get running(): RunningSet {
    return this.#w.running.persistent();
  }

  /** See {@link runningNow}. */
  static runningNow(s: AdmissionSession): RunningSet {
    return #w in s ? s.#w.running : s.running;
  }

  get resources(): SessionResources | undefined {
    const w = this.#w;
    const model = w.resourceModel;
    if (model === undefined) return undefined;
    if (this.#ended) throw this.#late("resources");
    return (this.#model!.resources ??= new ModelView(w, model, (method) => {
      if (this.#ended) throw this.#late(method);
    }));
  }

  get memory(): unknown {
    return this.#w.admissionMemory;
  }

  remember(value: unknown): void {
    if (this.#ended) throw this.#late("remember");
    this.#w.admissionMemory = value;
  }

  queueReady(name: string): boolean {
    const t = this.#w.queues;
    const i = t.byName.get(name);
    return i === undefined || queueBlock(t.list[i]) === undefined;
  }

  next(): JobRecord | undefined {
    if (this.#ended) throw this.#late("next");
    checkInterrupt();
    if (this.#stopsAtRefusal && this.#power!.refused) return this.#current = undefined;
    for (;;) {
      let job: JobRecord | undefined;
      try {
        job = this.#session.nextJob();
      } catch (e) {
        throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
      }
      this.#current = job;
      if (job === undefined) return job;
      // The hold rule (core/_hold_rule.ts): held jobs neither block the
      // jobs behind them nor hold a reservation.
      const model = this.#w.resourceModel;
      if ((this.#cut >= 0 && job.numNodes > this.#cut) || model !== undefined) {
        const held = holdReason(
          this.#cut < 0 ? Infinity : this.#cut,
          model,
          this.#w.resourceState,
          this.#model?.unplaceable,
          job,
        );
        if (held !== undefined) {
          this.pend(job, held, "exceeds_capacity");
          continue;
        }
      }
      const overCap = this.#power === undefined ? undefined : this.#heldForPower(job);
      if (overCap !== undefined) {
        this.pend(job, overCap, "exceeds_capacity");
        continue;
      }
      if (!this.queuesConfigured) return job;
      const blocked = queueReason(this.#w, job);
      if (blocked === undefined) return job;
      this.pend(job, blocked);
    }
  }

  nextFitting(
    maxNodes: number,
    limitFits: (limit: number) => boolean,
    noRoomFrom?: (job: JobRecord) => number,
  ): JobRecord | undefined {
    if (this.#ended) throw this.#late("search.nextFitting");
    checkInterrupt();
    const power = this.#power;
    if (this.#stopsAtRefusal && power!.refused) return this.#current = undefined;
    for (;;) {
      try {
        this.#current = this.#session.search!.nextFitting(maxNodes, limitFits, noRoomFrom);
      } catch (e) {
        throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
      }
      const job = this.#current;
      if (power === undefined || job === undefined) return job;
      // Held as in `next`.
      const overCap = this.#heldForPower(job);
      if (overCap === undefined) return job;
      this.pend(job, overCap, "exceeds_capacity");
    }
  }

  // Why a job is held for power (undefined: it is not), under a cap: over
  // every cap its run could meet even alone, it never starts. The one test of
  // `next` and `nextFitting`, so that the indexed search holds what the walk does.
  #heldForPower(job: JobRecord): PendReason | undefined {
    const w = this.#w;
    const over = overEveryCap(w.config, job, w.resourceModel, this.now, this.#power!);
    return over && pendReasons.exceedsPowerCap(over.draw, over.cap);
  }

  minNodesBefore(job: JobRecord | undefined): number {
    if (this.#ended) throw this.#late("search.minNodesBefore");
    try {
      return this.#session.search!.minNodesBefore(job);
    } catch (e) {
      throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
    }
  }

  maxNodesBefore(job: JobRecord | undefined): number {
    if (this.#ended) throw this.#late("search.maxNodesBefore");
    try {
      return this.#session.search!.maxNodesBefore(job);
    } catch (e) {
      throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
    }
  }

  place(job: JobRecord): PlaceResult {
    if (this.#ended) throw this.#late("place");
    const w = this.#w;
    const model = w.resourceModel;
    if (model === undefined) {
      const free = this.free;
      return job.numNodes <= free
        ? { placement: NODE_POOL }
        : { reason: pendReasons.insufficientNodes(job.numNodes, free) };
    }
    const m = this.#model!;
    if (job === m.placedJob && m.placed !== undefined) return m.placed;
    // Frozen: `dispatch` starts the job where this answer (handed to the
    // policy) places it, so the policy must not be able to swap the placement.
    const r = Object.freeze(model.place(w.resourceState, this.#offered(job, "placed")));
    m.placedJob = job;
    m.placed = r;
    return r;
  }

  // The engine's own record of the candidate a policy names: it must be the
  // one just offered (each candidate gets one verdict), and waiting. Nothing
  // of the object the policy hands back is used but its identity.
  #offered(job: JobRecord, verb: string): JobRecord {
    const w = this.#w;
    if (job !== this.#current || job === undefined) {
      throw this.#fail(
        new EvtsimError(
          "state",
          `admission policy ${w.admission.name} ${verb} ${
            describeJob(job)
          }, which is not the candidate just offered (each candidate gets one verdict: dispatch or pend)`,
        ),
      );
    }
    try {
      return waitingRecord(w, job);
    } catch (e) {
      throw this.#fail(policyFailure(w.picker.name, this.now, e));
    }
  }

  dispatch(job: JobRecord, backfill: boolean, reserved?: Placement): void {
    if (this.#ended) throw this.#late("dispatch");
    const w = this.#w;
    const rec = this.#offered(job, "started");
    const free = this.free;
    if (rec.numNodes > free) {
      throw this.#fail(
        new EvtsimError(
          "state",
          `admission policy ${w.admission.name} started job ${rec.id} needing ${rec.numNodes} nodes with ${free} free`,
        ),
      );
    }
    if (this.queuesConfigured && queueReason(w, rec) !== undefined) {
      throw this.#fail(
        new EvtsimError(
          "state",
          `admission policy ${w.admission.name} started job ${rec.id} of a queue that may not start jobs`,
        ),
      );
    }
    let placement: Placement | undefined;
    if (w.resourceModel !== undefined && reserved !== undefined) {
      // Where the policy reserved it (copied: the policy keeps its object):
      // the model says whether that is free now.
      const model = w.resourceModel;
      const own: Placement = Object.freeze({
        domain: reserved.domain,
        allocation: Object.freeze(
          reserved.allocation.map((a) =>
            Object.freeze({ nodeName: a.nodeName, replicas: a.replicas })
          ),
        ),
      });
      if (model.fits === undefined || !model.fits(w.resourceState, rec, own)) {
        throw this.#fail(
          new EvtsimError(
            "state",
            `admission policy ${w.admission.name} started job ${rec.id} on a placement resource model ${model.name} ${
              model.fits === undefined ? "cannot check (it has no fits)" : "does not have free now"
            }`,
          ),
        );
      }
      placement = own;
      this.#model!.placedJob = undefined;
      this.#model!.placed = undefined;
    } else if (w.resourceModel !== undefined) {
      const r = this.place(job);
      if (r.placement === undefined) {
        throw this.#fail(
          new EvtsimError(
            "state",
            `admission policy ${w.admission.name} started job ${rec.id}, which resource model ${w.resourceModel.name} cannot place now (${r.reason.code}: ${r.reason.message})`,
          ),
        );
      }
      placement = r.placement;
      this.#model!.placedJob = undefined;
      this.#model!.placed = undefined;
    }
    if (this.#power !== undefined && this.#refusedForPower(this.#power, job, rec, placement)) {
      if (this.#model !== undefined) {
        this.#model.placedJob = undefined;
        this.#model.placed = undefined;
      }
      return;
    }
    this.#current = undefined;
    try {
      this.#session.onDispatch(job);
    } catch (e) {
      throw this.#fail(policyFailure(w.picker.name, this.now, e));
    }
    w.startJob(rec, this.now, placement);
    this.#dispatched++;
    // A started job's last pend reason is forgotten (pend codes are ordered by id only).
    const key = { id: rec.id, code: "insufficient_nodes" as const };
    if (this.#decisions && w.pendCodes.has(key)) w.pendCodes = w.pendCodes.delete(key);
    if (placement !== undefined) {
      if (this.#decisions) w.decisionRows.push(placedRow(w, rec, this.now, backfill, placement));
      return;
    }
    if (this.#decisions) {
      const row: DispatchDecision = rec.queue === undefined
        ? {
          type: "DISPATCH",
          time: this.now,
          round: w.round,
          jobId: rec.id,
          numNodes: rec.numNodes,
          backfill: backfill === true,
        }
        : {
          type: "DISPATCH",
          time: this.now,
          round: w.round,
          jobId: rec.id,
          numNodes: rec.numNodes,
          backfill: backfill === true,
          queue: rec.queue,
        };
      w.decisionRows.push(row);
    }
  }

  // The power cap, where every admission policy's starts are applied: the
  // first start whose projected draw exceeds the cap is not made (a PEND
  // `power_cap` row), nor is any later one of this session, so the jobs
  // started stay a prefix of those the policy started and a strict order is
  // never overtaken for power. A refused job stays waiting (`onPend`).
  #refusedForPower(
    power: PowerRound,
    job: JobRecord,
    rec: JobRecord,
    placement: Placement | undefined,
  ): boolean {
    const w = this.#w;
    let reason: PendReason | undefined;
    if (!power.refused) {
      const draw = machineDraw(w, rec, placement);
      // The lowest cap in effect while the job would run: a start never takes
      // the draw over a cap that comes into effect before the job ends.
      if (draw <= power.lowest) return false;
      const cap = startCap(w, rec, power);
      if (draw <= cap.watts) return false;
      power.refused = true;
      power.first = rec.id;
      reason = pendReasons.powerCap(draw, cap.watts, cap.from > this.now ? cap.from : undefined);
    }
    this.#current = undefined;
    try {
      this.#session.onPend(job);
    } catch (e) {
      throw this.#fail(policyFailure(w.picker.name, this.now, e));
    }
    if (reason !== undefined && this.#decisions) recordPend(w, rec.id, reason);
    return true;
  }

  passOver(job: JobRecord): void {
    if (job !== this.#current) {
      throw new EvtsimError("state", "passOver: not the candidate offered");
    }
    this.#current = undefined;
    try {
      this.#session.onPend(job);
    } catch (e) {
      throw this.#fail(policyFailure(this.#w.picker.name, this.now, e));
    }
  }

  pend(
    job: JobRecord,
    reason: PendReason | (() => PendReason),
    code?: PendReasonCode,
  ): void {
    if (this.#ended) throw this.#late("pend");
    const w = this.#w;
    if (job !== this.#current || job === undefined) {
      throw this.#fail(
        new EvtsimError(
          "state",
          `admission policy ${w.admission.name} pended ${
            describeJob(job)
          }, which is not the candidate just offered (each candidate gets one verdict: dispatch or pend)`,
        ),
      );
    }
    this.#current = undefined;
    try {
      this.#session.onPend(job);
    } catch (e) {
      throw this.#fail(policyFailure(w.picker.name, this.now, e));
    }
    if (this.#decisions && this.#power?.first !== job.id) {
      const id = job.id;
      if (code !== undefined && w.pendCodes.find({ id, code })?.code === code) return;
      recordPend(w, id, typeof reason === "function" ? reason() : reason);
    }
  }
}

/**
 * The cap a start of `rec` now must stay under (watts), and from when it is
 * in effect: the lowest cap in effect while the job may run (docs/power.md).
 * The one test of a start at its dispatch and of a preemption made for it
 * (core/_preemption.ts), so that a preemptor is never refused once its
 * victims have left.
 */
export function startCap(
  w: Working,
  rec: JobRecord,
  power?: { readonly cap: number },
): { readonly watts: number; readonly from: number } {
  const c = w.config;
  if (c.powerCapSchedule === undefined) {
    return { watts: power?.cap ?? capAt(c, w.time), from: w.time };
  }
  return capOver(c, w.time, w.time + runWindow(rec));
}

// Under a power cap a policy keeps the cost of an uncapped run where that
// starts the same jobs: its indexed search, whose `nextFitting` holds a job
// over the highest cap as `next` does, and, once the cap refused a start,
// no more candidates (the walk offered every one left only to see each
// refused: a whole queue behind a machine that has nodes free but no watts).
// Only with no decisions recorded (the walk's PEND rows are what a capped
// run has always recorded), for a policy that searches by limit
// (`minNodesBefore`/`maxNodesBefore` would count a held job among the jobs
// ahead: CONSERVATIVE walks) and keeps no memory between sessions (a memory
// made from the candidates it saw could differ).
function searchesUnderCap(w: Working): boolean {
  return w.config.decisions === false && w.admission.searchesByLimit === true &&
    w.admission.init === undefined;
}

// A session's own state with a power cap.
interface PowerRound {
  /** The cap now (watts). */
  readonly cap: number;
  /** The highest cap from now on: a job over it even alone is held. */
  readonly highest: number;
  /** The lowest cap from now on: a start under it is under every cap its run meets. */
  readonly lowest: number;
  /** A start was refused for power: every later start of this session is too. */
  refused: boolean;
  /**
   * The job refused first (its PEND row says power_cap; a policy that walks
   * the candidates again, as the external protocol does, pends it again
   * without a row of its own).
   */
  first?: number;
}

// A session's own state with a resource model.
interface ModelRound {
  /** What the model can never place (undefined: none is held; the policy is offered them). */
  readonly unplaceable: UnplaceableCache | undefined;
  /** The job `place` last answered for, and its answer (until the next dispatch). */
  placedJob: JobRecord | undefined;
  placed: PlaceResult | undefined;
  /** The resource model's view, made on first use. */
  resources: ModelView | undefined;
}

// The session's view of the resource model (`AdmissionSession.resources`):
// the state is read at each access, as a dispatch replaces it.
class ModelView implements SessionResources {
  readonly #w: Working;
  readonly model: ResourceModel;
  /** Throws when the session has ended (a kept view must not read a later state). */
  readonly #check: (method: string) => void;

  constructor(w: Working, model: ResourceModel, check: (method: string) => void) {
    this.#w = w;
    this.model = model;
    this.#check = check;
  }

  get state(): unknown {
    this.#check("resources.state");
    return this.#w.resourceState;
  }

  job(id: number): JobRecord | undefined {
    this.#check("resources.job");
    const w = this.#w;
    return Number.isSafeInteger(id) && id >= w.store.firstId && id < w.nextJobId
      ? w.store.records.get(id - w.store.firstId)
      : undefined;
  }
}

// A job as a refusal names it: by id when the value has a numeric one.
function describeJob(job: unknown): string {
  const id = typeof job === "object" && job !== null ? (job as { id?: unknown }).id : undefined;
  return typeof id === "number" ? `job ${id}` : describeValue(job);
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
    ...(rec.demand !== undefined ? { perReplica: rec.demand.perReplica } : {}),
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

// The engine's record of a job the picker offered, checked to be waiting: a
// picker that hands out a job twice, a finished job or a stale copy is a bug
// to report (naming the picker and what is wrong), not to run.
function waitingRecord(w: Working, job: JobRecord): JobRecord {
  const id = job.id;
  const rec = id >= w.store.firstId && id < w.nextJobId
    ? w.store.records.get(id - w.store.firstId)
    : undefined;
  if (
    rec === undefined || rec.beginTime >= 0 || rec.endTime >= 0 || rec.rejected ||
    rec.unsubmitted === true || rec.submitTime > w.time
  ) {
    throw new EvtsimError(
      "state",
      `picker ${w.picker.name} offered ${describeJob(job)}, which is not waiting (${
        notWaiting(w, rec)
      })`,
    );
  }
  return rec;
}

function notWaiting(w: Working, rec: JobRecord | undefined): string {
  if (rec === undefined) return "no such job in the job store";
  if (rec.endTime >= 0) return `it ended at ${rec.endTime}`;
  if (rec.beginTime >= 0) return `it started at ${rec.beginTime}`;
  if (rec.rejected) return "it was rejected";
  if (rec.unsubmitted === true) return "it is not submitted";
  return `it is submitted at ${rec.submitTime}, after the clock ${w.time}`;
}

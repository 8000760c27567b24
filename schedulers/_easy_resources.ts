// EASY backfilling on a resource model (`easy` and `easy_extra` when the
// configuration has one): the same rule as on whole nodes, with "enough
// nodes free" read as "the model can place the job".
//
// - Heads: candidates start in the picker's order while they can be placed
//   now. The first that cannot is the head — unless it cannot be placed even
//   with every running job gone (it does not fit the machine): then it is
//   held with the model's reason and the next one is looked at.
// - The head's shadow time: on a private copy of the model's state
//   (`beginEdit`), running jobs are released in the order of their projected
//   ends (begin + limit), all jobs ending at one time together, until the
//   head can be placed; that end is the shadow time, and the copy is the
//   machine as the head will find it then. As on whole nodes (DR_EVT's
//   reservation), running jobs whose projected end is not after now release
//   nothing: when only they would make room, the shadow is now and nothing
//   is backfilled in that pass. `easy` reads only the time, so with a model
//   that has `releaseScan` it releases them on the scan instead, which
//   answers the same without copying the state.
// - A later candidate starts now if it can be placed now and:
//   `easy`: ends (by its limit) before the shadow time — by it for pickers
//   with `backfillEndsByShadow` (DR_EVT's SJF/LJF) — and nothing else;
//   `easy_extra`: ends by the shadow time, or starting it leaves the head
//   placeable at the shadow time — it is allocated where it starts now on
//   the copy and the head placed again; if that fails it is taken off the
//   copy again. This is the "extra nodes" rule per resource: what it may use
//   is what the head will not need at the shadow time, of every resource.
//   The shadow time is computed once per pass; with a model that has
//   `releaseScan`, by the scan, and the copy is made only when the pass
//   first tries a candidate on it (most passes try none), with the jobs the
//   pass started before then (all ending by the shadow time) released too.
//
// With a verdict for every job (`decisions: true`) both walk every candidate
// and pend each with its reason: the model's for one that cannot be placed
// now, `reservation_blocked` (the head and its shadow time) for one held back.
// Otherwise they decide the same without the reasons, more cheaply: `easy`
// searches by limit (see `easySearch`), and both skip, per replica shape,
// candidates the model has already found no room for in the pass. The
// node-count pool's numNodes is checked beside the model (free now, and free
// at the shadow time on the copy). Whole-node runs never come here.

import type { AdmissionSession, SessionResources } from "../core/admission.ts";
import { type PendReason, pendReasons } from "../core/decisions.ts";
import type { Placement, ReleaseScan, ResourceModel } from "../core/resource_model.ts";
import type { RunningJob, RunningSet } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import { demandShapeId } from "../core/_demand_shape.ts";
import { runningNow } from "../core/_session.ts";
import { releaseWalk } from "../core/_model_shadow.ts";

/** The head's reservation: when, and the machine as it will find it then. */
interface Shadow {
  /** The shadow time (now: only overrunning jobs make room; nothing is backfilled). */
  readonly time: number;
  /**
   * The model's state at the shadow time: a `beginEdit` copy owned by the
   * pass, or, for a shadow only read (`easy`), one already ended or none
   * (found by the model's `releaseScan`).
   */
  state?: unknown;
  /** Whether `state` is already ended or absent (a shadow only read: the pass does not end it). */
  ended?: boolean;
  /** Node-count pool nodes free at the shadow time. */
  nodes: number;
}

/** Whether `model` can place `job` in `state` (its cheap `canPlace` when it has one). */
function canPlace(model: ResourceModel, state: unknown, job: JobRecord): boolean {
  return model.canPlace !== undefined
    ? model.canPlace(state, job)
    : model.place(state, job).placement !== undefined;
}

/**
 * The head's shadow computed last per model, and what it depends on: the
 * model's state (its `versionOf`: nothing allocated or released since), the
 * node-count pool's free nodes, the running set (its size and first job:
 * guards beside the version) and the head. It holds while they are the same
 * and no running job has reached its projected end (none released nothing).
 */
interface ShadowMemo {
  version: number;
  readonly head: JobRecord;
  free: number;
  running: number;
  first: number;
  firstEnd: number;
  readonly shadow: Shadow;
}

const shadowMemos = new WeakMap<ResourceModel, ShadowMemo>();

/** The model state's version when a shadow may be kept for it (no running job has overrun). */
function memoVersion(
  s: AdmissionSession,
  res: SessionResources,
  running: RunningSet,
): number | undefined {
  const first = running.first();
  return first !== undefined && first.projectedEnd > s.now
    ? res.model.versionOf?.(res.state)
    : undefined;
}

/** The head's shadow kept from an earlier lookup, if it still holds (see `ShadowMemo`). */
function keptShadow(
  s: AdmissionSession,
  res: SessionResources,
  head: JobRecord,
  version: number,
  running: RunningSet,
): Shadow | undefined {
  const m = shadowMemos.get(res.model);
  const first = running.first()!;
  return m !== undefined && m.version === version && m.head === head && m.free === s.free &&
      m.running === running.size && m.first === first.id && m.firstEnd === first.projectedEnd
    ? m.shadow
    : undefined;
}

/**
 * The head's shadow, or undefined when it cannot be placed even with every
 * running job released (it does not fit the machine). `read`: the pass only
 * reads the shadow's time and nodes (`easy`), so a shadow computed in an
 * earlier session for the same machine and head is given again. `running`:
 * the session's running set as it is now (`s.running`, read once: each
 * read of it makes a view).
 */
function shadowOf(
  s: AdmissionSession,
  res: SessionResources,
  head: JobRecord,
  read: boolean,
  running: RunningSet,
  resume?: LowWalk,
): Shadow | undefined {
  const model = res.model;
  const first = running.first();
  const version = read ? memoVersion(s, res, running) : undefined;
  if (version !== undefined) {
    const kept = keptShadow(s, res, head, version, running);
    if (kept !== undefined) return kept;
  }
  const shadow = read && model.releaseScan !== undefined
    ? scanShadow(s, res, head, running, resume)
    : computeShadow(s, res, head, running);
  if (version !== undefined && shadow !== undefined) {
    if (shadow.ended !== true) model.endEdit(shadow.state);
    const kept = { time: shadow.time, state: shadow.state, nodes: shadow.nodes, ended: true };
    shadowMemos.set(model, {
      version,
      head,
      free: s.free,
      running: running.size,
      first: first!.id,
      firstEnd: first!.projectedEnd,
      shadow: kept,
    });
    return kept;
  }
  return shadow;
}

/**
 * Ends the shadow's copy of the model's state, unless it is already ended.
 * A kept shadow (`easy`) still holds after the pass: every job the pass
 * started after looking it up ends by its time (projected), so the machine
 * is the same at the shadow time and has no more room before it. It is
 * kept for the machine as the pass leaves it.
 */
function endShadow(s: AdmissionSession, res: SessionResources, shadow: Shadow): void {
  if (shadow.ended !== true) return void res.model.endEdit(shadow.state);
  const m = shadowMemos.get(res.model);
  if (m?.shadow !== shadow) return;
  const running = s.running;
  const first = running.first();
  if (first === undefined || !(first.projectedEnd > s.now)) return;
  m.version = res.model.versionOf!(res.state);
  m.free = s.free;
  m.running = running.size;
  m.first = first.id;
  m.firstEnd = first.projectedEnd;
}

/**
 * `computeShadow` for a shadow only read, on the model's `releaseScan`:
 * the same releases in the same order (core's `releaseWalk`), without a
 * copy of the state. `resume`: `lowerBound`'s walk, with nothing started
 * since: resumed at its time (before it `mayPlace` ruled the head out, so
 * the walk would have placed it at none), not walked again from the start.
 */
function scanShadow(
  s: AdmissionSession,
  res: SessionResources,
  head: JobRecord,
  running: RunningSet,
  resume?: LowWalk,
): Shadow | undefined {
  const record = (id: number) => runningRecord(res, id);
  const at = resume === undefined
    ? releaseWalk(
      running,
      s.now,
      s.free,
      head.numNodes,
      res.model.releaseScan!(res.state, head),
      record,
    )
    : resume.scan.canPlace()
    ? { time: resume.at, nodes: resume.nodes }
    : releaseWalk(running, s.now, resume.nodes, head.numNodes, resume.scan, record, resume);
  return at === undefined ? undefined : { time: at.time, nodes: at.nodes, ended: true };
}

function computeShadow(
  s: AdmissionSession,
  res: SessionResources,
  head: JobRecord,
  running: RunningSet,
): Shadow | undefined {
  const model = res.model;
  const copy = model.beginEdit(res.state);
  const scan = {
    release: (job: JobRecord) => void model.release(copy, job),
    canPlace: () => canPlace(model, copy, head),
  };
  const at = releaseWalk(
    running,
    s.now,
    s.free,
    head.numNodes,
    scan,
    (id) => runningRecord(res, id),
  );
  if (at === undefined) {
    model.endEdit(copy);
    return undefined;
  }
  // At now (only overrunning jobs make room) the blocked pass never looks at the copy again.
  return { time: at.time, state: copy, nodes: at.nodes };
}

/** Whether `job` can start now: its nodes are free and the model places it. */
function placeNow(s: AdmissionSession, job: JobRecord): Placement | PendReason {
  if (job.numNodes > s.free) return pendReasons.insufficientNodes(job.numNodes, s.free);
  const r = s.place(job);
  return r.placement ?? r.reason;
}

/** Why `job`, which cannot start now, cannot: its nodes, or the model's reason. */
function reasonNow(s: AdmissionSession, res: SessionResources, job: JobRecord): PendReason {
  if (job.numNodes > s.free) return pendReasons.insufficientNodes(job.numNodes, s.free);
  return res.model.place(res.state, job).reason ?? pendReasons.insufficientNodes(0, s.free);
}

function isPlacement(x: Placement | PendReason): x is Placement {
  return (x as PendReason).code === undefined;
}

/**
 * `easy_extra`'s shadow on a model with `releaseScan`: its time found by the
 * scan, and the copy of the state at that time made only when a candidate
 * is first tried on it (`copyAtShadow`; most passes try none).
 */
interface LazyShadow {
  readonly shadow: Shadow;
  /** The jobs the pass started before the copy was made (each ends by the shadow time). */
  readonly started: JobRecord[];
}

/**
 * The copy `computeShadow` would have made at the start of the pass: the
 * state as it is now, with the running jobs projected to end after the
 * pass's clock and by the shadow time released, and the jobs the pass
 * started since (all ending by then; one of no limit ends at the clock)
 * released too — the same free units.
 */
function copyAtShadow(s: AdmissionSession, res: SessionResources, lazy: LazyShadow): void {
  const model = res.model;
  const now = s.now;
  const shadow = lazy.shadow;
  const copy = model.beginEdit(res.state);
  const running = s.running;
  for (let r = running.first(); r !== undefined && r.projectedEnd <= shadow.time;) {
    if (r.projectedEnd > now && !lazy.started.some((j) => j.id === r!.id)) {
      model.release(copy, runningRecord(res, r.id));
    }
    r = running.after(r);
  }
  for (const job of lazy.started) model.release(copy, runningRecord(res, job.id));
  shadow.state = copy;
  shadow.ended = false;
}

/**
 * Would `job`, started now where `placement` puts it, still leave the head
 * placeable at the shadow time? If so it stays on the copy (it runs then).
 * `lazy`: the copy is made first if it is not yet.
 */
function leavesHeadRoom(
  s: AdmissionSession,
  res: SessionResources,
  shadow: Shadow,
  lazy: LazyShadow | undefined,
  head: JobRecord,
  job: JobRecord,
  placement: Placement,
): boolean {
  const model = res.model;
  if (lazy !== undefined && shadow.state === undefined) copyAtShadow(s, res, lazy);
  model.allocate(shadow.state, job, placement);
  shadow.nodes -= job.numNodes;
  if (head.numNodes <= shadow.nodes && canPlace(model, shadow.state, head)) return true;
  model.release(shadow.state, job);
  shadow.nodes += job.numNodes;
  return false;
}

/** `reservation_blocked` for a job placed by a model: its end and the head's reservation. */
function blocked(job: JobRecord, free: number, end: number, shadow: number, head: number) {
  return () => pendReasons.reservationBlocked(job.numNodes, free, end, shadow, head);
}

// Whether a job can be placed on the empty machine, per model and record: a
// pure answer, kept so that a held job costs one placement, not one per pass.
const fitsMachineCache = new WeakMap<ResourceModel, WeakMap<JobRecord, boolean>>();

// A running job's record: the view has every running job's.
function runningRecord(res: SessionResources, id: number): JobRecord {
  return res.job(id)!;
}

function fitsMachine(model: ResourceModel, job: JobRecord): boolean {
  let byJob = fitsMachineCache.get(model);
  if (byJob === undefined) fitsMachineCache.set(model, byJob = new WeakMap());
  let fits = byJob.get(job);
  if (fits === undefined) {
    fits = canPlace(model, model.initial, job);
    byJob.set(job, fits);
  }
  return fits;
}

/** A limit test no limit passes. */
const never = (_limit: number) => false;

/** `easy`'s test of a limit against shadow time `at`: DR_EVT's boundary per picker. */
function endsBefore(s: AdmissionSession, at: number): (limit: number) => boolean {
  const now = s.now;
  return s.endsByShadow
    ? (limit: number) => at > now && limit <= at - now
    : (limit: number) => now + limit < at;
}

// `easy`'s follow-up session on a resource model, skipped as on whole nodes
// (schedulers/admission.ts): after a session that started jobs the core runs
// another at the same clock with nothing in between; with a stable order and
// the indexed search it starts nothing. Its head is the same job: those
// before it started or still do not fit the machine, and it still cannot be
// placed (units and nodes only went down; placing is monotone in them, as
// `NoRoom` assumes). Its shadow time is the same: every job backfilled ends
// (limit > 0) after now and before it, so at the shadow time the release
// scan finds the same machine, and before it no more room than the first
// session's scan did. So a job passed over (no room now, or not ending in
// time) is passed over again. A backfilled job of no time limit has
// overrun in the follow-up (it releases only at the end of the scan), which
// can move the shadow later: then no skip. Recognised by the engine's
// running set (a new object every step), the clock, the free nodes, the
// running count, the model's state (object and version), in another session.
interface ResFollowUp {
  readonly session: AdmissionSession;
  readonly running: RunningSet;
  readonly now: number;
  readonly free: number;
  readonly size: number;
  readonly state: unknown;
  readonly version: number | undefined;
}

let resFollowUp: ResFollowUp | undefined;

/** Whether the follow-up skip may apply to `s` at all (see `ResFollowUp`). */
function skippable(s: AdmissionSession): boolean {
  return s.search !== undefined && s.stableOrder === true && !s.endsByShadow;
}

function markResFollowUp(s: AdmissionSession, res: SessionResources, startedBefore: number): void {
  const running = runningNow(s);
  // Nothing started: the core runs no session right after this one.
  if (running.size === startedBefore) return;
  resFollowUp = {
    session: s,
    running,
    now: s.now,
    free: s.free,
    size: running.size,
    state: res.state,
    version: res.model.versionOf?.(res.state),
  };
}

function isResFollowUp(s: AdmissionSession, res: SessionResources, f: ResFollowUp): boolean {
  if (f.session === s || f.now !== s.now || f.free !== s.free || f.state !== res.state) {
    return false;
  }
  if (f.version !== res.model.versionOf?.(res.state) || !skippable(s)) return false;
  const running = runningNow(s);
  return f.running === running && f.size === running.size;
}

/** One EASY session on a resource model; `extra`: easy_extra's rule (see the module comment). */
export function easyOnResources(
  s: AdmissionSession,
  res: SessionResources,
  extra: boolean,
): void {
  if (extra) return void easyPass(s, res, true);
  const after = resFollowUp;
  resFollowUp = undefined;
  if (after !== undefined && isResFollowUp(s, res, after)) return;
  if (!skippable(s)) return void easyPass(s, res, false);
  const startedBefore = runningNow(s).size;
  if (easyPass(s, res, false)) markResFollowUp(s, res, startedBefore);
}

/**
 * One pass of `easyOnResources`; true when it ended with every candidate
 * looked at and each job it backfilled has a time limit (see `ResFollowUp`).
 */
function easyPass(s: AdmissionSession, res: SessionResources, extra: boolean): boolean {
  const model = res.model;
  let head: JobRecord | undefined;
  for (let job = s.next(); job !== undefined; job = s.next()) {
    // Asked first without a placement (most candidates here are the head).
    if (job.numNodes <= s.free && canPlace(model, res.state, job)) {
      s.dispatch(job, false);
      continue;
    }
    const held = job;
    s.pend(job, () => reasonNow(s, res, held));
    if (fitsMachine(model, job)) {
      head = job;
      break;
    }
  }
  if (head === undefined) return true;
  if (!extra && s.search !== undefined) return easySearch(s, res, head);
  // easy_extra on a model with `releaseScan`: the time by the scan, the copy when first needed.
  const scans = extra && model.releaseScan !== undefined;
  const shadow = scans
    ? scanShadow(s, res, head, s.running)
    : shadowOf(s, res, head, !extra, s.running);
  if (shadow === undefined) return false;
  const lazy: LazyShadow | undefined = scans ? { shadow, started: [] } : undefined;
  /** Starts `job`, which ends by the shadow time (noted while the copy is not made). */
  const startInTime = (job: JobRecord) => {
    if (lazy !== undefined && shadow.state === undefined) lazy.started.push(job);
    s.dispatch(job, true);
  };
  const now = s.now;
  const at = shadow.time;
  const open = at > now;
  const endsInTime = extra ? (limit: number) => now + limit <= at : endsBefore(s, at);
  if (s.search !== undefined) {
    // No verdict is needed for every job: a blocked pass looks no further,
    // and a candidate is placed only to start it or to try it on the copy.
    const noRoom = new NoRoom();
    for (let job = s.next(); open && job !== undefined; job = s.next()) {
      if (noRoom.fails(job)) continue;
      if (!(job.numNodes <= s.free && canPlace(model, res.state, job))) {
        noRoom.add(job, model, res.state);
      } else if (endsInTime(job.timeLimit)) startInTime(job);
      else if (
        extra && leavesHeadRoom(s, res, shadow, lazy, head, job, s.place(job).placement!)
      ) {
        s.dispatch(job, true);
      }
    }
    endShadow(s, res, shadow);
    return false;
  }
  for (let job = s.next(); job !== undefined; job = s.next()) {
    const free = s.free;
    const fits = placeNow(s, job);
    if (!isPlacement(fits)) s.pend(job, fits);
    else if (open && endsInTime(job.timeLimit)) startInTime(job);
    else if (open && extra && leavesHeadRoom(s, res, shadow, lazy, head, job, fits)) {
      s.dispatch(job, true);
    } else s.pend(job, blocked(job, free, now + job.timeLimit, at, head.id));
  }
  endShadow(s, res, shadow);
  return false;
}

// `easy` with the picker's indexed search (no verdict needed for every job):
// only candidates whose limit ends in time are looked at, and those the
// model cannot place now are passed over without one. The shadow time lies
// between two bounds known without computing it: it is at most the last
// projected end of a running job (or now, when only overrunning jobs make
// room), and — when no running job has overrun — at least the first one, as
// the head cannot be placed now. Candidates are searched against the upper
// bound; one that can be placed now and ends before the lower bound starts at
// once, and the shadow is computed only for one between the two. Before
// that, a model with `releaseScan` raises the lower bound to the first
// projected end by which the free units of all nodes together could hold
// the head (`mayPlace`: no node looked at).
// Returns true when the pass ended with every candidate looked at and each
// job it backfilled has a time limit (see `ResFollowUp`).
function easySearch(s: AdmissionSession, res: SessionResources, head: JobRecord): boolean {
  const search = s.search!;
  // The running set, read again only after a start (each read makes a view).
  let running: RunningSet | undefined = s.running;
  const first = running.first();
  const noOverrun = first !== undefined && first.projectedEnd > s.now;
  let early = noOverrun ? endsBefore(s, first.projectedEnd) : never;
  let raised = !noOverrun || res.model.releaseScan === undefined;
  // A shadow kept from an earlier session bounds the search by limit from the start.
  const version = memoVersion(s, res, running);
  let shadow = version === undefined ? undefined : keptShadow(s, res, head, version, running);
  let fits: (limit: number) => boolean;
  if (shadow !== undefined) fits = endsBefore(s, shadow.time);
  else {
    // Else by the last projected end (a walk of the running set, not needed with a kept shadow).
    let bound = s.now;
    for (let r = first; r !== undefined; r = running.after(r)) {
      if (r.projectedEnd > bound) bound = r.projectedEnd;
    }
    fits = endsBefore(s, bound);
  }
  const noRoom = new NoRoom(res);
  const noRoomFrom = noRoom.from;
  let ending = true;
  for (let job = search.nextFitting(s.free, fits, noRoomFrom); job !== undefined;) {
    if (fits(job.timeLimit) && !noRoom.fails(job)) {
      if (!(job.numNodes <= s.free && canPlace(res.model, res.state, job))) {
        noRoom.add(job, res.model, res.state);
        job = search.nextFitting(s.free, fits, noRoomFrom);
        continue;
      }
      // The lower bound's walk, for a shadow computed right after it (nothing started since).
      let low: LowWalk | undefined;
      if (shadow === undefined && !raised && !early(job.timeLimit)) {
        raised = true;
        low = lowerBound(s, res, head, running ??= s.running);
        if (low !== undefined) early = endsBefore(s, low.at);
      }
      if (shadow === undefined && early(job.timeLimit)) {
        if (!(job.timeLimit > 0)) ending = false;
        s.dispatch(job, true);
        running = undefined;
      } else {
        if (shadow === undefined) {
          shadow = shadowOf(s, res, head, true, running ??= s.running, low);
          if (shadow === undefined) return false;
          fits = endsBefore(s, shadow.time);
        }
        if (fits(job.timeLimit)) {
          if (!(job.timeLimit > 0)) ending = false;
          s.dispatch(job, true);
          running = undefined;
        }
      }
    }
    job = search.nextFitting(s.free, fits, noRoomFrom);
  }
  if (shadow !== undefined) endShadow(s, res, shadow);
  return ending;
}

/** `lowerBound`'s answer and where its walk stopped (see `releaseWalk`'s `resume`). */
interface LowWalk {
  /** The lower bound. */
  readonly at: number;
  /** The node-count pool's nodes free with every job ending by `at` released. */
  readonly nodes: number;
  /** The scan they are released on. */
  readonly scan: ReleaseScan;
  /** The first running job ending after `at` (undefined: none). */
  readonly next: RunningJob | undefined;
}

/**
 * A lower bound of the head's shadow time when no running job has overrun:
 * the first projected end by which, with every job ending by then released,
 * the model's `mayPlace` does not rule the head out (undefined: none does).
 */
function lowerBound(
  s: AdmissionSession,
  res: SessionResources,
  head: JobRecord,
  running: RunningSet,
): LowWalk | undefined {
  const scan = res.model.releaseScan!(res.state, head);
  let nodes = s.free;
  let r = running.first();
  while (r !== undefined) {
    const at = r.projectedEnd;
    while (r !== undefined && r.projectedEnd === at) {
      scan.release(runningRecord(res, r.id));
      nodes += r.numNodes;
      r = running.after(r);
    }
    if (head.numNodes <= nodes && scan.mayPlace()) return { at, nodes, scan, next: r };
  }
  return undefined;
}

/**
 * During one pass, per replica shape, the fewest replicas the model could
 * not place now (or fewer: above its `roomFor` none can be). Jobs only start during a pass (none ends), so a shape that
 * found no room for r replicas finds none for more: such a candidate is
 * passed over without asking the model (only where no verdict is needed).
 */
class NoRoom {
  /** By shape number (none yet: undefined). */
  readonly #least: (number | undefined)[] = [];
  /** Shapes in `#least`. */
  #count = 0;
  /** The model and its state, when the model bounds a shape's room before any candidate (`shapeRoom`). */
  readonly #res: SessionResources | undefined;

  /** `res`: ask the model's `shapeRoom` for a shape's bound when first asked for it (`from`). */
  constructor(res?: SessionResources) {
    this.#res = res?.model.shapeRoom !== undefined ? res : undefined;
  }

  fails(job: JobRecord): boolean {
    if (this.#count === 0) return false;
    const id = demandShapeId(job);
    const least = id < 0 ? undefined : this.#least[id];
    return least !== undefined && job.demand!.replicas >= least;
  }

  /**
   * The fewest replicas of `job`'s shape found no room (Infinity: none):
   * the search's `noRoomFrom`, so that the picker skips them all at once.
   * `shape`: `job`'s shape number when the caller has it (the wait queue
   * files jobs by it).
   */
  readonly from = (job: JobRecord, shape?: number): number => {
    const res = this.#res;
    if (res === undefined) {
      if (this.#count === 0) return Infinity;
      const id = shape ?? demandShapeId(job);
      return (id < 0 ? undefined : this.#least[id]) ?? Infinity;
    }
    const id = shape ?? demandShapeId(job);
    if (id < 0) return Infinity;
    let least = this.#least[id];
    if (least === undefined) {
      // Asked once per shape and pass, in the state as it is then: later
      // starts in the pass only shrink the room.
      least = res.model.shapeRoom!(res.state, job) + 1;
      this.#set(id, least);
    }
    return least;
  };

  #set(id: number, least: number): void {
    if (this.#least[id] === undefined) this.#count++;
    this.#least[id] = least;
  }

  /**
   * `job`, just found no room for in `state`: from its replicas on (or from
   * fewer, by the model's `roomFor`), its shape has none in this pass.
   */
  add(job: JobRecord, model: ResourceModel, state: unknown): void {
    const id = demandShapeId(job);
    if (id < 0 || job.numNodes > 0) return;
    let from = job.demand!.replicas;
    if (model.roomFor !== undefined) from = Math.min(from, model.roomFor(state, job) + 1);
    const least = this.#least[id];
    if (least === undefined || from < least) this.#set(id, from);
  }
}

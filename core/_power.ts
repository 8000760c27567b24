// The power model the core schedules with (docs/power.md). The machine's
// draw at an instant is
//
//   idleWatts × (totalNodes − allocatedNodes)      nodes holding no job
// + busyWatts × allocatedNodes                     nodes holding a job
// + Σ power of the running jobs                    the jobs' own draw
//
// (a node offline or down still counts as idle: it is not switched off).
// With `nodeWatts` (a machine's groups) each node of the resource model has
// its own idle and busy watts, and it is busy while any running job has an
// allocation on it: the first two lines become the sum, in the model's node
// order, of each node's idle or busy watts.
// The draw is defined as that sum taken left to right: the nodes' draw (in
// node order with node watts), then each running job's own power in the
// running set's order. A total updated start by start would round
// differently depending on how a run was cut into steps, and batch,
// streaming and a restored snapshot must agree to the bit; so a step keeps a
// `PowerTally` (its own, rebuilt from the running set when a step first
// needs it, never in the state or a snapshot) that gives the same double
// without the walk whenever the order cannot matter: no running job has a
// power of its own, or every addend is an integer (exact in any order while
// the total stays under 2^53). Otherwise (fractional watts) the sums are
// taken in order as defined, from the tally's per-node counts.
//
// A power cap is `powerCap` before the first change of `powerCapSchedule`,
// then each change's watts until the next; no cap (Infinity) when neither
// gives one yet. A start is made only if the draw it projects stays at or
// under the cap (core/_session.ts).

import type { ResolvedConfig } from "./config.ts";
import { EvtsimError } from "./errors.ts";
import type { Placement, ResourceModel } from "./resource_model.ts";
import type { RunningSet } from "./running.ts";
import type { JobRecord } from "./types.ts";

/** True when the configuration gives a power model (a cap or node watts). */
export function powerModelOn(c: ResolvedConfig): boolean {
  return c.powerCap !== undefined || c.powerCapSchedule !== undefined ||
    c.idleWatts !== undefined || c.busyWatts !== undefined || c.nodeWatts !== undefined;
}

/** True when the configuration caps the power (a constant cap or a schedule). */
export function powerCapped(c: ResolvedConfig): boolean {
  return c.powerCap !== undefined ||
    (c.powerCapSchedule !== undefined && c.powerCapSchedule.length > 0);
}

/** The cap in effect at `time` (Infinity: none). */
export function capAt(c: ResolvedConfig, time: number): number {
  let cap = c.powerCap ?? Infinity;
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (let i = 0; i < s.length && s[i].time <= time; i++) cap = s[i].watts;
  }
  return cap;
}

/** The highest cap in effect at `time` or later (Infinity: some instant has none). */
export function highestCapFrom(c: ResolvedConfig, time: number): number {
  let most = capAt(c, time);
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (const x of s) if (x.time > time && x.watts > most) most = x.watts;
  }
  return most;
}

/**
 * The lowest cap in effect at some instant of [`from`, `until`) (Infinity:
 * none), and the first instant it is in effect: what a job started at
 * `from` and running until `until` must stay under.
 */
export function capOver(
  c: ResolvedConfig,
  from: number,
  until: number,
): { readonly watts: number; readonly from: number } {
  let watts = capAt(c, from), at = from;
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (const x of s) {
      if (x.time > from && x.time < until && x.watts < watts) {
        watts = x.watts;
        at = x.time;
      }
    }
  }
  return { watts, from: at };
}

/**
 * The highest cap a job running `length` seconds can stay under if started
 * at `time` or later: over its possible starts (now and each later change
 * of the cap), the best of the lowest caps its run would meet. A job whose
 * draw alone is over it can never start.
 */
export function bestWindowCap(c: ResolvedConfig, time: number, length: number): number {
  let best = capOver(c, time, time + length).watts;
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (const x of s) {
      if (x.time > time) best = Math.max(best, capOver(c, x.time, x.time + length).watts);
    }
  }
  return best;
}

/**
 * Whether `job` can never start under the caps from `time` on: its draw
 * alone on an idle machine and the best cap a run of its length could meet,
 * when the draw is over it (undefined: some start would fit). `bounds`, the
 * lowest and highest caps from `time` on, when the caller keeps them.
 */
export function overEveryCap(
  c: ResolvedConfig,
  job: JobRecord,
  model: ResourceModel | undefined,
  time: number,
  bounds: { readonly lowest: number; readonly highest: number } = {
    lowest: lowestCapFrom(c, time),
    highest: highestCapFrom(c, time),
  },
): { readonly draw: number; readonly cap: number } | undefined {
  const draw = aloneDraw(c, job, model);
  if (draw <= bounds.lowest) return undefined;
  const cap = c.powerCapSchedule === undefined
    ? bounds.highest
    : bestWindowCap(c, time, runWindow(job));
  return draw > cap ? { draw, cap } : undefined;
}

/** How long a job started now may run: its time limit, or its run time if that is longer. */
export function runWindow(job: JobRecord): number {
  return job.runTime > job.timeLimit ? job.runTime : job.timeLimit;
}

/** The lowest cap in effect at `time` or later (Infinity: none ever). */
export function lowestCapFrom(c: ResolvedConfig, time: number): number {
  let least = capAt(c, time);
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (const x of s) if (x.time > time && x.watts < least) least = x.watts;
  }
  return least;
}

/** When the cap next changes after `time` (Infinity: never). */
export function nextCapChange(c: ResolvedConfig, time: number): number {
  const s = c.powerCapSchedule;
  if (s === undefined) return Infinity;
  for (const x of s) if (x.time > time) return x.time;
  return Infinity;
}

/** What the engine's draw is computed from. */
export interface PowerView {
  readonly config: ResolvedConfig;
  readonly allocatedNodes: number;
  readonly running: RunningSet;
  readonly resourceModel: ResourceModel | undefined;
  readonly resourceState: unknown;
  recordOf(id: number): JobRecord;
  /** This step's tally of the running jobs (core/_engine.ts keeps it). */
  powerTally(): PowerTally;
}

// Each node's idle and busy watts, by node name, made once per configuration.
interface WattsTable {
  readonly index: ReadonlyMap<string, number>;
  readonly idle: Float64Array;
  readonly busy: Float64Array;
  /** Every node's watts are integers and all of them sum under 2^53. */
  readonly integral: boolean;
  /** Σ idle watts (used only when `integral`). */
  readonly idleTotal: number;
}
const tables = new WeakMap<ResolvedConfig, WattsTable>();

/**
 * The node watts of a configuration with `nodeWatts`, checked against its
 * resource model (throws a usage error when the runs do not cover its nodes).
 */
export function wattsTable(c: ResolvedConfig, model: ResourceModel | undefined): WattsTable {
  const known = tables.get(c);
  if (known !== undefined) return known;
  const nodes = model?.nodes;
  if (nodes === undefined || model?.allocationOf === undefined) {
    throw new EvtsimError(
      "usage",
      "node watts need a resource model that lists its nodes and their allocations",
    );
  }
  const runs = c.nodeWatts!;
  const total = runs.reduce((n, r) => n + r.nodes, 0);
  if (total !== nodes.length) {
    throw new EvtsimError(
      "usage",
      `node watts cover ${total} nodes, but the resource model has ${nodes.length}`,
    );
  }
  const idle = new Float64Array(total), busy = new Float64Array(total);
  let i = 0;
  for (const r of runs) {
    for (let k = 0; k < r.nodes; k++, i++) {
      idle[i] = r.idleWatts;
      busy[i] = r.busyWatts;
    }
  }
  let integral = true, idleTotal = 0, all = 0;
  for (let k = 0; k < total; k++) {
    if (!Number.isInteger(idle[k]) || !Number.isInteger(busy[k])) integral = false;
    idleTotal += idle[k];
    all += idle[k] + busy[k];
  }
  if (!(all <= Number.MAX_SAFE_INTEGER)) integral = false;
  const table = {
    index: new Map(nodes.map((n, k) => [n.name, k])),
    idle,
    busy,
    integral,
    idleTotal,
  };
  tables.set(c, table);
  return table;
}

// A job's own power counts as an integer addend up to 2^40 W: with fewer
// than 2^13 such jobs running, every partial sum stays exact.
const EXACT_POWER = 2 ** 40;

/**
 * What a step keeps of the running jobs for the draw, updated at each start
 * and end (core/_engine.ts), so that a check costs O(1), or O(placement)
 * with node watts, instead of a walk over the running jobs (header above).
 */
export class PowerTally {
  /** Running jobs with a power of their own. */
  powered = 0;
  /** Of those, the ones whose power is not an integer addend (EXACT_POWER). */
  inexact = 0;
  /** Σ of the integer powers (exact). */
  sum = 0;
  /** With node watts: allocations of running jobs on each node, in node order (busy while > 0). */
  readonly held: Int32Array | undefined;
  /** With integral node watts: Σ (busy − idle) over the nodes held. */
  heldExtra = 0;
  readonly #table: WattsTable | undefined;

  constructor(w: PowerView) {
    const c = w.config;
    this.#table = c.nodeWatts === undefined ? undefined : wattsTable(c, w.resourceModel);
    this.held = this.#table === undefined ? undefined : new Int32Array(this.#table.idle.length);
    for (const r of w.running.values()) this.add(w, r.id);
  }

  /** A job joined the running set (its allocation, if any, already made). */
  add(w: PowerView, id: number): void {
    this.#count(w, id, 1);
  }

  /** A job left the running set (called before its allocation is released). */
  remove(w: PowerView, id: number): void {
    this.#count(w, id, -1);
  }

  #count(w: PowerView, id: number, by: 1 | -1): void {
    const p = w.recordOf(id).power;
    if (p !== undefined) {
      this.powered += by;
      if (Number.isInteger(p) && p <= EXACT_POWER) this.sum += by * p;
      else this.inexact += by;
    }
    const t = this.#table, held = this.held;
    if (t === undefined || held === undefined) return;
    for (const a of w.resourceModel!.allocationOf!(w.resourceState, id) ?? []) {
      const k = t.index.get(a.nodeName);
      if (k === undefined) continue;
      const before = held[k];
      held[k] = before + by;
      if (t.integral) {
        if (before === 0 && by === 1) this.heldExtra += t.busy[k] - t.idle[k];
        else if (before === 1 && by === -1) this.heldExtra -= t.busy[k] - t.idle[k];
      }
    }
  }
}

// The nodes' draw with node watts: each node idle or busy, in node order.
function nodesDraw(w: PowerView, tally: PowerTally, placement: Placement | undefined): number {
  const t = wattsTable(w.config, w.resourceModel);
  const held = tally.held!;
  const alloc = placement?.allocation;
  if (t.integral) {
    // Integers: the order of the additions cannot change the sum.
    let draw = t.idleTotal + tally.heldExtra;
    if (alloc !== undefined && alloc.length > 0) {
      const seen = alloc.length > 1 ? new Set<number>() : undefined;
      for (const a of alloc) {
        const k = t.index.get(a.nodeName);
        if (k === undefined || held[k] > 0 || seen?.has(k) === true) continue;
        seen?.add(k);
        draw += t.busy[k] - t.idle[k];
      }
    }
    return draw;
  }
  let extra: Uint8Array | undefined;
  if (alloc !== undefined && alloc.length > 0) {
    extra = new Uint8Array(t.idle.length);
    for (const a of alloc) {
      const k = t.index.get(a.nodeName);
      if (k !== undefined) extra[k] = 1;
    }
  }
  let draw = 0;
  for (let k = 0; k < held.length; k++) {
    draw += held[k] > 0 || extra?.[k] === 1 ? t.busy[k] : t.idle[k];
  }
  return draw;
}

/**
 * The machine's draw now (watts), or, with `starting`, the draw it would be
 * with that job started too (its own draw added last, so on an idle machine
 * the projection is exactly {@link aloneDraw}).
 */
export function machineDraw(
  w: PowerView,
  starting?: JobRecord,
  placement?: Placement,
): number {
  const c = w.config;
  const tally = w.powerTally();
  let draw: number;
  if (c.nodeWatts !== undefined) {
    draw = nodesDraw(w, tally, starting === undefined ? undefined : placement);
  } else {
    const idle = c.idleWatts ?? 0;
    const busy = c.busyWatts ?? 0;
    const allocated = w.allocatedNodes + (starting === undefined ? 0 : starting.numNodes);
    const idleNodes = c.totalNodes > allocated ? c.totalNodes - allocated : 0;
    draw = idle * idleNodes + busy * allocated;
  }
  if (tally.powered > 0) {
    const total = draw + tally.sum;
    if (tally.inexact === 0 && Number.isInteger(draw) && total <= Number.MAX_SAFE_INTEGER) {
      draw = total;
    } else {
      // Fractional addends: summed in the running set's order, as defined.
      for (const r of w.running.values()) {
        const p = w.recordOf(r.id).power;
        if (p !== undefined) draw += p;
      }
    }
  }
  if (starting?.power !== undefined) draw += starting.power;
  return draw;
}

/**
 * The draw `starting` would make, started where `placement` says, once the
 * running jobs `leaving` have left: what the check of its start will compute
 * then (a preemption's, core/_preemption.ts). Rare, so it sums as defined,
 * in order, from the running set itself.
 */
export function drawWithout(
  w: PowerView,
  leaving: readonly JobRecord[],
  starting: JobRecord,
  placement: Placement | undefined,
): number {
  const c = w.config;
  const gone = new Set(leaving.map((r) => r.id));
  let draw = 0;
  if (c.nodeWatts !== undefined) {
    const t = wattsTable(c, w.resourceModel);
    const model = w.resourceModel!;
    const held = new Uint8Array(t.idle.length);
    const mark = (id: number | undefined, alloc: Placement["allocation"] | undefined) => {
      for (const a of (id === undefined ? alloc : model.allocationOf!(w.resourceState, id)) ?? []) {
        const k = t.index.get(a.nodeName);
        if (k !== undefined) held[k] = 1;
      }
    };
    for (const r of w.running.values()) if (!gone.has(r.id)) mark(r.id, undefined);
    mark(undefined, placement?.allocation);
    for (let k = 0; k < held.length; k++) draw += held[k] === 1 ? t.busy[k] : t.idle[k];
  } else {
    let allocated = w.allocatedNodes + starting.numNodes;
    for (const r of leaving) allocated -= r.numNodes;
    const idleNodes = c.totalNodes > allocated ? c.totalNodes - allocated : 0;
    draw = (c.idleWatts ?? 0) * idleNodes + (c.busyWatts ?? 0) * allocated;
  }
  for (const r of w.running.values()) {
    if (gone.has(r.id)) continue;
    const p = w.recordOf(r.id).power;
    if (p !== undefined) draw += p;
  }
  if (starting.power !== undefined) draw += starting.power;
  return draw;
}

/**
 * The draw of an otherwise idle machine running `job` alone (watts). With
 * node watts, where it would run is not known: a lower bound (every node
 * idle, or busy where that draws less), so a job is never held that could
 * fit somewhere.
 */
export function aloneDraw(c: ResolvedConfig, job: JobRecord, model?: ResourceModel): number {
  if (c.nodeWatts !== undefined) {
    const t = wattsTable(c, model);
    let draw = 0;
    for (let k = 0; k < t.idle.length; k++) draw += Math.min(t.idle[k], t.busy[k]);
    return job.power === undefined ? draw : draw + job.power;
  }
  const idleNodes = c.totalNodes > job.numNodes ? c.totalNodes - job.numNodes : 0;
  let draw = (c.idleWatts ?? 0) * idleNodes + (c.busyWatts ?? 0) * job.numNodes;
  if (job.power !== undefined) draw += job.power;
  return draw;
}

/** The draw of the machine with no job running (watts): the baseline row's. */
export function idleDraw(c: ResolvedConfig, model?: ResourceModel): number {
  if (c.nodeWatts !== undefined) {
    const t = wattsTable(c, model);
    let draw = 0;
    for (let k = 0; k < t.idle.length; k++) draw += t.idle[k];
    return draw;
  }
  return (c.idleWatts ?? 0) * c.totalNodes + (c.busyWatts ?? 0) * 0;
}

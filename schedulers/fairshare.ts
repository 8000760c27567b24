// The `fairshare` picker: Slurm's classic multifactor priority with a
// fair-share factor from decayed past usage per user (or account), an age
// factor and a job-size factor. The order is recomputed at every session
// (a sort of the waiting jobs: O(n log n) per session), so it offers no
// indexed candidate search; the admission policies walk its candidates.

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Picker, PickerSession, PickerSetup, SessionContext } from "../core/picker.ts";
import type { JobRecord } from "../core/types.ts";
import type { ModelNode } from "../core/resource_model.ts";
import { replicaShare } from "../core/_metrics_resources.ts";
import { type ResolvedFairshare, resolveFairshare } from "./fairshare_settings.ts";

/**
 * A user's (or account's) decayed usage: `value` node-seconds (node
 * equivalents × seconds on a machine's resources) as of time
 * `at` (the end of its last charged job); at a later time t it is
 * `value·2^(−(t−at)/H)`.
 *
 * @example
 * ```ts
 * import { type FairshareUsage, fairsharePicker } from "@evtsim/evtsim";
 * let s = fairsharePicker.init({ queues: [], searchByLimit: false, pickerNamed: () => fairsharePicker, totalNodes: 8 });
 * // Alice's job ran on 4 nodes from 0 to 100: the picker charges it when it ends.
 * s = fairsharePicker.onJobEnd!(s, {
 *   id: 0, submitTime: 0, numNodes: 4, timeLimit: 100, runTime: 100, queue: undefined, priority: 0,
 *   beginTime: 0, endTime: 100, rejected: false, hidden: false, user: "alice",
 * });
 * const u: FairshareUsage = s.usage[s.index.get("alice")!];
 * // 400 node-seconds as of 100, less the little decay while it ran (half-life: 7 days).
 * console.assert(u.at === 100 && u.value > 399.9 && u.value < 400, `${u.value}`);
 * ```
 */
export interface FairshareUsage {
  /** Node-seconds (node equivalents × seconds), decayed to `at`. */
  readonly value: number;
  /** The time `value` is taken at. */
  readonly at: number;
}

/**
 * The `fairshare` picker's state: its settings, the waiting jobs (by id),
 * each known user's (or account's) decayed usage, and the time of the last
 * session (for {@link Picker.pending}'s order).
 *
 * @example
 * ```ts
 * import { fairsharePicker, type FairshareState } from "@evtsim/evtsim";
 * const s: FairshareState = fairsharePicker.init({
 *   queues: [],
 *   searchByLimit: false,
 *   pickerNamed: () => fairsharePicker,
 *   totalNodes: 8,
 * });
 * if (s.usage.length !== 0 || s.waiting.size !== 0) throw new Error("empty");
 * ```
 */
export interface FairshareState {
  /** The settings, defaults filled in. */
  readonly settings: ResolvedFairshare;
  /** The machine's node count (for the size factor). */
  readonly totalNodes: number;
  /**
   * The distinct capacities of the resource model's nodes (empty without
   * one): a job placed by the model is charged in node equivalents of them.
   */
  readonly nodeKinds: readonly Readonly<Record<string, number>>[];
  /** The waiting jobs, by id. */
  readonly waiting: OrderedSet<JobRecord>;
  /** Every entity a job has arrived for, in code-unit order (the order the sums run in). */
  readonly names: readonly string[];
  /** Each name's index in `names`. */
  readonly index: ReadonlyMap<string, number>;
  /** `usage[i]` is the usage of `names[i]`. */
  readonly usage: readonly FairshareUsage[];
  /** `shares[i]` is the raw share of `names[i]` (1 unless configured). */
  readonly shares: readonly number[];
  /** The sum of `shares`, in order. */
  readonly shareSum: number;
  /** The time of the last session. */
  readonly clock: number;
}

const BY_ID: OrderSpec<JobRecord> = {
  compare: (a, b) => a.id - b.id,
  p1: (j) => j.numNodes,
  p2: (j) => j.timeLimit,
};

/** The user or account a job's usage is charged to ("" when it has none). */
function entityOf(s: ResolvedFairshare, job: JobRecord): string {
  return (s.by === "account" ? job.account : job.user) ?? "";
}

/**
 * The nodes a job holds, for its charge and its size: its node count on
 * whole nodes; for a job placed by a resource model, node equivalents (as
 * Slurm's TRES billing with PriorityFlags=MAX_TRES, one node = 1): its
 * replicas × one replica's dominant share of a node (a whole-node replica:
 * 1), on the node kind it fits where that share is least (the same on every
 * kind of a homogeneous pool).
 */
function nodesHeld(state: FairshareState, job: JobRecord): number {
  const d = job.demand;
  if (d === undefined) return job.numNodes;
  let share = Infinity;
  for (const capacity of state.nodeKinds) {
    if (!fitsOne(capacity, d.perReplica)) continue;
    const s = replicaShare(capacity, d.perReplica);
    if (s < share) share = s;
  }
  // No node listed (a model without `nodes`) or none fits: a node a replica.
  return job.numNodes + d.replicas * (share === Infinity ? 1 : share);
}

/** Whether one replica of `per` fits an empty node of `capacity`. */
function fitsOne(
  capacity: Readonly<Record<string, number>>,
  per: Readonly<Record<string, number>>,
): boolean {
  for (const r in per) if (per[r] > 0 && !((capacity[r] ?? 0) >= per[r])) return false;
  return true;
}

/** The distinct capacities of `nodes`, in first-seen order. */
function kindsOf(nodes: readonly ModelNode[] | undefined): Readonly<Record<string, number>>[] {
  const seen = new Map<string, Readonly<Record<string, number>>>();
  for (const n of nodes ?? []) {
    const key = JSON.stringify(Object.entries(n.capacity).sort());
    if (!seen.has(key)) seen.set(key, n.capacity);
  }
  return [...seen.values()];
}

/**
 * The usage a job of `nodes` nodes that ran over `[begin, end)` adds, as of
 * `end`: ∫ nodes·2^(−(end−τ)/H) dτ = nodes·(H/ln 2)·(1 − 2^(−(end−begin)/H)).
 */
function chargeOf(nodes: number, begin: number, end: number, halfLife: number): number {
  return nodes * (halfLife / Math.LN2) * -Math.expm1(-(end - begin) * Math.LN2 / halfLife);
}

/** Decayed usage `u` as of `now`. */
function decayed(u: FairshareUsage, now: number, halfLife: number): number {
  return u.value * Math.pow(2, -(now - u.at) / halfLife);
}

/**
 * The fair-share factor F = 2^(−Ū/S) of every known entity at `now`: Ū is the
 * entity's decayed usage over the total of all (0 when the total is 0), S its
 * share over the sum of the shares of all known entities. Sums run over the
 * entities in code-unit order of their names.
 *
 * @example
 * ```ts
 * import { fairshareFactors, fairsharePicker } from "@evtsim/evtsim";
 * const s = fairsharePicker.init({ queues: [], searchByLimit: false, pickerNamed: () => fairsharePicker });
 * if (fairshareFactors(s, 0).size !== 0) throw new Error("no entity yet");
 * ```
 */
export function fairshareFactors(state: FairshareState, now: number): Map<string, number> {
  const at = usageAt(state, now);
  const out = new Map<string, number>();
  for (let i = 0; i < state.names.length; i++) out.set(state.names[i], factorOf(state, at, i));
  return out;
}

/** Every known entity's decayed usage at `now`, their total and the sum of their shares. */
interface UsageAt {
  readonly now: number;
  readonly used: Float64Array;
  readonly total: number;
  readonly shareSum: number;
}

// Sessions at one instant share the sums: cached by the usage array (a new
// array on every change) and the time.
const USAGE_AT = new WeakMap<readonly FairshareUsage[], UsageAt>();

function usageAt(state: FairshareState, now: number): UsageAt {
  const cached = USAGE_AT.get(state.usage);
  if (cached !== undefined && cached.now === now) return cached;
  const h = state.settings.halfLife;
  const usage = state.usage;
  const used = new Float64Array(usage.length);
  let total = 0;
  for (let i = 0; i < usage.length; i++) {
    const u = usage[i];
    used[i] = u.value === 0 ? 0 : decayed(u, now, h);
    total += used[i];
  }
  const out = { now, used, total, shareSum: state.shareSum };
  USAGE_AT.set(state.usage, out);
  return out;
}

/** F = 2^(−Ū/S) of the entity `names[i]`. */
function factorOf(state: FairshareState, at: UsageAt, i: number): number {
  const normUsage = at.total > 0 ? at.used[i] / at.total : 0;
  const share = state.shares[i] / at.shareSum;
  return Math.pow(2, -normUsage / share);
}

/** A job's priority at `now` given its entity's fair-share factor. */
function priorityOf(state: FairshareState, job: JobRecord, factor: number, now: number): number {
  const c = state.settings;
  const age = Math.min(Math.max(now - job.submitTime, 0) / c.maxAge, 1);
  const nodes = job.demand === undefined || c.weightSize === 0
    ? job.numNodes
    : nodesHeld(state, job);
  const size = Math.min(nodes / state.totalNodes, 1);
  return c.weightFairshare * factor + c.weightAge * age + c.weightSize * size;
}

/**
 * The waiting jobs in the picker's order at `now`, each with its priority:
 * highest priority first, then earlier submit time, then lower id.
 *
 * @example
 * ```ts
 * import { fairsharePicker, rankFairshare } from "@evtsim/evtsim";
 * const s = fairsharePicker.init({ queues: [], searchByLimit: false, pickerNamed: () => fairsharePicker });
 * if (rankFairshare(s, 0).length !== 0) throw new Error("nothing waits");
 * ```
 */
export function rankFairshare(
  state: FairshareState,
  now: number,
): { readonly job: JobRecord; readonly priority: number }[] {
  if (state.waiting.size === 0) return [];
  const at = usageAt(state, now);
  // Factors of the entities that have waiting jobs only, each computed once.
  const factors = new Map<string, number>();
  const factor = (who: string): number => {
    let f = factors.get(who);
    if (f === undefined) {
      const i = state.index.get(who);
      f = i === undefined ? 1 : factorOf(state, at, i);
      factors.set(who, f);
    }
    return f;
  };
  const ranked = state.waiting.toArray().map((job) => ({
    job,
    priority: priorityOf(state, job, factor(entityOf(state.settings, job)), now),
  }));
  ranked.sort((a, b) =>
    b.priority - a.priority || a.job.submitTime - b.job.submitTime || a.job.id - b.job.id
  );
  return ranked;
}

function known(state: FairshareState, job: JobRecord): FairshareState {
  const who = entityOf(state.settings, job);
  if (state.index.has(who)) return state;
  return withEntity(state, who, { value: 0, at: job.submitTime });
}

/** The state with one more entity (rare: the tables are rebuilt). */
function withEntity(state: FairshareState, who: string, u: FairshareUsage): FairshareState {
  const all = new Map(state.names.map((n, i) => [n, state.usage[i]]));
  all.set(who, u);
  return withEntities(state, all);
}

/** The state with exactly these entities and usages. */
function withEntities(
  state: FairshareState,
  all: ReadonlyMap<string, FairshareUsage>,
): FairshareState {
  const names = Object.freeze([...all.keys()].sort(byCodeUnits));
  const shares = Object.freeze(names.map((n) => state.settings.shares.get(n) ?? 1));
  let shareSum = 0;
  for (const x of shares) shareSum += x;
  return Object.freeze({
    ...state,
    names,
    index: new Map(names.map((n, i) => [n, i])),
    usage: names.map((n) => Object.freeze({ ...all.get(n)! })),
    shares,
    shareSum,
  });
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function withWaiting(state: FairshareState, waiting: OrderedSet<JobRecord>): FairshareState {
  return waiting === state.waiting ? state : Object.freeze({ ...state, waiting });
}

function session(state: FairshareState, ctx: SessionContext): PickerSession<FairshareState> {
  const order = rankFairshare(state, ctx.now);
  let waiting = state.waiting;
  let i = 0;
  return {
    nextJob: () => (i < order.length ? order[i++].job : undefined),
    onDispatch: (job) => {
      waiting = waiting.delete(job);
    },
    onPend: () => {},
    endSession: () => {
      const next = withWaiting(state, waiting);
      return next.clock === ctx.now ? next : Object.freeze({ ...next, clock: ctx.now });
    },
  };
}

function restore(state: FairshareState, memory: unknown): FairshareState {
  const rows = (memory as { usage?: unknown } | null)?.usage;
  if (!Array.isArray(rows)) {
    throw new EvtsimError("input", "snapshot: fairshare memory must hold a usage list");
  }
  const usage = new Map<string, FairshareUsage>();
  for (const r of rows as unknown[]) {
    if (
      !Array.isArray(r) || r.length !== 3 || typeof r[0] !== "string" ||
      typeof r[1] !== "number" || typeof r[2] !== "number" || !Number.isFinite(r[1]) ||
      !Number.isFinite(r[2]) || r[1] < 0
    ) {
      throw new EvtsimError(
        "input",
        `snapshot: fairshare usage entry ${JSON.stringify(r)} is not [name, usage, time]`,
      );
    }
    usage.set(r[0], { value: r[1], at: r[2] });
  }
  return withEntities(state, usage);
}

/**
 * The `fairshare` picker (Slurm's classic fair-share in a multifactor
 * priority). Each user (or account, with `by: "account"`; jobs without one
 * share the entity `""`) has a usage: node-seconds of run time decayed with
 * half-life H, so a job of n nodes that ran over [b, e) counts
 * n·∫_b^e 2^(−(t−τ)/H) dτ at time t ≥ e. A job placed by a resource model
 * (a `--machine` run) counts its node equivalents as n: its replicas × one
 * replica's dominant share of a node (Slurm's MAX_TRES billing; a whole-node
 * replica counts 1). Usage is charged when a running job
 * ends (completion, failure or kill); running jobs are not charged yet.
 * At each session, for every known entity (one a job has arrived for):
 *
 *     Ū = usage / total usage of all known entities   (0 when the total is 0)
 *     S = share / sum of the shares of all known entities   (share 1 unless configured)
 *     F = 2^(−Ū/S)
 *     priority = w_fairshare·F + w_age·min(age/max_age, 1) + w_size·min(nodes/total_nodes, 1)
 *
 * where age = now − submit time. Higher priority goes first, then earlier
 * submit time, then lower id. Settings come from the configuration's
 * `pickerSettings.fairshare` (see {@link FairshareSettings}; defaults: H and
 * max_age 7 days, weights 1000/100/0). Queue priorities and per-queue pickers
 * are not used (queues still limit and close); as a queue's own picker (under
 * `builtin_fcfs`) it gets no job ends and no settings, so it orders by age. The usage is the picker's
 * memory: snapshots store it.
 *
 * @example
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4, picker: "fairshare", backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 100, user: "heavy" },
 *   { submitTime: 1, numNodes: 4, timeLimit: 10, user: "heavy" },
 *   { submitTime: 2, numNodes: 4, timeLimit: 10, user: "light" },
 * ]);
 * // At 100 the light user's job 2 goes before the heavy user's older job 1.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,110,100") throw new Error(begins);
 * ```
 */
export const fairsharePicker: Picker<FairshareState> = Object.freeze({
  name: "fairshare",
  init: (setup: PickerSetup): FairshareState =>
    Object.freeze({
      settings: resolveFairshare(setup.settings),
      totalNodes: setup.totalNodes ?? 1,
      nodeKinds: Object.freeze(kindsOf(setup.nodes)),
      waiting: OrderedSet.empty(BY_ID),
      names: Object.freeze([]),
      index: new Map(),
      usage: Object.freeze([]),
      shares: Object.freeze([]),
      shareSum: 0,
      clock: -Infinity,
    }),
  onQueueUpdate: (s: FairshareState) => s,
  onJobPush: (s: FairshareState, job: JobRecord) => {
    const k = known(s, job);
    return withWaiting(k, k.waiting.add(job));
  },
  onJobStateChange: (s: FairshareState, job: JobRecord, change: string) =>
    change === "pending"
      ? withWaiting(s, s.waiting.add(job))
      : withWaiting(s, s.waiting.delete(job)),
  onJobUpdate: (s: FairshareState, _before: JobRecord, after: JobRecord) =>
    withWaiting(s, s.waiting.delete(after).add(after)),
  onJobEnd: (s: FairshareState, job: JobRecord) => {
    const who = entityOf(s.settings, job);
    const h = s.settings.halfLife;
    const k = s.index.has(who) ? s : withEntity(s, who, { value: 0, at: job.endTime });
    const i = k.index.get(who)!;
    const value = decayed(k.usage[i], job.endTime, h) +
      chargeOf(nodesHeld(k, job), job.beginTime, job.endTime, h);
    const usage = k.usage.slice();
    usage[i] = Object.freeze({ value, at: job.endTime });
    return Object.freeze({ ...k, usage });
  },
  saveMemory: (s: FairshareState) => ({
    usage: s.names.map((n, i) => [n, s.usage[i].value, s.usage[i].at]),
  }),
  restoreMemory: restore,
  beginSession: session,
  size: (s: FairshareState) => s.waiting.size,
  pending: (s: FairshareState) =>
    rankFairshare(s, Number.isFinite(s.clock) ? s.clock : 0).map((r) => r.job),
});

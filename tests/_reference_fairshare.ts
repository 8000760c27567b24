// A deliberately plain reference for the `fairshare` picker with the `none`
// and `easy` admission policies: plain arrays, every waiting job re-ranked on
// every scheduling call, every entity's usage re-folded from its list of
// ended jobs. It follows the formula of schedulers/fairshare.ts's JSDoc (and
// docs/policies.md) literally, with the same floating-point expressions, so that
// its rows must equal the engine's byte for byte.

import type { JobRow, JobSpec, ResourceRow, SimulationConfig } from "../core/types.ts";
import { reservation } from "./_reference_sim.ts";

interface Job {
  readonly id: number;
  readonly submit: number;
  readonly nodes: number;
  readonly limit: number;
  readonly run: number;
  readonly queue: string | undefined;
  readonly who: string;
  begin: number;
  end: number;
}

/** The settings as the reference reads them (defaults as documented). */
interface Settings {
  by?: "user" | "account";
  halfLife?: number;
  maxAge?: number;
  weights?: { fairshare?: number; age?: number; size?: number };
  shares?: Record<string, number>;
}

/**
 * The nodes a job placed on a machine is charged (plainly): replicas × one
 * replica's largest fraction of any resource of a node (a whole-node replica:
 * 1), on the node capacity it fits where that is least; 1 a replica when it
 * fits none.
 */
export function refNodeEquivalents(
  capacities: readonly Readonly<Record<string, number>>[],
  perReplica: Readonly<Record<string, number>>,
  replicas: number,
): number {
  const needs = Object.keys(perReplica).filter((r) => perReplica[r] > 0);
  let best = Infinity;
  for (const cap of capacities) {
    if (!needs.every((r) => (cap[r] ?? 0) >= perReplica[r])) continue;
    let share = 0;
    if ((perReplica.node ?? 0) >= 1_000_000) share = 1;
    else {
      for (const r of needs) {
        if (!r.startsWith("partition/")) share = Math.max(share, perReplica[r] / cap[r]);
      }
    }
    best = Math.min(best, share);
  }
  return replicas * (best === Infinity ? 1 : best);
}

/**
 * Priority of every waiting job at `now`, by the documented formula, from
 * the ended jobs (in end order) and the known entities.
 */
export function referencePriorities(
  s: Settings,
  totalNodes: number,
  now: number,
  waiting: readonly { id: number; submit: number; nodes: number; who: string }[],
  ended: readonly { who: string; nodes: number; begin: number; end: number }[],
  knownEntities: readonly string[],
): Map<number, number> {
  const h = s.halfLife ?? 604800;
  const maxAge = s.maxAge ?? 604800;
  const wf = s.weights?.fairshare ?? 1000;
  const wa = s.weights?.age ?? 100;
  const ws = s.weights?.size ?? 0;
  const names = [...new Set(knownEntities)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const used: number[] = [];
  for (const n of names) {
    // Usage folded job by job in end order: decay to the job's end, add its charge.
    let value = 0;
    let at = 0;
    let first = true;
    for (const e of ended) {
      if (e.who !== n) continue;
      const decayedValue = first ? 0 : value * Math.pow(2, -(e.end - at) / h);
      const charge = e.nodes * (h / Math.LN2) * -Math.expm1(-(e.end - e.begin) * Math.LN2 / h);
      value = decayedValue + charge;
      at = e.end;
      first = false;
    }
    used.push(first ? 0 : value * Math.pow(2, -(now - at) / h));
  }
  let total = 0;
  let shareSum = 0;
  for (let i = 0; i < names.length; i++) {
    total += used[i];
    shareSum += s.shares?.[names[i]] ?? 1;
  }
  const factor = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    const normUsage = total > 0 ? used[i] / total : 0;
    const share = (s.shares?.[names[i]] ?? 1) / shareSum;
    factor.set(names[i], Math.pow(2, -normUsage / share));
  }
  const out = new Map<number, number>();
  for (const j of waiting) {
    const age = Math.min(Math.max(now - j.submit, 0) / maxAge, 1);
    const size = Math.min(j.nodes / totalNodes, 1);
    out.set(j.id, wf * factor.get(j.who)! + wa * age + ws * size);
  }
  return out;
}

/**
 * Runs `trace` (sorted by submit time; ids are indexes) in batch mode with
 * the fairshare picker and `config.backfillPolicy` `none` or `easy`.
 */
export function referenceFairshare(
  config: SimulationConfig,
  trace: readonly JobSpec[],
): { jobRows: JobRow[]; resourceRows: ResourceRow[] } {
  const total = config.totalNodes;
  const easy = (config.backfillPolicy ?? "easy") === "easy";
  const s = (config.pickerSettings?.fairshare ?? {}) as Settings;
  const jobs: Job[] = trace.map((t, id) => ({
    id,
    submit: t.submitTime,
    nodes: t.numNodes,
    limit: t.timeLimit,
    run: t.actualRunTime ?? t.timeLimit,
    queue: t.queue,
    who: ((s.by ?? "user") === "account" ? t.account : t.user) ?? "",
    begin: -1,
    end: -1,
  }));
  const pending = jobs.filter((j) => j.nodes <= total);
  let now = config.startTime ?? 0;
  let allocated = 0;
  const arrived: Job[] = [];
  const waiting: Job[] = [];
  const running: Job[] = [];
  const ended: Job[] = []; // in end order
  const resourceRows: ResourceRow[] = [{ time: now, freeNodes: total, allocatedNodes: 0 }];
  const sync = (): boolean => {
    let moved = false;
    while (pending.length > 0 && pending[0].submit <= now) {
      const j = pending.shift()!;
      waiting.push(j);
      arrived.push(j);
      moved = true;
    }
    return moved;
  };
  const ranked = (): Job[] => {
    const prio = referencePriorities(
      s,
      total,
      now,
      waiting,
      ended,
      arrived.map((j) => j.who),
    );
    return [...waiting].sort((a, b) =>
      prio.get(b.id)! - prio.get(a.id)! || a.submit - b.submit || a.id - b.id
    );
  };
  // One call: heads while they fit, then EASY's backfill behind the first that does not.
  const schedule = (): Job[] => {
    const order = ranked();
    let free = Math.max(0, total - allocated);
    const eff: Job[] = [...running];
    const out: Job[] = [];
    let i = 0;
    while (i < order.length && order[i].nodes <= free) {
      out.push(order[i]);
      free -= order[i].nodes;
      eff.push({ ...order[i], begin: now });
      i++;
    }
    if (i < order.length && easy) {
      const head = order[i];
      const shadow = reservation(head.nodes, free, eff, now);
      for (let k = i + 1; k < order.length && free > 0; k++) {
        const c = order[k];
        if (c.nodes <= free && now + c.limit < shadow) {
          out.push(c);
          free -= c.nodes;
        }
      }
    }
    for (const j of out) waiting.splice(waiting.indexOf(j), 1);
    return out;
  };
  const scheduleUntilStalled = () => {
    for (;;) {
      const started = schedule();
      if (started.length === 0) return;
      for (const j of started) {
        j.begin = now;
        running.push(j);
        allocated += j.nodes;
        resourceRows.push({ time: now, freeNodes: total - allocated, allocatedNodes: allocated });
      }
    }
  };
  sync();
  scheduleUntilStalled();
  for (;;) {
    const nextEnd = Math.min(...running.map((j) => j.begin + j.run));
    const nextArrival = pending.length > 0 ? pending[0].submit : Infinity;
    const next = Math.min(nextEnd, nextArrival);
    if (next === Infinity) break;
    now = next;
    const moved = sync();
    const ending = running
      .filter((j) => j.begin + j.run <= now)
      .sort((a, b) => a.begin + a.run - (b.begin + b.run) || a.id - b.id);
    for (const j of ending) {
      running.splice(running.indexOf(j), 1);
      j.end = j.begin + j.run;
      ended.push(j);
      allocated -= j.nodes;
      resourceRows.push({ time: j.end, freeNodes: total - allocated, allocatedNodes: allocated });
    }
    if (moved || ending.length > 0) scheduleUntilStalled();
  }
  const jobRows: JobRow[] = jobs.filter((j) => j.end >= 0).map((j) => ({
    jobId: j.id,
    submitTime: j.submit,
    beginTime: j.begin,
    endTime: j.end,
    numNodes: j.nodes,
    timeLimit: j.limit,
    queue: j.queue,
  }));
  return { jobRows, resourceRows };
}

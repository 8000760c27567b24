// A deliberately plain reference for EASY backfilling on a multi-resource
// machine (`easy` and `easy_extra` with a resource model): plain arrays, the
// free units of every node in a table, the whole queue re-ordered on every
// scheduling call, placements computed from scratch each time, no engine
// code. It follows the rule as docs/policies.md states it ("EASY on a resource
// model") and TopoQueue's placement (seed 004: slots per node, the domain
// with the fewest slots that fit, fewest nodes packed, then name; compact
// packing, most slots first) literally.

import { referencePriorities, refNodeEquivalents } from "./_reference_fairshare.ts";

/** One node: its name, topology labels and units of each resource. */
export interface RefNode {
  readonly name: string;
  readonly topology: Readonly<Record<string, string>>;
  readonly capacity: Readonly<Record<string, number>>;
}

/** One job: submit time, limit, actual run time, demand, user (for fairshare). */
export interface RefJob {
  readonly submit: number;
  readonly limit: number;
  readonly run: number;
  readonly replicas: number;
  readonly perReplica: Readonly<Record<string, number>>;
  readonly topologyKey?: string;
  readonly user: string;
}

/** What the reference gives back per job (begin -1: never started). */
export interface RefOutcome {
  readonly begin: number;
  readonly end: number;
  /** `node=replicas,...` in node-name order, "" if never started. */
  readonly allocation: string;
}

/** The reference's result. */
export interface RefRun {
  readonly jobs: RefOutcome[];
  /** For every job that became the head: the shadow time computed then, and when. */
  readonly firstShadow: Map<number, { time: number; shadow: number }>;
}

export type RefPicker = "builtin_fcfs" | "sjf" | "ljf" | "fairshare";

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Replicas per node (by index into `nodes`), or null when the demand cannot be placed. */
export function refPlace(
  nodes: readonly RefNode[],
  free: readonly Record<string, number>[],
  job: RefJob,
): number[] | null {
  const slots: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    let s = Infinity;
    let needsAny = false;
    for (const r of Object.keys(job.perReplica)) {
      const amount = job.perReplica[r];
      if (!(amount > 0)) continue;
      needsAny = true;
      s = Math.min(s, Math.floor((free[i][r] ?? 0) / amount));
    }
    slots.push(needsAny ? s : 0);
  }
  // A resource no node has: no slots anywhere.
  for (const r of Object.keys(job.perReplica)) {
    if (job.perReplica[r] > 0 && nodes.every((n) => n.capacity[r] === undefined)) return null;
  }
  const key = job.topologyKey;
  const domains: { name: string; members: number[] }[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const name = key === undefined ? "global" : nodes[i].topology[key] ?? "";
    let d = domains.find((x) => x.name === name);
    if (d === undefined) domains.push(d = { name, members: [] });
    d.members.push(i);
  }
  domains.sort((a, b) => byName(a.name, b.name));
  let best: { slots: number; packed: number[][]; name: string } | null = null;
  for (const d of domains) {
    let total = 0;
    for (const i of d.members) total += slots[i];
    if (total < job.replicas) continue;
    const order = d.members.filter((i) => slots[i] > 0)
      .sort((a, b) => slots[b] - slots[a] || byName(nodes[a].name, nodes[b].name));
    let left = job.replicas;
    const packed: number[][] = [];
    for (const i of order) {
      if (left === 0) break;
      const k = Math.min(slots[i], left);
      packed.push([i, k]);
      left -= k;
    }
    if (
      best === null || total < best.slots ||
      (total === best.slots && packed.length < best.packed.length)
    ) best = { slots: total, packed, name: d.name };
  }
  if (best === null) return null;
  const out = nodes.map(() => 0);
  for (const [i, k] of best.packed) out[i] = k;
  return out;
}

function take(free: Record<string, number>[], job: RefJob, alloc: number[], sign: number): void {
  for (let i = 0; i < alloc.length; i++) {
    for (const r of Object.keys(job.perReplica)) {
      if (job.perReplica[r] > 0) {
        free[i][r] = (free[i][r] ?? 0) + sign * job.perReplica[r] * alloc[i];
      }
    }
  }
}

/**
 * Runs `jobs` (ids are indexes, sorted by submit time) on `nodes` with
 * `policy` and `picker`, batch mode.
 */
export function referenceEasyResources(
  input: readonly RefNode[],
  jobs: readonly RefJob[],
  policy: "easy" | "easy_extra",
  picker: RefPicker,
): RefRun {
  const nodes = [...input].sort((a, b) => byName(a.name, b.name));
  const free: Record<string, number>[] = nodes.map((n) => ({ ...n.capacity }));
  const begin = jobs.map(() => -1);
  const end = jobs.map(() => -1);
  const alloc: (number[] | null)[] = jobs.map(() => null);
  // fairshare's charge: node equivalents of the machine's nodes.
  const capacities = nodes.map((n) => n.capacity);
  const charged = (j: RefJob) => refNodeEquivalents(capacities, j.perReplica, j.replicas);
  const firstShadow = new Map<number, { time: number; shadow: number }>();
  let now = 0;
  let arrivedCount = 0; // jobs[0..arrivedCount) have arrived
  const waiting: number[] = [];
  const running: number[] = [];
  const endedOrder: number[] = [];

  const order = (): number[] => {
    if (waiting.length === 0) return [];
    if (picker === "builtin_fcfs") {
      return [...waiting].sort((a, b) => jobs[a].submit - jobs[b].submit || a - b);
    }
    if (picker === "fairshare") {
      const prio = referencePriorities(
        {},
        nodes.length,
        now,
        waiting.map((id) => ({ id, submit: jobs[id].submit, nodes: 0, who: jobs[id].user })),
        endedOrder.map((id) => ({
          who: jobs[id].user,
          nodes: charged(jobs[id]),
          begin: begin[id],
          end: end[id],
        })),
        jobs.slice(0, arrivedCount).map((j) => j.user),
      );
      return [...waiting].sort((a, b) =>
        prio.get(b)! - prio.get(a)! || jobs[a].submit - jobs[b].submit || a - b
      );
    }
    const longest = picker === "ljf";
    const byLimit = (a: number, b: number) =>
      (longest ? jobs[b].limit - jobs[a].limit : jobs[a].limit - jobs[b].limit) || a - b;
    const sorted = [...waiting].sort(byLimit);
    let oldest = sorted[0];
    for (const id of sorted) if (jobs[id].submit < jobs[oldest].submit) oldest = id;
    return [oldest, ...sorted.filter((id) => id !== oldest)];
  };

  const start = (id: number, a: number[]) => {
    take(free, jobs[id], a, -1);
    alloc[id] = a;
    begin[id] = now;
    running.push(id);
    waiting.splice(waiting.indexOf(id), 1);
  };

  // The machine at the head's shadow time: a copy of the free table with
  // running jobs given back in order of projected end; null: it never fits.
  const shadowOf = (head: number): { time: number; free: Record<string, number>[] } | null => {
    const copy = free.map((f) => ({ ...f }));
    const ends = running.filter((id) => begin[id] + jobs[id].limit > now)
      .sort((a, b) => begin[a] + jobs[a].limit - (begin[b] + jobs[b].limit) || a - b);
    for (let k = 0; k < ends.length; k++) {
      const id = ends[k];
      take(copy, jobs[id], alloc[id]!, +1);
      const at = begin[id] + jobs[id].limit;
      if (k + 1 < ends.length && begin[ends[k + 1]] + jobs[ends[k + 1]].limit === at) continue;
      if (refPlace(nodes, copy, jobs[head]) !== null) return { time: at, free: copy };
    }
    for (const id of running) {
      if (begin[id] + jobs[id].limit <= now) take(copy, jobs[id], alloc[id]!, +1);
    }
    return refPlace(nodes, copy, jobs[head]) === null ? null : { time: now, free: copy };
  };

  // One scheduling call; returns how many jobs started.
  const schedule = (): number => {
    const oneStart = picker === "sjf" || picker === "ljf";
    const list = order();
    let started = 0;
    let k = 0;
    let head = -1;
    let shadow: { time: number; free: Record<string, number>[] } | null = null;
    for (; k < list.length; k++) {
      const id = list[k];
      const a = refPlace(nodes, free, jobs[id]);
      if (a !== null) {
        start(id, a);
        started++;
        if (oneStart) return started;
        continue;
      }
      shadow = shadowOf(id);
      if (shadow !== null) {
        head = id;
        break;
      }
    }
    if (head < 0 || shadow === null) return started;
    if (!firstShadow.has(head)) firstShadow.set(head, { time: now, shadow: shadow.time });
    for (k++; k < list.length; k++) {
      const id = list[k];
      const a = refPlace(nodes, free, jobs[id]);
      if (a === null || !(shadow.time > now)) continue;
      const limit = jobs[id].limit;
      let ok: boolean;
      if (policy === "easy") {
        ok = oneStart ? limit <= shadow.time - now : now + limit < shadow.time;
      } else if (now + limit <= shadow.time) ok = true;
      else {
        take(shadow.free, jobs[id], a, -1);
        ok = refPlace(nodes, shadow.free, jobs[head]) !== null;
        if (!ok) take(shadow.free, jobs[id], a, +1);
      }
      if (!ok) continue;
      start(id, a);
      started++;
      if (oneStart) return started;
    }
    return started;
  };

  const untilStalled = () => {
    while (schedule() > 0) { /* again, as the engine does */ }
  };

  for (;;) {
    let next = Infinity;
    for (const id of running) next = Math.min(next, begin[id] + jobs[id].run);
    if (arrivedCount < jobs.length) next = Math.min(next, jobs[arrivedCount].submit);
    if (next === Infinity) break;
    now = next;
    let changed = false;
    while (arrivedCount < jobs.length && jobs[arrivedCount].submit <= now) {
      waiting.push(arrivedCount++);
      changed = true;
    }
    const ending = running.filter((id) => begin[id] + jobs[id].run <= now)
      .sort((a, b) => begin[a] + jobs[a].run - (begin[b] + jobs[b].run) || a - b);
    for (const id of ending) {
      running.splice(running.indexOf(id), 1);
      end[id] = begin[id] + jobs[id].run;
      take(free, jobs[id], alloc[id]!, +1);
      endedOrder.push(id);
      changed = true;
    }
    if (changed) untilStalled();
  }
  return {
    jobs: jobs.map((_, id) => ({
      begin: begin[id],
      end: end[id],
      allocation: alloc[id] === null
        ? ""
        : nodes.flatMap((n, i) => (alloc[id]![i] > 0 ? [`${n.name}=${alloc[id]![i]}`] : [])).join(),
    })),
    firstShadow,
  };
}

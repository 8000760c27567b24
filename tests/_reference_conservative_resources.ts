// A plain reference for conservative backfilling on a multi-resource
// machine (schedulers/_conservative_resources.ts): arrays and loops, no
// engine code. Nodes hold free units per resource; a job is placed by
// TopoQueue's rules read plainly; the profile is evaluated point by point
// (free units at time t = capacity − running jobs not yet released −
// reservations covering t). Policies: `conservative_profile` (with and
// without compression) and DR_EVT's `conservative`; pickers: arrival order
// (builtin_fcfs), fairshare (users u0, u1, u2 by id mod 3, each job charged
// its node equivalents; tests/_reference_fairshare.ts), and
// DR_EVT's sjf/ljf (the oldest first, then by limit; one start per session).

import { referencePriorities, refNodeEquivalents } from "./_reference_fairshare.ts";

export interface RefNode {
  readonly name: string;
  readonly rack: string;
  readonly capacity: Record<string, number>;
}

export interface RefJob {
  readonly submit: number;
  readonly limit: number;
  readonly run: number;
  readonly replicas: number;
  readonly perReplica: Record<string, number>;
  readonly rack: boolean;
}

type Alloc = [node: number, replicas: number][];

/** TopoQueue's placement on free units `free[node][resource]` (nodes in name order). */
export function refPlace(
  nodes: readonly RefNode[],
  free: readonly Record<string, number>[],
  j: RefJob,
): Alloc | undefined {
  const slots = nodes.map((_, i) => {
    const need = Object.entries(j.perReplica).filter(([, v]) => v > 0);
    if (need.length === 0) return 0;
    return Math.min(...need.map(([r, v]) => Math.floor((free[i][r] ?? 0) / v)));
  });
  const domains = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    const d = j.rack ? n.rack : "global";
    domains.set(d, [...(domains.get(d) ?? []), i]);
  });
  const candidates = [...domains.keys()].sort().map((name) => {
    const members = domains.get(name)!;
    const total = members.reduce((s, i) => s + slots[i], 0);
    const order = members.filter((i) => slots[i] > 0).sort((a, b) => slots[b] - slots[a] || a - b);
    let left = j.replicas;
    const packed: Alloc = [];
    for (const i of order) {
      if (left === 0) break;
      const k = Math.min(slots[i], left);
      packed.push([i, k]);
      left -= k;
    }
    return { name, total, packed };
  });
  const fits = candidates.filter((c) => c.total >= j.replicas)
    .sort((a, b) => a.total - b.total || a.packed.length - b.packed.length);
  if (fits.length === 0) return undefined;
  return fits[0].packed.sort((a, b) => a[0] - b[0]);
}

function allocFits(free: readonly Record<string, number>[], j: RefJob, a: Alloc): boolean {
  return a.every(([i, k]) =>
    Object.entries(j.perReplica).every(([r, v]) => v <= 0 || (free[i][r] ?? 0) >= v * k)
  );
}

function use(free: Record<string, number>[], j: RefJob, a: Alloc, sign: number): void {
  for (const [i, k] of a) {
    for (const [r, v] of Object.entries(j.perReplica)) {
      if (v > 0) free[i][r] = (free[i][r] ?? 0) - sign * v * k;
    }
  }
}

export type RefPolicy =
  | "conservative_profile"
  | "conservative_profile_no_compression"
  | "conservative";
export type RefPicker = "builtin_fcfs" | "fairshare" | "sjf" | "ljf";

interface Block {
  id: number;
  start: number;
  end: number;
  alloc: Alloc;
}

/** Begin and end of every job that ran (-1 for one that never started). */
export function referenceConservativeResources(
  nodes: readonly RefNode[],
  jobs: readonly RefJob[],
  policy: RefPolicy,
  picker: RefPicker,
): { begin: number[]; end: number[] } {
  const begin = jobs.map(() => -1);
  const end = jobs.map(() => -1);
  const allocOf = new Map<number, Alloc>();
  const waiting: number[] = [];
  const running: number[] = [];
  let now = 0;
  let arrived = 0;
  let held: Block[] = [];
  let endedEarly = false;
  const empty = () => nodes.map((n) => ({ ...n.capacity }));
  const realFree = () => {
    const f = empty();
    for (const id of running) use(f, jobs[id], allocOf.get(id)!, +1);
    return f;
  };
  const ended: number[] = []; // in end order (then id)
  const user = (id: number) => `u${id % 3}`;
  const capacities = nodes.map((n) => n.capacity);
  const order = (): number[] => {
    const w = [...waiting].sort((a, b) => jobs[a].submit - jobs[b].submit || a - b);
    if (picker === "fairshare" && w.length > 0) {
      const prio = referencePriorities(
        {},
        nodes.length,
        now,
        w.map((id) => ({ id, submit: jobs[id].submit, nodes: 0, who: user(id) })),
        ended.map((id) => ({
          who: user(id),
          nodes: refNodeEquivalents(capacities, jobs[id].perReplica, jobs[id].replicas),
          begin: begin[id],
          end: end[id],
        })),
        Array.from({ length: arrived }, (_, id) => user(id)),
      );
      return w.sort((a, b) =>
        prio.get(b)! - prio.get(a)! || jobs[a].submit - jobs[b].submit || a - b
      );
    }
    if ((picker !== "sjf" && picker !== "ljf") || w.length === 0) return w;
    const byLimit = (a: number, b: number) =>
      (picker === "ljf" ? jobs[b].limit - jobs[a].limit : jobs[a].limit - jobs[b].limit) || a - b;
    const oldest = w.filter((id) => jobs[id].submit === jobs[w[0]].submit).sort(byLimit)[0];
    return [oldest, ...w.filter((id) => id !== oldest).sort(byLimit)];
  };
  const start = (id: number, a: Alloc) => {
    begin[id] = now;
    allocOf.set(id, a);
    running.push(id);
    waiting.splice(waiting.indexOf(id), 1);
  };
  const oneStart = picker === "sjf" || picker === "ljf";

  // conservative_profile: one session; returns the number of jobs started.
  const profileSession = (compression: boolean): number => {
    const compress = compression && endedEarly;
    endedEarly = false;
    const projected = (id: number) => Math.max(begin[id] + jobs[id].limit, now);
    let blocks: Block[] = held.filter((b) => b.start >= now).map((b) => ({ ...b }));
    const freeAt = (t: number) => {
      const f = empty();
      for (const id of running) if (projected(id) > t) use(f, jobs[id], allocOf.get(id)!, +1);
      for (const b of blocks) if (b.start <= t && t < b.end) use(f, jobs[b.id], b.alloc, +1);
      return f;
    };
    const points = () =>
      [...new Set([now, ...running.map(projected), ...blocks.flatMap((b) => [b.start, b.end])])]
        .sort((a, b) => a - b);
    const earliest = (
      id: number,
      before = Infinity,
    ): { start: number; alloc: Alloc } | undefined => {
      const j = jobs[id];
      const ps = points();
      for (const c of ps) {
        if (c >= before) break;
        const a = refPlace(nodes, freeAt(c), j);
        if (a === undefined) continue;
        if (ps.every((p) => p <= c || p >= c + j.limit || allocFits(freeAt(p), j, a))) {
          return { start: c, alloc: a };
        }
      }
      return undefined;
    };
    if (compress) {
      for (let k = 0; k < blocks.length; k++) {
        const b = blocks[k];
        blocks = blocks.filter((x) => x !== b);
        const found = earliest(b.id, b.start);
        const moved = found === undefined ? b : {
          id: b.id,
          start: found.start,
          end: found.start + jobs[b.id].limit,
          alloc: found.alloc,
        };
        blocks.splice(k, 0, moved);
      }
    }
    const next: Block[] = [];
    let started = 0;
    for (const id of order()) {
      const j = jobs[id];
      let b = blocks.find((x) => x.id === id);
      if (b === undefined) {
        const found = earliest(id);
        if (found === undefined) continue; // never fits: no reservation
        b = { id, start: found.start, end: found.start + j.limit, alloc: found.alloc };
        blocks.push(b);
      } else if (!compression && b.start > now) {
        const mine = b;
        blocks = blocks.filter((x) => x !== mine);
        const f = earliest(id, now + 1e-9);
        if (f !== undefined) b = { id, start: now, end: now + j.limit, alloc: f.alloc };
        blocks.push(b);
      }
      if (b.start <= now && allocFits(realFree(), j, b.alloc)) {
        const mine = b;
        blocks = blocks.filter((x) => x !== mine);
        start(id, b.alloc);
        started++;
        if (oneStart) break;
        continue;
      }
      next.push(b);
    }
    held = next;
    return started;
  };

  // DR_EVT's conservative on the model: one session.
  const drevtSession = (): number => {
    let started = 0;
    const list = order();
    let k = 0;
    for (; k < list.length; k++) {
      const a = refPlace(nodes, realFree(), jobs[list[k]]);
      if (a === undefined) break;
      start(list[k], a);
      started++;
      if (oneStart) return started;
    }
    if (k === list.length) return started;
    const reservation = (id: number): number => {
      const j = jobs[id];
      if (refPlace(nodes, empty(), j) === undefined) return Infinity;
      if (refPlace(nodes, realFree(), j) !== undefined) return now;
      const ends = [
        ...new Set(running.map((r) => begin[r] + jobs[r].limit).filter((t) => t > now)),
      ].sort((a, b) => a - b);
      for (const t of ends) {
        const f = realFree();
        for (const r of running) {
          const e = begin[r] + jobs[r].limit;
          if (e > now && e <= t) use(f, jobs[r], allocOf.get(r)!, -1);
        }
        if (refPlace(nodes, f, j) !== undefined) return t;
      }
      return now;
    };
    let window = reservation(list[k]);
    for (k++; k < list.length; k++) {
      const id = list[k];
      const a = refPlace(nodes, realFree(), jobs[id]);
      if (a !== undefined && now + jobs[id].limit < window) {
        start(id, a);
        started++;
        if (oneStart) return started;
        continue;
      }
      if (window > now) window = Math.min(window, a !== undefined ? now : reservation(id));
    }
    return started;
  };

  const session = () =>
    policy === "conservative" ? drevtSession() : profileSession(policy === "conservative_profile");
  const arrive = () => {
    let any = false;
    while (arrived < jobs.length && jobs[arrived].submit <= now) {
      waiting.push(arrived++);
      any = true;
    }
    return any;
  };
  const untilStalled = () => {
    while (session() > 0) { /* the next session sees the new state */ }
  };
  now = jobs.length > 0 ? jobs[0].submit : 0;
  arrive();
  untilStalled();
  for (;;) {
    const nextEnd = Math.min(...running.map((id) => begin[id] + jobs[id].run));
    const nextArrival = arrived < jobs.length ? jobs[arrived].submit : Infinity;
    let wake = Infinity;
    if (waiting.length > 0) {
      for (const b of held) if (b.start > now) wake = Math.min(wake, b.start);
    }
    const t = Math.min(nextEnd, nextArrival, wake);
    if (t === Infinity) break;
    now = t;
    const came = arrive();
    const ending = running.filter((id) => begin[id] + jobs[id].run <= now).sort((a, b) => a - b);
    for (const id of ending) {
      running.splice(running.indexOf(id), 1);
      end[id] = begin[id] + jobs[id].run;
      ended.push(id);
      if (jobs[id].run < jobs[id].limit) endedEarly = true;
    }
    if (came || ending.length > 0 || t === wake) untilStalled();
  }
  return { begin, end };
}

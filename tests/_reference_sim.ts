// A deliberately naive reference simulator: the trace-level oracle for the
// engine. Plain arrays, the whole queue scanned on every pass, no indexes,
// no persistence, O(n²) and proud of it. It follows
// /work/shared/reference/observed-behaviour.md D.1–D.4 literally (and evtsim's
// documented policy mapping in schedulers/mod.ts), so that each rule can be
// checked against the text line by line. Besides the rows it keeps a decision
// log with the reservations that justified every backfill.

import type { JobRow, JobSpec, Notice, ResourceRow, SimulationConfig } from "../core/types.ts";

interface Job {
  readonly id: number;
  readonly submit: number;
  readonly nodes: number;
  readonly limit: number;
  readonly run: number;
  readonly queue: string | undefined;
  begin: number;
  end: number;
}

/** Why a job started, and what the scheduler knew at that moment. */
export interface Decision {
  readonly time: number;
  readonly jobId: number;
  readonly kind: "head" | "backfill";
  /** For a backfill: the head (oldest waiting job) at the moment of the decision. */
  readonly headId?: number;
  /**
   * For a backfill: the head's reservation (shadow time) at that moment. For
   * EASY that is the shadow of the whole scan; CONSERVATIVE recomputes it per
   * candidate against the call's earlier backfills too.
   */
  readonly shadow?: number;
  /** CONSERVATIVE backfill: min over the jobs ahead of the candidate of their reservations. */
  readonly window?: number;
}

/** Everything the reference produces for a batch run. */
export interface ReferenceRun {
  readonly jobRows: JobRow[];
  readonly resourceRows: ResourceRow[];
  readonly notices: Notice[];
  readonly decisions: Decision[];
  /**
   * For each job that was ever a waiting head that did not fit: the first
   * reservation (> now) computed for it as head, and when. A reservation
   * equal to `now` for a head that does not fit is DR_EVT's "cannot be
   * reserved" sentinel (it only blocks backfilling) and is not recorded.
   */
  readonly headReservations: Map<number, { time: number; reservation: number }>;
}

type Mode =
  | "fcfs"
  | "easy"
  | "conservative"
  | "easy_extra"
  | "conservative_profile"
  | "conservative_profile_no_compression"
  | "sjf"
  | "ljf";

/**
 * Whether the reference models `config`'s policy pair: DR_EVT's SJF and LJF
 * priority policies are modelled with DR_EVT's own backfilling only (their
 * EASY with the shadow boundary, or none); a textbook admission policy under
 * them runs in the engine with the `sjf`/`ljf` picker, which this model has
 * not.
 */
export function referenceModels(config: SimulationConfig): boolean {
  const p = config.priorityPolicy ?? "fcfs";
  const b = config.backfillPolicy ?? "easy";
  return config.admission === undefined &&
    (!(p === "sjf" || p === "ljf") || b === "none" || b === "easy" || b === "conservative");
}

function modeOf(config: SimulationConfig): { mode: Mode; backfill: boolean } {
  const p = config.priorityPolicy ?? "fcfs";
  const b = config.backfillPolicy ?? "easy";
  if (p === "sjf" || p === "ljf") return { mode: p, backfill: b !== "none" };
  // fcfs, fcfs_alt, fcfs_conservative: evtsim runs the policy the flag names.
  return { mode: b === "none" ? "fcfs" : b as Mode, backfill: b !== "none" };
}

/** DR_EVT's calculate_fcfs_reservation over a list of running jobs (by limit). */
export function reservation(
  nodes: number,
  free: number,
  running: readonly { begin: number; limit: number; nodes: number }[],
  now: number,
): number {
  if (nodes <= free) return now;
  const deficit = nodes - free;
  const ends = running
    .filter((r) => r.begin + r.limit > now)
    .map((r) => ({ end: r.begin + r.limit, nodes: r.nodes }))
    .sort((a, b) => a.end - b.end || a.nodes - b.nodes);
  let released = 0;
  for (const e of ends) {
    released += e.nodes;
    if (released >= deficit) return e.end;
  }
  return now;
}

/**
 * Runs `trace` (sorted by submit time; ids are indexes) in batch mode:
 * submit everything, advance to infinity, write everything.
 */
export function referenceSimulate(
  config: SimulationConfig,
  trace: readonly JobSpec[],
): ReferenceRun {
  const total = config.totalNodes;
  const runMode = config.runTimeMode ?? "actual";
  const { mode, backfill } = modeOf(config);
  const jobs: Job[] = trace.map((s, id) => ({
    id,
    submit: s.submitTime,
    nodes: s.numNodes,
    limit: s.timeLimit,
    run: runMode === "limit" ? s.timeLimit : (s.actualRunTime ?? s.timeLimit),
    queue: s.queue,
    begin: -1,
    end: -1,
  }));
  const notices: Notice[] = [];
  const pending: Job[] = [];
  for (const j of jobs) {
    if (j.nodes > total) {
      notices.push({ kind: "rejected", jobId: j.id, numNodes: j.nodes, totalNodes: total });
    } else pending.push(j);
  }
  let now = config.startTime ?? 0;
  let allocated = 0;
  const waiting: Job[] = []; // eligible, in arrival (= submit, id) order
  const running: Job[] = [];
  const resourceRows: ResourceRow[] = [{ time: now, freeNodes: total, allocatedNodes: 0 }];
  const decisions: Decision[] = [];
  const headReservations = new Map<number, { time: number; reservation: number }>();

  const noteHead = (head: Job, free: number, eff: readonly Job[]) => {
    if (headReservations.has(head.id)) return;
    const r = reservation(head.nodes, free, eff, now);
    if (r > now) headReservations.set(head.id, { time: now, reservation: r });
  };
  const sync = (): boolean => {
    let moved = false;
    while (pending.length > 0 && pending[0].submit <= now) {
      waiting.push(pending.shift()!);
      moved = true;
    }
    return moved;
  };
  const start = (j: Job) => {
    j.begin = now;
    running.push(j);
    allocated += j.nodes;
    resourceRows.push({ time: now, freeNodes: total - allocated, allocatedNodes: allocated });
  };
  const take = (j: Job) => waiting.splice(waiting.indexOf(j), 1);
  // A job ended before its projected end since the last scheduling call.
  let endedEarly = false;

  // D.2 / D.3: one call of the FCFS scheduler; returns the jobs to start.
  const scheduleFcfs = (): Job[] => {
    let free = Math.max(0, total - allocated);
    const eff: Job[] = [...running]; // "effective running" of this call
    const out: Job[] = [];
    while (waiting.length > 0 && waiting[0].nodes <= free) {
      const h = waiting.shift()!;
      out.push(h);
      free -= h.nodes;
      eff.push({ ...h, begin: now });
      decisions.push({ time: now, jobId: h.id, kind: "head" });
    }
    if (waiting.length === 0) return out;
    const head = waiting[0];
    noteHead(head, free, eff);
    if (mode === "fcfs") return out;
    const shadow = reservation(head.nodes, free, eff, now);
    const removed = new Set<Job>();
    if (mode === "easy_extra") {
      // Textbook EASY: ends by the shadow time, or fits in the extra nodes
      // (free at the shadow time beyond the head's need), which shrink.
      if (shadow <= now) return out; // no reservation can be made: no backfill
      let atShadow = free;
      for (const r of eff) {
        const end = r.begin + r.limit;
        if (end > now && end <= shadow) atShadow += r.nodes;
      }
      let extra = atShadow - head.nodes;
      for (let i = 1; i < waiting.length; i++) {
        const c = waiting[i];
        if (c.nodes > free) continue;
        if (now + c.limit <= shadow) {
          // ends by the shadow time
        } else if (extra > 0 && c.nodes <= extra) extra -= c.nodes;
        else continue;
        decisions.push({ time: now, jobId: c.id, kind: "backfill", headId: head.id, shadow });
        removed.add(c);
        out.push(c);
        free -= c.nodes;
      }
      for (const c of removed) take(c);
      return out;
    }
    for (let i = 1; i < waiting.length && free > 0; i++) {
      const c = waiting[i];
      if (c.nodes > free) continue;
      if (mode === "easy") {
        if (!(now + c.limit < shadow)) continue;
        decisions.push({ time: now, jobId: c.id, kind: "backfill", headId: head.id, shadow });
      } else {
        let window = Infinity;
        for (let k = 0; k < i; k++) {
          if (removed.has(waiting[k])) continue;
          window = Math.min(window, reservation(waiting[k].nodes, free, eff, now));
        }
        if (!(now + c.limit < window)) continue;
        // The head's reservation now, after this call's earlier backfills (a
        // zero-limit backfill holds its nodes past every projected release).
        const headNow = reservation(head.nodes, free, eff, now);
        decisions.push({
          time: now,
          jobId: c.id,
          kind: "backfill",
          headId: head.id,
          shadow: headNow,
          window,
        });
        eff.push({ ...c, begin: now });
      }
      removed.add(c);
      out.push(c);
      free -= c.nodes;
    }
    for (const c of removed) take(c);
    return out;
  };

  // Conservative backfilling with an availability profile (not DR_EVT's):
  // every waiting job holds a reservation, kept from call to call in `held`.
  // A new job gets the earliest start that delays no reservation; held ones
  // keep theirs, except in the first call after a job ended before its
  // projected end (`endedEarly`): then, with compression, each held one is
  // given the earliest start again in the order they are held, in one pass
  // (Mu'alem & Feitelson 2001). Without compression a held job still starts now if
  // that delays no reservation. The profile is a sum over blocks, evaluated
  // point by point.
  const held = new Map<number, { start: number; limit: number; nodes: number }>();
  const scheduleProfile = (compression: boolean): Job[] => {
    const compress = compression && endedEarly;
    endedEarly = false;
    let free = Math.max(0, total - allocated);
    const base = free;
    // Running jobs release their nodes at their projected end (now if overrun).
    const releases = running.map((r) => ({ at: Math.max(r.begin + r.limit, now), nodes: r.nodes }));
    const blocks: { id: number; start: number; end: number; nodes: number }[] = [];
    for (const [id, r] of held) {
      const start = Math.max(r.start, now);
      blocks.push({ id, start, end: start + r.limit, nodes: r.nodes });
    }
    const freeAt = (t: number): number => {
      let f = base;
      for (const r of releases) if (r.at <= t) f += r.nodes;
      for (const b of blocks) if (b.start <= t && t < b.end) f -= b.nodes;
      return f;
    };
    const points = (): number[] =>
      [now, ...releases.map((r) => r.at), ...blocks.flatMap((b) => [b.start, b.end])]
        .filter((t) => t >= now)
        .sort((a, b) => a - b);
    const fitsAt = (c: number, nodes: number, limit: number): boolean =>
      freeAt(c) >= nodes && points().every((p) => p <= c || p >= c + limit || freeAt(p) >= nodes);
    const earliest = (nodes: number, limit: number): number => {
      for (const c of points()) if (fitsAt(c, nodes, limit)) return c;
      return Infinity;
    };
    const unblock = (id: number) => {
      const at = blocks.findIndex((b) => b.id === id);
      if (at >= 0) blocks.splice(at, 1);
    };
    if (compress) {
      // One pass, in the order the reservations are held.
      for (const [id, r] of held) {
        const i = blocks.findIndex((b) => b.id === id);
        const mine = blocks[i];
        blocks.splice(i, 1);
        const t = earliest(r.nodes, r.limit);
        const start = t < mine.start ? t : mine.start;
        blocks.splice(i, 0, { id, start, end: start + r.limit, nodes: r.nodes });
      }
    }
    const out: Job[] = [];
    const next = new Map<number, { start: number; limit: number; nodes: number }>();
    let waitingAhead = false;
    for (const j of waiting) {
      const old = held.get(j.id);
      let start: number;
      if (old === undefined) {
        start = earliest(j.nodes, j.limit);
        blocks.push({ id: j.id, start, end: start + j.limit, nodes: j.nodes });
      } else {
        start = blocks.find((b) => b.id === j.id)!.start;
        if (!compression && start > now && j.nodes <= free) {
          const mine = blocks.find((b) => b.id === j.id)!;
          unblock(j.id);
          if (fitsAt(now, j.nodes, j.limit)) start = now;
          else blocks.push(mine);
        }
      }
      if (start <= now && j.nodes <= free) {
        unblock(j.id);
        out.push(j);
        free -= j.nodes;
        blocks.push({ id: -1, start: now, end: now + j.limit, nodes: j.nodes });
        decisions.push(
          waitingAhead
            ? { time: now, jobId: j.id, kind: "backfill", headId: -1, shadow: start }
            : { time: now, jobId: j.id, kind: "head" },
        );
        continue;
      }
      next.set(j.id, { start, limit: j.limit, nodes: j.nodes });
      waitingAhead = true;
    }
    held.clear();
    for (const [id, r] of next) held.set(id, r);
    for (const j of out) take(j);
    return out;
  };

  // D.4: one call of SJF/LJF; at most one job.
  const scheduleLimitOrdered = (): Job[] => {
    if (waiting.length === 0) return [];
    const byKey = [...waiting].sort((a, b) =>
      (mode === "ljf" ? b.limit - a.limit : a.limit - b.limit) || a.id - b.id
    );
    const oldest = Math.min(...waiting.map((j) => j.submit));
    const head = byKey.find((j) => j.submit === oldest)!;
    const free = Math.max(0, total - allocated);
    if (head.nodes <= free) {
      decisions.push({ time: now, jobId: head.id, kind: "head" });
      take(head);
      return [head];
    }
    noteHead(head, free, running);
    if (!backfill) return [];
    const shadow = reservation(head.nodes, free, running, now);
    if (shadow <= now) return [];
    const pick = byKey.find((j) => j.nodes <= free && j.limit <= shadow - now);
    if (pick === undefined) return [];
    decisions.push({ time: now, jobId: pick.id, kind: "backfill", headId: head.id, shadow });
    take(pick);
    return [pick];
  };

  const scheduleUntilStalled = () => {
    for (;;) {
      const started = mode === "sjf" || mode === "ljf"
        ? scheduleLimitOrdered()
        : mode === "conservative_profile" || mode === "conservative_profile_no_compression"
        ? scheduleProfile(mode === "conservative_profile")
        : scheduleFcfs();
      if (started.length === 0) return;
      for (const j of started) start(j);
    }
  };

  // D.1: the event loop, advance_to(+∞).
  sync();
  scheduleUntilStalled();
  for (;;) {
    const nextEnd = Math.min(...running.map((j) => j.begin + j.run));
    const nextArrival = pending.length > 0 ? pending[0].submit : Infinity;
    // Conservative backfilling wakes at the earliest reservation to come.
    let nextWake = Infinity;
    if (waiting.length > 0) {
      for (const r of held.values()) if (r.start > now && r.start < nextWake) nextWake = r.start;
    }
    const next = Math.min(nextEnd, nextArrival, nextWake);
    if (next === Infinity) break;
    now = next;
    const arrived = sync();
    const ending = running
      .filter((j) => j.begin + j.run <= now)
      .sort((a, b) => a.begin + a.run - (b.begin + b.run) || a.id - b.id);
    for (const j of ending) {
      running.splice(running.indexOf(j), 1);
      j.end = j.begin + j.run;
      if (j.run < j.limit) endedEarly = true;
      allocated -= j.nodes;
      resourceRows.push({ time: j.end, freeNodes: total - allocated, allocatedNodes: allocated });
    }
    if (arrived || ending.length > 0 || next === nextWake) scheduleUntilStalled();
  }

  const jobRows: JobRow[] = jobs
    .filter((j) => j.end >= 0)
    .map((j) => ({
      jobId: j.id,
      submitTime: j.submit,
      beginTime: j.begin,
      endTime: j.end,
      numNodes: j.nodes,
      timeLimit: j.limit,
      queue: j.queue,
    }));
  return { jobRows, resourceRows, notices, decisions, headReservations };
}

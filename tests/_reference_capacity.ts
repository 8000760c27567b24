// A deliberately plain reference for evtsim's capacity rules (the default
// `capacitySemantics: "evtsim"`), FCFS order, admission `none` or `easy`:
// arrays and loops, the whole queue scanned on every pass. The rules, from
// docs/policies.md (`--capacity_schedule`):
//
// - at one instant: arrivals, then capacity changes, then ends, then the
//   scheduling passes (one after another until one starts nothing);
// - while the capacity is below the machine, a waiting job needing more
//   nodes than the capacity is held: the pass skips it (it is neither a
//   head nor a backfill candidate) and it waits until the capacity returns;
// - free nodes = max(0, capacity − allocated): drained jobs (running on cut
//   nodes) hold nodes that are not free, and the nodes leave as jobs end;
// - `kill`: at a cut below the allocation, running jobs end at once, the
//   latest started first (ties: the highest id), until the allocation fits;
// - a change writes a resource row only while a job runs (a kill's ends
//   write theirs instead).
//
// `none` starts heads while they fit; `easy` then gives the first that does
// not fit (the head) a reservation at its shadow time (DR_EVT's rule, as in
// _reference_sim.ts) and starts a later job that fits the free nodes and
// ends (by its limit) strictly before it; no pass when no node is free.

import type { JobRow, JobSpec, Notice, ResourceRow } from "../core/types.ts";
import { reservation } from "./_reference_sim.ts";

/** What the reference runs: FCFS, `none` or `easy`, a capacity schedule. */
export interface CapacityReferenceConfig {
  readonly totalNodes: number;
  readonly backfillPolicy: "none" | "easy";
  readonly capacitySchedule: readonly { readonly time: number; readonly capacity: number }[];
  readonly onCapacityCut?: "drain" | "kill";
}

/** The rows of a batch run, and the jobs held at its end. */
export interface CapacityReferenceRun {
  readonly jobRows: JobRow[];
  readonly resourceRows: ResourceRow[];
  readonly notices: Notice[];
  readonly held: number;
}

interface Job {
  readonly id: number;
  readonly submit: number;
  readonly nodes: number;
  readonly limit: number;
  readonly run: number;
  begin: number;
  end: number;
  killed: boolean;
}

/** Runs `trace` (sorted by submit time; ids are indexes) in batch mode from time 0. */
export function referenceCapacityRun(
  config: CapacityReferenceConfig,
  trace: readonly JobSpec[],
): CapacityReferenceRun {
  const total = config.totalNodes;
  const schedule = config.capacitySchedule;
  const kill = config.onCapacityCut === "kill";
  const jobs: Job[] = trace.map((s, id) => ({
    id,
    submit: s.submitTime,
    nodes: s.numNodes,
    limit: s.timeLimit,
    run: s.actualRunTime ?? s.timeLimit,
    begin: -1,
    end: -1,
    killed: false,
  }));
  const notices: Notice[] = [];
  const pending: Job[] = [];
  for (const j of jobs) {
    if (j.nodes > total) {
      notices.push({ kind: "rejected", jobId: j.id, numNodes: j.nodes, totalNodes: total });
    } else pending.push(j);
  }
  let now = 0;
  let cap = total;
  let ci = 0;
  while (ci < schedule.length && schedule[ci].time <= now) cap = schedule[ci++].capacity;
  let allocated = 0;
  const waiting: Job[] = [];
  const running: Job[] = [];
  const rows: ResourceRow[] = [{ time: now, freeNodes: cap, allocatedNodes: 0 }];
  const row = () =>
    rows.push({ time: now, freeNodes: Math.max(0, cap - allocated), allocatedNodes: allocated });
  const free = () => Math.max(0, cap - allocated);

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
    waiting.splice(waiting.indexOf(j), 1);
    running.push(j);
    allocated += j.nodes;
    row();
  };
  const stop = (j: Job) => {
    j.end = now;
    running.splice(running.indexOf(j), 1);
    allocated -= j.nodes;
    row();
  };
  const session = (): number => {
    const candidates = waiting.filter((j) => !(cap < total && j.nodes > cap));
    let started = 0;
    let i = 0;
    for (; i < candidates.length && candidates[i].nodes <= free(); i++) {
      start(candidates[i]);
      started++;
    }
    if (i === candidates.length || config.backfillPolicy === "none" || free() <= 0) return started;
    const head = candidates[i];
    const shadow = reservation(head.nodes, free(), running, now);
    for (const c of candidates.slice(i + 1)) {
      if (free() > 0 && c.nodes <= free() && now + c.limit < shadow) {
        start(c);
        started++;
      }
    }
    return started;
  };
  const schedulePasses = () => {
    if (waiting.length === 0) return;
    while (session() > 0) { /* again, with the new state */ }
  };
  const setCapacity = (c: number): boolean => {
    const raised = c > cap;
    const changed = c !== cap;
    cap = c;
    let killed = false;
    if (kill && allocated > cap) {
      const victims = [...running].sort((a, b) => b.begin - a.begin || b.id - a.id);
      for (const v of victims) {
        if (allocated <= cap) break;
        v.killed = true;
        stop(v);
        killed = true;
      }
    }
    if (changed && !killed && running.length > 0) row();
    return (raised || killed) && waiting.length > 0;
  };

  sync();
  schedulePasses();
  for (;;) {
    const endTime = Math.min(...running.map((r) => r.begin + r.run));
    const arrivalTime = pending.length > 0 ? pending[0].submit : Infinity;
    const capacityTime = ci < schedule.length ? schedule[ci].time : Infinity;
    const next = Math.min(endTime, arrivalTime, capacityTime);
    if (next === Infinity) break;
    if (endTime === Infinity && arrivalTime === Infinity && waiting.length === 0) break;
    now = next;
    const arrived = sync();
    let due = false;
    while (ci < schedule.length && schedule[ci].time <= now) {
      due = setCapacity(schedule[ci++].capacity) || due;
    }
    const ending = running.filter((r) => r.begin + r.run <= now).sort((a, b) => a.id - b.id);
    for (const j of ending) stop(j);
    if (arrived || due || ending.length > 0) schedulePasses();
  }
  if (waiting.length > 0 && running.length === 0 && pending.length === 0) {
    notices.push({ kind: "stranded", time: now, waitingJobs: waiting.length, capacity: cap });
  }
  const jobRows: JobRow[] = jobs.filter((j) => j.end >= 0).map((j) => {
    const r: JobRow = {
      jobId: j.id,
      submitTime: j.submit,
      beginTime: j.begin,
      endTime: j.end,
      numNodes: j.nodes,
      timeLimit: j.limit,
      queue: undefined,
    };
    return j.killed ? { ...r, outcome: "killed", exitStatus: 137 } : r;
  });
  const held = cap < total ? waiting.filter((j) => j.nodes > cap).length : 0;
  return { jobRows, resourceRows: rows, notices, held };
}

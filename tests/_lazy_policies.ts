// Deliberately lazy schedulers: each is safe (never starts a job that does
// not fit, never delays the head past its reservation) but leaves nodes idle
// that its rule says must be used. The work-conservation check and
// fuzzScheduler must catch every one of them; the older checks do not.
// Also a policy module for `evtsim simulate --policy_module` (it exports
// `pickers` and `admissions`).

import type { Admission, AdmissionSession, JobRecord, Picker, PickerSession } from "../mod.ts";

/** Starts jobs in the picker's order while they fit, but only on an idle machine. */
export const idleOnly: Admission = {
  name: "idle_only",
  runSession(s) {
    if (s.running.size > 0) return;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes > s.free) return;
      s.dispatch(job, false);
    }
  },
};

/** "EASY" that never backfills: the heads only, as `none` does. */
export const neverBackfills: Admission = {
  name: "never_backfills",
  runSession(s) {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes > s.free) return;
      s.dispatch(job, false);
    }
  },
};

/** DR_EVT's reservation of `nodes` nodes (the head's shadow time). */
function shadowTime(s: AdmissionSession, nodes: number): number {
  let released = 0;
  for (const r of s.running.values()) {
    if (r.projectedEnd <= s.now) continue;
    released += r.numNodes;
    if (released >= nodes - s.free) return r.projectedEnd;
  }
  return s.now;
}

/** EASY whose backfill pass stops at the first candidate it cannot start (a `break` bug). */
export const stopsAtFirstMisfit: Admission = {
  name: "stops_at_first_misfit",
  runSession(s) {
    let head: JobRecord | undefined;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes > s.free) {
        head = job;
        break;
      }
      s.dispatch(job, false);
    }
    if (head === undefined || s.free <= 0) return;
    const shadow = shadowTime(s, head.numNodes);
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes > s.free || !(s.now + job.timeLimit < shadow)) return;
      s.dispatch(job, true);
    }
  },
};

const fcfs = (a: JobRecord, b: JobRecord) => a.submitTime - b.submitTime || a.id - b.id;

/** FCFS over a frozen array, but a session offers only its first job (no backfill candidates). */
export const headOnly: Picker<readonly JobRecord[]> = {
  name: "head_only",
  init: () => [],
  onQueueUpdate: (jobs) => jobs,
  onJobPush: (jobs, job) => [...jobs, job].sort(fcfs),
  onJobStateChange: (jobs, job, change) =>
    change === "pending" ? [...jobs, job].sort(fcfs) : jobs.filter((j) => j.id !== job.id),
  onJobUpdate: (jobs, _before, job) => jobs.map((j) => (j.id === job.id ? job : j)).sort(fcfs),
  size: (jobs) => jobs.length,
  pending: (jobs) => jobs,
  beginSession(jobs): PickerSession<readonly JobRecord[]> {
    let offered = false;
    let started: number | undefined;
    return {
      nextJob: () => {
        if (offered) return undefined;
        offered = true;
        return jobs[0];
      },
      onDispatch: (job) => void (started = job.id),
      onPend: () => {},
      endSession: () => jobs.filter((j) => j.id !== started),
    };
  },
};

/** The policy module's exports, as `--policy_module` reads them. */
export const admissions: readonly Admission[] = [idleOnly, neverBackfills, stopsAtFirstMisfit];
/** The policy module's exports, as `--policy_module` reads them. */
export const pickers: readonly Picker[] = [headOnly as Picker];

// The pieces of the snapshot state check (core/_state_check.ts): how a fault
// is said (`snapshot: <field>: …`), which lifecycle form a job record is in,
// and whether the statistics agree with the jobs.

import { EvtsimError } from "./errors.ts";
import { MAX_EXACT } from "./_input_check.ts";
import type { JobRecordData, SnapshotData } from "./snapshot.ts";

/** The error for a snapshot whose `field` is at fault. */
export function bad(field: string, detail: string): EvtsimError {
  return new EvtsimError("input", `snapshot: ${field}: ${detail}`);
}

/** A finite time of magnitude at most 2^53 − 1. */
export const exact = (x: number) => Number.isFinite(x) && Math.abs(x) <= MAX_EXACT;
/** A non-negative integer count. */
export const count = (x: number) => Number.isSafeInteger(x) && x >= 0;

// The field's name is built only for the message (a string per record would cost more than the check).
export function checkExact(field: string | (() => string), x: number): void {
  if (exact(x)) return;
  throw bad(
    typeof field === "string" ? field : field(),
    `${x} is not a finite time of at most 2^53 - 1`,
  );
}

/** The lifecycle form of a record, as the checks below classify it. */
export type Form = "unsubmitted" | "rejected" | "notStarted" | "running" | "finished";

/** The lifecycle form of record `i` at clock `now`; throws when it is in none. */
export function formOf(r: JobRecordData, i: number, now: number): Form {
  const untouched = r.beginTime === -1 && r.endTime === -1 && r.outcome === undefined;
  if (r.rejected) {
    if (!untouched || r.unsubmitted === true) {
      throw bad(
        `store.records[${i}].rejected`,
        `job ${r.id} was rejected at submission but has begin, end or outcome`,
      );
    }
    return "rejected";
  }
  if (r.unsubmitted === true) {
    if (!untouched) {
      throw bad(`store.records[${i}].unsubmitted`, `job ${r.id} is not submitted but has begun`);
    }
    return "unsubmitted";
  }
  if (untouched) return "notStarted";
  const { beginTime: begin, endTime: end } = r;
  checkExact(() => `store.records[${i}].beginTime`, begin);
  if (begin < 0 && begin !== -1) {
    throw bad(`store.records[${i}].beginTime`, `${begin} is not a time the job began`);
  }
  if (begin === -1 && r.outcome !== "cancelled") {
    throw bad(
      `store.records[${i}].beginTime`,
      `job ${r.id} has not begun but has an end or outcome`,
    );
  }
  if (begin !== -1 && begin < r.submitTime) {
    throw bad(
      `store.records[${i}].beginTime`,
      `${begin} is before the job's submit time ${r.submitTime}`,
    );
  }
  if (begin > now) throw bad(`store.records[${i}].beginTime`, `${begin} is after the clock ${now}`);
  if (end === -1) {
    if (r.outcome !== undefined) {
      throw bad(`store.records[${i}].outcome`, `job ${r.id} runs but has an outcome`);
    }
    return "running";
  }
  checkExact(() => `store.records[${i}].endTime`, end);
  if (end < begin || end > now) {
    throw bad(
      `store.records[${i}].endTime`,
      `${end} is not between the begin ${begin} and the clock ${now}`,
    );
  }
  if (r.outcome === "cancelled" && (end !== begin || end < r.submitTime)) {
    throw bad(
      `store.records[${i}].endTime`,
      `a cancelled job ends when it begins, at or after its submission`,
    );
  }
  return "finished";
}

/** What the records showed, for the statistics check. */
export interface Counts {
  readonly running: number;
  readonly notStarted: number;
  readonly storeRejected: number;
  readonly storeCancelled: number;
  readonly storeEnded: number;
  readonly total: number;
  readonly start: number;
}

// Float sums may exceed an exact bound by rounding; this margin covers that, never a corruption
// of any size that matters.
const SLACK = 1 + 1e-9;

/** Throws unless the statistics agree with the jobs and the clock. */
export function checkStatistics(data: SnapshotData, c: Counts): void {
  const s = data.stats;
  const stat = (k: string) => `stats.${k}`;
  for (const [k, v] of Object.entries(s)) {
    if (v !== null && !(typeof v === "number" && v >= 0 && exact(v))) {
      if (k !== "firstSubmit" && k !== "lastEnd") {
        throw bad(stat(k), `${v} is not a non-negative number of at most 2^53 - 1`);
      }
      checkExact(stat(k), v as number);
    }
  }
  const ended = s.jobsCompleted + s.jobsFailed + s.jobsKilled;
  if (s.jobsCreated !== data.nextJobId) {
    throw bad(stat("jobsCreated"), `${s.jobsCreated}, but ${data.nextJobId} jobs were created`);
  }
  if (s.jobsStarted !== ended + c.running) {
    throw bad(
      stat("jobsStarted"),
      `${s.jobsStarted}, but ${ended} jobs ended and ${c.running} run`,
    );
  }
  const accounted = s.jobsRejected + s.jobsCancelled + s.jobsStarted + c.notStarted;
  if (!data.finished && accounted !== s.jobsCreated) {
    throw bad(
      stat("jobsRejected"),
      `${s.jobsRejected} rejected, ${s.jobsCancelled} cancelled, ${s.jobsStarted} started and ${c.notStarted} not started do not add up to the ${s.jobsCreated} jobs created`,
    );
  }
  if (
    s.jobsRejected < c.storeRejected || s.jobsCancelled < c.storeCancelled || ended < c.storeEnded
  ) {
    throw bad(stat("jobsRejected"), "fewer jobs counted than the store holds");
  }
  const n = s.jobsCompleted;
  if ((s.firstSubmit === null) !== (n === 0)) {
    throw bad(
      stat("firstSubmit"),
      n === 0 ? "set, but no job completed" : "missing, but jobs completed",
    );
  }
  if ((s.lastEnd === null) !== (ended === 0)) {
    throw bad(stat("lastEnd"), ended === 0 ? "set, but no job ended" : "missing, but jobs ended");
  }
  const lastEnd = s.lastEnd ?? c.start;
  if (lastEnd > data.time || lastEnd < c.start) {
    throw bad(
      stat("lastEnd"),
      `${lastEnd} is not between the start ${c.start} and the clock ${data.time}`,
    );
  }
  const first = s.firstSubmit ?? c.start;
  if (first < c.start || first > lastEnd) {
    throw bad(
      stat("firstSubmit"),
      `${first} is not between the start ${c.start} and the last end ${lastEnd}`,
    );
  }
  const span = lastEnd - first;
  if (
    n === 0 &&
    (s.sumWait !== 0 || s.maxWait !== 0 || s.sumTurnaround !== 0 || s.sumBoundedSlowdown !== 0)
  ) {
    throw bad(stat("sumWait"), "waits and turnarounds summed, but no job completed");
  }
  if (s.maxWait > span || s.maxWait > s.sumWait || s.sumWait > n * s.maxWait * SLACK) {
    throw bad(
      stat("sumWait"),
      `${s.sumWait} (largest ${s.maxWait}) does not fit ${n} completed jobs`,
    );
  }
  if (s.sumTurnaround < s.sumWait || s.sumTurnaround > n * span * SLACK) {
    throw bad(
      stat("sumTurnaround"),
      `${s.sumTurnaround} does not fit ${n} completed jobs over ${span} s`,
    );
  }
  if (s.sumBoundedSlowdown < n || s.sumBoundedSlowdown > n * Math.max(1, span / 10) * SLACK) {
    throw bad(
      stat("sumBoundedSlowdown"),
      `${s.sumBoundedSlowdown} does not fit ${n} completed jobs`,
    );
  }
  if (s.nodeSeconds > c.total * (lastEnd - c.start) * SLACK) {
    throw bad(stat("nodeSeconds"), `${s.nodeSeconds} is more than ${c.total} nodes could give`);
  }
  if (data.round > s.queueSamples) {
    throw bad("round", `${data.round} rounds, but ${s.queueSamples} queue samples`);
  }
  if (data.sampled !== s.queueSamples > 0) {
    throw bad("sampled", `${data.sampled}, but ${s.queueSamples} queue samples were taken`);
  }
  if (
    s.queueSampleMax > s.queueSampleSum || s.queueSampleSum > s.queueSamples * s.queueSampleMax ||
    s.queueSampleMax > s.jobsCreated
  ) {
    throw bad(
      stat("queueSampleSum"),
      `${s.queueSampleSum} (largest ${s.queueSampleMax}) does not fit ${s.queueSamples} samples`,
    );
  }
}

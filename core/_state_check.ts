// The invariants every state `step` produces, checked on a snapshot's data
// before it becomes a state (core/_snapshot_restore.ts): a snapshot comes
// from a file, a log or a caller, and a state that lies (a running job on
// more nodes than the machine has, a running job without its end event, a
// negative sum of waits) would otherwise run on to negative free nodes or
// absurd statistics with exit 0. The schema (io/replay_schema.ts) has checked
// the shapes; this checks the facts, in one pass over the records (linear in
// the snapshot's size), and names the field at fault in one line.
//
// What holds in a state of a simulation (replayed schedules are never
// snapshotted; a resource model's allocations: core/_state_check_resources.ts):
// - every time is exact (|t| ≤ 2^53 − 1), and every job's computed times
//   (begin + run time, begin + time limit) stay exact too;
// - each record is in one of the job's lifecycle forms: not submitted,
//   rejected (more nodes than the machine), waiting (future arrivals in
//   `arrivals`, arrived ones with the picker), running (begun at or before
//   the clock, with exactly one end event that matches its record, unless
//   ends are external), or finished (completed, cancelled, failed, killed;
//   at or before the clock);
// - allocated nodes = the running jobs' nodes ≤ total nodes; capacity ≤ total;
// - pending events and live events are at or after the clock, resource rows
//   at or before it, in order, within the machine;
// - the statistics agree with the jobs: created = next job id, started =
//   ended + running, created = rejected + cancelled + started + not started,
//   sums non-negative and within what the jobs' times allow.

import { suspensionProblem } from "./_suspension.ts";
import type { ResolvedConfig } from "./config.ts";
import { DEFAULT_RESOURCE_HISTORY_CAPACITY, EARLIER_RESOURCE_HISTORY_CAPACITY } from "./config.ts";
import { MAX_EXACT } from "./_input_check.ts";
import { drawnEndTime } from "./_run_time_draws.ts";
import type { JobRecordData, SnapshotData } from "./snapshot.ts";
import type { TimeBound } from "./state.ts";
import {
  bad,
  checkExact,
  checkStatistics,
  count,
  exact,
  type Form,
  formOf,
} from "./_state_check_parts.ts";
import { checkAllocations } from "./_state_check_resources.ts";

/**
 * Throws an `EvtsimError` naming the field (`snapshot: store.records[3].numNodes: …`)
 * unless `data` describes a state `step` could have produced under `config`
 * (its resolved configuration). Ids, store continuity and the allocated sum
 * are checked by the caller first. Returns the bound on the times the state
 * can compute from here (`TimeBound`): the latest time its jobs, events and
 * capacity changes name, and the spans of the jobs not finished.
 */
export function checkSnapshotState(data: SnapshotData, config: ResolvedConfig): TimeBound {
  const total = config.totalNodes;
  const now = data.time;
  const start = config.startTime;
  checkExact("time", now);
  if (now < start) throw bad("time", `the clock ${now} is before the start time ${start}`);
  if (!count(data.nextJobId) || data.nextJobId > MAX_EXACT) {
    throw bad("nextJobId", `${data.nextJobId} is not a job count`);
  }
  const drawn = config.runTimeMode === "distribution";
  if ((data.rng === null) === drawn) {
    throw bad(
      "rng",
      drawn
        ? "drawn run times need the generator's state"
        : `a generator's state, but run times are not drawn (run time mode ${config.runTimeMode})`,
    );
  }
  const { firstId, records } = data.store;
  const store = data.store;
  if (config.jobStoreCapacity === 0 ? store.capacity !== 0 : store.capacity < records.length) {
    throw bad(
      "store.capacity",
      config.jobStoreCapacity === 0
        ? `${store.capacity}, but the configured store is unbounded (0)`
        : `${store.capacity} is less than the ${records.length} records held`,
    );
  }

  // Every record: its values, then its form.
  const arrivals = new Set<number>();
  data.arrivals.forEach((id, i) => {
    if (arrivals.has(id)) throw bad(`arrivals[${i}]`, `job ${id} is listed twice`);
    arrivals.add(id);
  });
  const external = config.runTimeMode === "external";
  const endOf = (r: JobRecordData) =>
    drawn ? drawnEndTime(r.beginTime, r.runTime) : r.beginTime + r.runTime;
  const forms: Form[] = new Array(records.length);
  let running = 0;
  let notStarted = 0;
  let allocated = 0;
  let storeRejected = 0;
  let storeCancelled = 0;
  let storeEnded = 0;
  // The time bound from here on: finished jobs no longer add to it.
  let latest = Math.max(start, ...config.capacitySchedule.slice(-1).map((c) => c.time));
  let spans = 0;
  const rounding = drawn ? 1 : 0;
  records.forEach((r, i) => {
    checkExact(() => `store.records[${i}].submitTime`, r.submitTime);
    if (!(r.timeLimit >= 0 && exact(r.timeLimit))) {
      throw bad(
        `store.records[${i}].timeLimit`,
        `${r.timeLimit} is not a time limit of 0..2^53 - 1 s`,
      );
    }
    if (!(r.runTime >= 0 && exact(r.runTime))) {
      throw bad(`store.records[${i}].runTime`, `${r.runTime} is not a run time of 0..2^53 - 1 s`);
    }
    if (!Number.isSafeInteger(r.priority)) {
      throw bad(`store.records[${i}].priority`, `${r.priority} is not an integer`);
    }
    if (r.hidden) throw bad(`store.records[${i}].hidden`, "only a replayed schedule hides a job");
    if (r.suspensions !== undefined || r.suspendedAt !== undefined) {
      const problem = suspensionProblem(r);
      if (problem !== undefined) throw bad(`store.records[${i}].${problem[0]}`, problem[1]);
    }
    if ((r.outcome === undefined) !== (r.exitStatus === undefined)) {
      throw bad(
        `store.records[${i}].exitStatus`,
        "an exit status goes with an outcome (and only with one)",
      );
    }
    const form = formOf(r, i, now);
    forms[i] = form;
    // A stored job that was never submitted may ask for anything: it is rejected when submitted.
    if (form !== "rejected" && form !== "unsubmitted" && r.numNodes > total) {
      throw bad(
        `store.records[${i}].numNodes`,
        `job ${r.id} holds ${r.numNodes} nodes, more than the ${total} of the machine`,
      );
    }
    if (form !== "unsubmitted" && form !== "rejected" && r.submitTime < start) {
      throw bad(
        `store.records[${i}].submitTime`,
        `${r.submitTime} is before the start time ${start}`,
      );
    }
    if (form === "notStarted" || form === "unsubmitted" || form === "running") {
      spans += (r.runTime > r.timeLimit ? r.runTime : r.timeLimit) + rounding;
      const t = form === "running" ? r.beginTime : form === "notStarted" ? r.submitTime : latest;
      if (t > latest) latest = t;
    }
    switch (form) {
      case "rejected":
        if (r.numNodes <= total) {
          throw bad(
            `store.records[${i}].rejected`,
            `job ${r.id} asks for ${r.numNodes} nodes, which fit the ${total} of the machine`,
          );
        }
        storeRejected++;
        break;
      case "notStarted":
        notStarted++;
        if (arrivals.has(r.id) ? r.submitTime < now : r.submitTime > now) {
          throw bad(
            "arrivals",
            arrivals.has(r.id)
              ? `job ${r.id} was submitted at ${r.submitTime}, before the clock ${now}, but has not arrived`
              : `job ${r.id} is submitted at ${r.submitTime}, after the clock ${now}, but is not an arrival`,
          );
        }
        break;
      case "unsubmitted":
        notStarted++;
        break;
      case "running": {
        running++;
        allocated += r.numNodes;
        const end = endOf(r);
        if (!exact(end) || !exact(r.beginTime + r.timeLimit)) {
          throw bad(
            `store.records[${i}].beginTime`,
            `job ${r.id}'s end would be beyond 2^53 - 1 s`,
          );
        }
        break;
      }
      case "finished":
        if (r.outcome === "cancelled") storeCancelled++;
        else storeEnded++;
        break;
    }
  });
  const formOfId = (id: number): Form | undefined =>
    Number.isSafeInteger(id) && id >= firstId ? forms[id - firstId] : undefined;
  data.arrivals.forEach((id, i) => {
    if (formOfId(id) !== "notStarted") {
      throw bad(`arrivals[${i}]`, `job ${id} is not a submitted job that waits to start`);
    }
  });
  if (allocated > total) {
    throw bad(
      "allocatedNodes",
      `${allocated} nodes are allocated, more than the ${total} of the machine`,
    );
  }
  if (!(data.capacity <= total)) {
    throw bad("capacity", `${data.capacity} is more than the ${total} nodes of the machine`);
  }

  // One end event per running job, matching its record.
  if (external && data.events.length > 0) {
    throw bad("events", "an end event, but jobs end only when told (run time mode external)");
  }
  if (!external && data.events.length !== running) {
    throw bad("events", `${data.events.length} end events for ${running} running jobs`);
  }
  const ended = new Set<number>();
  data.events.forEach((e, i) => {
    if (e.kind !== 0) throw bad(`events[${i}].kind`, "only a replayed schedule has start events");
    const r = formOfId(e.id) === "running" ? records[e.id - firstId] : undefined;
    if (r === undefined) throw bad(`events[${i}].id`, `job ${e.id} is not running`);
    if (ended.has(e.id)) throw bad(`events[${i}].id`, `a second end event of job ${e.id}`);
    ended.add(e.id);
    if (e.numNodes !== r.numNodes || e.beginTime !== r.beginTime || e.timeLimit !== r.timeLimit) {
      throw bad(
        `events[${i}]`,
        `job ${e.id}'s end event does not match its record (nodes, begin, limit)`,
      );
    }
    // A victim running on through a grace time ends at its stop.
    const end = r.graceStop ?? endOf(r);
    if (e.time !== end) {
      throw bad(
        `events[${i}].time`,
        `${e.time}, but job ${e.id} begun at ${r.beginTime} ends at ${end}`,
      );
    }
    if (e.time < now) throw bad(`events[${i}].time`, `${e.time} is before the clock ${now}`);
  });

  // Live events: at or after the clock, numbered below liveSeq, once each.
  const seqs = new Set<number>();
  const queueNames = new Set(data.queues.map((q) => q.name));
  data.liveEvents.forEach((e, i) => {
    checkExact(() => `liveEvents[${i}].time`, e.time);
    if (e.time < now) throw bad(`liveEvents[${i}].time`, `${e.time} is before the clock ${now}`);
    if (e.seq >= data.liveSeq || seqs.has(e.seq)) {
      throw bad(
        `liveEvents[${i}].seq`,
        `${e.seq} is not a sequence number below ${data.liveSeq} used once`,
      );
    }
    seqs.add(e.seq);
    if ("id" in e && !(e.id < data.nextJobId)) {
      throw bad(
        `liveEvents[${i}].id`,
        `job ${e.id} does not exist (next job id ${data.nextJobId})`,
      );
    }
    if (e.kind === "capacity" && e.capacity > total) {
      throw bad(
        `liveEvents[${i}].capacity`,
        `${e.capacity} is more than the ${total} nodes of the machine`,
      );
    }
    if (e.kind === "updateJob" && e.update.queue !== undefined && !queueNames.has(e.update.queue)) {
      throw bad(`liveEvents[${i}].update.queue`, `queue '${e.update.queue}' is not defined`);
    }
    if (e.kind === "updateQueue" && queueNames.size === 0) {
      throw bad(`liveEvents[${i}].queue`, "a queue update, but no queues are configured");
    }
  });

  // Queues in force: the configured ones first (updates add, never remove).
  config.queues.forEach((q, i) => {
    if (data.queues[i]?.name !== q.name) {
      throw bad(`queues[${i}]`, `expected the configured queue '${q.name}'`);
    }
  });
  if (config.queues.length === 0 && data.queues.length > 0) {
    throw bad("queues", "queues in force, but none are configured");
  }

  // Pend reasons: only with decisions on, only for jobs that have arrived and
  // wait (a finished run has written and dropped every record).
  const pended = new Set<number>();
  if (!data.finished) {
    data.pendCodes.forEach(([id], i) => {
      if (config.decisions === false) {
        throw bad(`pendCodes[${i}]`, "a pend reason, but decisions are off");
      }
      if (formOfId(id) !== "notStarted" || arrivals.has(id) || pended.has(id)) {
        throw bad(`pendCodes[${i}]`, `job ${id} is not a waiting job (or is listed twice)`);
      }
      pended.add(id);
    });
  }

  // Capacity changes applied: exactly those at or before the clock.
  const schedule = config.capacitySchedule;
  let due = 0;
  while (due < schedule.length && schedule[due].time <= now) due++;
  if (data.capacityIndex !== due) {
    throw bad(
      "capacityIndex",
      `${data.capacityIndex}, but ${due} capacity changes are at or before the clock ${now}`,
    );
  }

  // Unwritten resource rows: in order, not after the clock, within the machine.
  const rows = data.resourceBuffer;
  // The default was larger once: a state saved then still restores.
  const history = config.resourceHistoryCapacity > 0
    ? config.resourceHistoryCapacity
    : Math.max(DEFAULT_RESOURCE_HISTORY_CAPACITY, EARLIER_RESOURCE_HISTORY_CAPACITY);
  if (rows.length > Math.max(1, history)) {
    throw bad("resourceBuffer", `${rows.length} rows, more than the history capacity ${history}`);
  }
  rows.forEach((row, i) => {
    checkExact(() => `resourceBuffer[${i}].time`, row.time);
    if (row.time < start || row.time > now || (i > 0 && row.time < rows[i - 1].time)) {
      throw bad(
        `resourceBuffer[${i}].time`,
        `${row.time} is out of order (start ${start}, clock ${now})`,
      );
    }
    const held = row.freeNodes + row.allocatedNodes;
    if (row.allocatedNodes > total || held < 0 || held > total) {
      throw bad(
        `resourceBuffer[${i}]`,
        `${row.allocatedNodes} allocated and ${row.freeNodes} free do not fit ${total} nodes`,
      );
    }
  });
  const last = rows[rows.length - 1];
  if (last !== undefined && last.allocatedNodes !== data.allocatedNodes) {
    throw bad(
      `resourceBuffer[${rows.length - 1}].allocatedNodes`,
      `${last.allocatedNodes}, but ${data.allocatedNodes} nodes are allocated`,
    );
  }

  for (const e of data.liveEvents) if (e.time > latest) latest = e.time;
  if (latest + spans > MAX_EXACT) {
    throw bad(
      "store.records",
      `the jobs' times could reach ${
        latest + spans
      } s (from ${latest} s, ${spans} s of time limits and run times), beyond 2^53 - 1 s`,
    );
  }

  checkStatistics(data, {
    running,
    notStarted,
    storeRejected,
    storeCancelled,
    storeEnded,
    total,
    start,
  });
  checkAllocations(data);
  return Object.freeze({ latestInput: latest, jobSpans: spans });
}

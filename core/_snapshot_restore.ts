// Loading a snapshot (see core/snapshot.ts for the layout): the state a
// snapshot's data describes, with the policies looked up by name and the
// picker's state rebuilt through its hooks.

import { Vec } from "./_vector.ts";
import type { Admission } from "./admission.ts";
import { resolveConfig } from "./config.ts";
import { EvtsimError } from "./errors.ts";
import { emptyLiveEvents } from "./live.ts";
import type { Picker } from "./picker.ts";
import { lookupAdmission, lookupPicker, type PolicyRegistry } from "./policies.ts";
import { type QueueState, queueTable } from "./queues.ts";
import { type RngState, seedRng } from "./rng.ts";
import { SIMULATE } from "./_run_mode.ts";
import { emptyRunningSet, runningJob } from "./running.ts";
import {
  emptyArrivals,
  emptyEvents,
  emptyPendCodes,
  type ResourceModelState,
  type SimState,
} from "./state.ts";
import type { ModelNode, ResourceModel } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";
import { queueDefOf } from "./_snapshot_queues.ts";
import { liveEventOfData } from "./_live_stored.ts";
import { checkSnapshotState } from "./_state_check.ts";
import { eventData, type JobRecordData, SNAPSHOT_VERSION, type SnapshotData } from "./snapshot.ts";

function bad(detail: string): EvtsimError {
  return new EvtsimError("input", `snapshot: ${detail}`);
}

function jobRecord(d: JobRecordData): JobRecord {
  const rec: JobRecord = {
    id: d.id,
    submitTime: d.submitTime,
    numNodes: d.numNodes,
    timeLimit: d.timeLimit,
    runTime: d.runTime,
    queue: d.queue,
    priority: d.priority,
    user: d.user,
    account: d.account,
    beginTime: d.beginTime,
    endTime: d.endTime,
    rejected: d.rejected,
    hidden: d.hidden,
    ...(d.unsubmitted === true ? { unsubmitted: true } : {}),
    ...(d.outcome === undefined ? {} : { outcome: d.outcome }),
    ...(d.exitStatus === undefined ? {} : { exitStatus: d.exitStatus }),
    ...(d.requeues === undefined ? {} : { requeues: d.requeues }),
    ...(d.firstSubmitTime === undefined ? {} : { firstSubmitTime: d.firstSubmitTime }),
    ...(d.preemptions === undefined ? {} : { preemptions: d.preemptions }),
    ...(d.power === undefined ? {} : { power: d.power }),
    ...(d.suspensions === undefined ? {} : {
      suspensions: d.suspensions,
      firstBeginTime: d.firstBeginTime,
      fullTimeLimit: d.fullTimeLimit,
      ...(d.suspendedAt === undefined ? {} : { suspendedAt: d.suspendedAt }),
      suspendedSeconds: d.suspendedSeconds,
    }),
    ...(d.graceStop === undefined ? {} : { graceStop: d.graceStop }),
    ...(d.demand === undefined ? {} : {
      demand: Object.freeze({ ...d.demand, perReplica: Object.freeze({ ...d.demand.perReplica }) }),
    }),
  };
  return Object.freeze(rec);
}

const isWaiting = (r: JobRecord) =>
  !r.rejected && !r.hidden && r.unsubmitted !== true && r.beginTime < 0 && r.endTime < 0;
const isRunning = (r: JobRecord) => !r.rejected && r.beginTime >= 0 && r.endTime < 0;

/**
 * The state a snapshot describes, with the picker and admission policy
 * looked up by name in `registry` and the picker's state rebuilt through its
 * hooks. Throws an `EvtsimError` for an unknown policy name or parts that do
 * not fit together (a store with gaps, an arrival that is not in the store,
 * allocated nodes that do not match the running jobs).
 */
export function restoreSnapshot(data: SnapshotData, registry: PolicyRegistry): SimState {
  if (data.version !== SNAPSHOT_VERSION) {
    throw bad(
      `version ${data.version} is not the version this program reads (${SNAPSHOT_VERSION})`,
    );
  }
  const { resourceNodes, ...stored } = data.config;
  const config = resolveConfig({ ...stored, queues: stored.queues.map(queueDefOf) });
  const picker: Picker = lookupPicker(registry, config.picker);
  const admission: Admission = lookupAdmission(registry, config.backfillPolicy);

  const { firstId } = data.store;
  const records = data.store.records.map(jobRecord);
  records.forEach((r, i) => {
    if (r.id !== firstId + i) {
      throw bad(`store.records[${i}].id: ${r.id}, expected ${firstId + i}`);
    }
  });
  if (firstId + records.length !== data.nextJobId) {
    throw bad(
      `nextJobId: the store holds jobs ${firstId}..${
        firstId + records.length - 1
      } but the next job id is ${data.nextJobId}`,
    );
  }
  const recordOf = (id: number, what: string): JobRecord => {
    const r = Number.isInteger(id) ? records[id - firstId] : undefined;
    if (r === undefined) throw bad(`${what} names job ${id}, which is not in the store`);
    return r;
  };

  const arrivalIds = new Set<number>();
  const arrivals: JobRecord[] = [];
  for (const [i, id] of data.arrivals.entries()) {
    const r = recordOf(id, `arrivals[${i}]`);
    if (!isWaiting(r)) {
      throw bad(`arrivals[${i}]: job ${id} is not a submitted job that waits to start`);
    }
    arrivalIds.add(id);
    arrivals.push(r);
  }
  arrivals.sort((a, b) => a.submitTime - b.submitTime || a.id - b.id);

  const table = queueTable(data.queues.map(queueDefOf));
  const running = records.filter(isRunning);
  let allocated = 0;
  const runningPerQueue = new Map<string, number>();
  for (const r of running) {
    allocated += r.numNodes;
    if (r.queue !== undefined) {
      runningPerQueue.set(r.queue, (runningPerQueue.get(r.queue) ?? 0) + 1);
    }
  }
  if (allocated !== data.allocatedNodes) {
    throw bad(
      `allocatedNodes: ${data.allocatedNodes} nodes are allocated but the running jobs hold ${allocated}`,
    );
  }
  const waiting = records.filter((r) => isWaiting(r) && !arrivalIds.has(r.id));
  if (table.list.length > 0) {
    for (const r of [...running, ...waiting, ...arrivals]) {
      if (r.queue === undefined || !table.byName.has(r.queue)) {
        throw bad(
          `store.records[${
            r.id - firstId
          }].queue: job ${r.id} is in queue '${r.queue}', which is not defined`,
        );
      }
    }
  }
  // Every invariant a state of `step` has (core/_state_check.ts).
  const timeBound = checkSnapshotState(data, config);
  for (const q of table.list) if (q.def.picker !== undefined) lookupPicker(registry, q.def.picker);
  for (const e of data.liveEvents) {
    if (e.kind === "updateQueue" && e.queue.picker !== undefined) {
      lookupPicker(registry, e.queue.picker);
    }
  }
  const queues = table.list.length === 0 ? table : Object.freeze({
    list: Object.freeze(
      table.list.map((q): QueueState =>
        Object.freeze({ def: q.def, running: runningPerQueue.get(q.def.name) ?? 0 })
      ),
    ),
    byName: table.byName,
  });

  // The picker's state, rebuilt through its hooks (never stored).
  let pickerState = picker.init({
    queues: config.queues,
    searchByLimit: admission.searchesByLimit === true,
    pickerNamed: (name) => lookupPicker(registry, name),
    totalNodes: config.totalNodes,
    ...(resourceNodes !== undefined ? { nodes: resourceNodes } : {}),
    settings: config.pickerSettings?.[picker.name],
    settingsOf: (name) => config.pickerSettings?.[name],
  });
  for (const q of queues.list) pickerState = picker.onQueueUpdate(pickerState, q.def);
  if (picker.restoreMemory !== undefined && data.pickerMemory !== undefined) {
    pickerState = picker.restoreMemory(pickerState, data.pickerMemory);
  }
  waiting.sort((a, b) => a.submitTime - b.submitTime || a.id - b.id);
  for (const r of waiting) pickerState = picker.onJobPush(pickerState, r);

  for (const e of data.liveEvents) {
    if (e.seq >= data.liveSeq) {
      throw bad(`liveSeq: live event seq ${e.seq} is not below ${data.liveSeq}`);
    }
  }
  const resources = resourceNodes === undefined
    ? undefined
    : modelState(registry, resourceNodes, data, recordOf);
  const buffer = Vec.of(data.resourceBuffer.map((row) => Object.freeze({ ...row })));
  const s = data.stats;
  return Object.freeze({
    config,
    picker,
    pickerState,
    admission,
    // Not stored in snapshots: a policy that keeps state starts afresh.
    admissionMemory: admission.init?.(),
    registry,
    time: data.time,
    rng: data.rng === null ? seedRng(config.seed) : Object.freeze({
      words: Uint32Array.from(data.rng.words),
      index: data.rng.index,
    }) as RngState,
    nextJobId: data.nextJobId,
    store: Object.freeze({
      firstId,
      records: Vec.of(records),
      capacity: data.store.capacity,
      completedSinceFlush: data.store.completedSinceFlush,
    }),
    arrivals: emptyArrivals().addAll(arrivals),
    queues,
    liveEvents: emptyLiveEvents().addAll(
      data.liveEvents.map((d) => liveEventOfData(d)).sort((a, b) =>
        a.time - b.time || a.seq - b.seq
      ),
    ),
    liveSeq: data.liveSeq,
    round: data.round,
    pendCodes: emptyPendCodes().addAll(data.pendCodes.map(([id, code]) => ({ id, code }))),
    running: emptyRunningSet().addAll(
      running
        .map((r) => Object.freeze(runningJob(r.id, r.numNodes, r.timeLimit, r.beginTime)))
        .sort((a, b) => a.projectedEnd - b.projectedEnd || a.id - b.id),
    ),
    events: emptyEvents().addAll(
      data.events.map(eventData).sort((a, b) => a.time - b.time || a.kind - b.kind || a.id - b.id),
    ),
    allocatedNodes: data.allocatedNodes,
    capacity: data.capacity,
    capacityIndex: data.capacityIndex,
    sampled: data.sampled,
    resourceBuffer: buffer,
    resourceBufferLength: data.resourceBuffer.length,
    stats: Object.freeze({
      ...s,
      firstSubmit: s.firstSubmit ?? Infinity,
      lastEnd: s.lastEnd ?? -Infinity,
    }),
    replay: false,
    runMode: SIMULATE,
    finished: data.finished,
    overallocationReported: data.overallocationReported,
    timeBound,
    ...(data.graces === undefined ? {} : {
      graces: Object.freeze(data.graces.map((c) =>
        Object.freeze({
          preemptor: c.preemptor,
          victims: Object.freeze([...c.victims]),
          modes: Object.freeze([...c.modes]),
        })
      )),
    }),
    ...(resources === undefined ? {} : { resources }),
  });
}

// The resource model rebuilt from its stored nodes, with the running jobs'
// allocations given back (checked against the nodes by checkAllocations).
function modelState(
  registry: PolicyRegistry,
  nodes: readonly ModelNode[],
  data: SnapshotData,
  recordOf: (id: number, what: string) => JobRecord,
): ResourceModelState {
  if (registry.resourceModel === undefined) {
    throw bad("config.resourceNodes: the policy registry builds no resource model");
  }
  let model: ResourceModel;
  try {
    model = registry.resourceModel(nodes);
  } catch (e) {
    if (e instanceof EvtsimError) throw bad(`config.resourceNodes: ${e.message}`);
    throw e;
  }
  let state = model.beginEdit(model.initial);
  for (const [k, [id, shares]] of (data.allocations ?? []).entries()) {
    const allocation = shares.map(([nodeName, replicas]) => ({ nodeName, replicas }));
    try {
      state = model.allocate(state, recordOf(id, `allocations[${k}]`), { domain: "", allocation });
    } catch (e) {
      if (e instanceof EvtsimError) throw bad(`allocations[${k}]: ${e.message}`);
      throw e;
    }
  }
  // Offline after the allocations: jobs drain on nodes that went offline.
  if (data.offline !== undefined && data.offline.length > 0) {
    if (model.setOnline === undefined) throw bad("offline: the model takes no node offline");
    state = model.setOnline(state, data.offline, false);
  }
  return Object.freeze({ model, state: model.endEdit(state) });
}

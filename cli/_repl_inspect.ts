// The REPL's `info` views of a state (docs/recording.md, "Interactive"): one job, the queues,
// every waiting job with its pend reason, the nodes, a summary. Read-only:
// each one reads the state at the current position through the core's
// queries and changes nothing.

import { headReservation, statistics, waitingReasons } from "../core/queries.ts";
import { queueBlock, type QueueState } from "../core/queues.ts";
import type { SimState } from "../core/state.ts";
import type { JobRecord } from "../core/types.ts";
import { countedResources, isBookkeepingResource } from "../core/_metrics_resources.ts";
import { NODE_RESOURCE, PARTITION_RESOURCE, WHOLE_NODE } from "../core/machine.ts";
import { compressHostlist } from "../io/hostlist.ts";
import { ReplError } from "./_repl_types.ts";
import { machineNodesLine } from "./_repl_node_counts.ts";
import { machineRoom } from "../core/_machine_room.ts";

/** How many waiting jobs `info queue` lists before "… and N more". */
const LISTED = 20;

function recordOf(state: SimState, id: number): JobRecord | undefined {
  return id >= state.store.firstId ? state.store.records.get(id - state.store.firstId) : undefined;
}

/**
 * What a job asks for: `N nodes` (whole nodes, the node count), or on a
 * machine its demand (a demand job holds no share of the node count: its
 * numNodes is 0): `2 replicas × cores=8 gpus=2 memory=32768 in partition
 * gpu, in one rack`, or `4 whole nodes in partition cpu`.
 */
export function demandText(r: JobRecord): string {
  const d = r.demand;
  if (d === undefined) return `${r.numNodes} nodes`;
  const per = d.perReplica;
  const units = Object.entries(per).filter(([k, v]) => v > 0 && !isBookkeepingResource(k))
    .map(([k, v]) => `${k}=${v}`).join(" ");
  const what = per[NODE_RESOURCE] === WHOLE_NODE
    ? `${d.replicas} whole node${d.replicas === 1 ? "" : "s"}`
    : `${d.replicas} replica${d.replicas === 1 ? "" : "s"}${units === "" ? "" : ` × ${units}`}`;
  const partitions = Object.keys(per).filter((k) => k.startsWith(PARTITION_RESOURCE) && per[k] > 0)
    .map((k) => k.slice(PARTITION_RESOURCE.length));
  const partition = partitions.length === 0 ? "" : ` in partition ${partitions.join(", ")}`;
  const domain = d.topologyKey === undefined ? "" : `, in one ${d.topologyKey}`;
  return what + partition + domain;
}

function jobFacts(r: JobRecord): string {
  const queue = r.queue === undefined ? "" : `queue ${r.queue}, `;
  return `  ${queue}priority ${r.priority}, ${
    demandText(r)
  }, limit ${r.timeLimit} s, submitted at ${r.submitTime}`;
}

/** `info job ID`: state, queue, priority, times; a waiting job's pend reason. */
// A job a node failure requeued: how often, and when it was first submitted.
// A job a preemption suspended: how often, its first start, what remains.
function requeueLines(r: JobRecord): string[] {
  const out: string[] = [];
  if (r.requeues !== undefined) {
    out.push(
      `  requeued ${r.requeues} time(s) by node failures (first submitted at ${r.firstSubmitTime}; back in the queue at ${r.submitTime})`,
    );
  }
  if (r.suspensions !== undefined) {
    out.push(
      `  suspended ${r.suspensions} time(s) by preemption (first began at ${r.firstBeginTime}; ${
        r.suspendedAt === undefined ? "" : `suspended since ${r.suspendedAt}; `
      }${r.runTime} s of run time and ${r.timeLimit} s of its ${r.fullTimeLimit} s limit ${
        r.suspendedAt === undefined ? "remained at its last start" : "remain"
      })`,
    );
  }
  return out;
}

export function jobInfo(state: SimState, arg: string | undefined): string[] {
  if (arg === undefined || !/^\d+$/.test(arg)) {
    throw new ReplError(`info job needs a job id (a whole number), got '${arg ?? ""}'`);
  }
  const id = Number(arg);
  if (id >= state.nextJobId) {
    throw new ReplError(
      state.nextJobId === 0
        ? `no job ${id}: no job has been created yet`
        : `no job ${id}: the jobs so far are 0..${state.nextJobId - 1}`,
    );
  }
  const r = recordOf(state, id);
  if (r === undefined) {
    return [`job ${id}: finished and written to the schedule (its record has left the job store)`];
  }
  const now = state.time;
  if (r.rejected) {
    return [
      `job ${id}: rejected: needs ${r.numNodes} nodes, the machine has ${state.config.totalNodes}`,
    ];
  }
  if (r.unsubmitted === true) return [`job ${id}: created, not submitted`, jobFacts(r)];
  if (r.endTime >= 0) {
    const how = r.outcome ?? "completed";
    const ran = r.beginTime >= 0 && how !== "cancelled"
      ? `, began at ${r.beginTime}, waited ${r.beginTime - r.submitTime} s`
      : "";
    return [`job ${id}: ${how} at ${r.endTime}`, jobFacts(r) + ran, ...requeueLines(r)];
  }
  if (r.beginTime >= 0) {
    return [
      `job ${id}: running since ${r.beginTime} on ${demandText(r)} (its limit ends at ${
        r.beginTime + r.timeLimit
      })`,
      `${jobFacts(r)}, waited ${r.beginTime - r.submitTime} s`,
      ...requeueLines(r),
    ];
  }
  if (r.submitTime > now) {
    return [
      `job ${id}: submitted for ${r.submitTime}, not arrived yet (the clock is at ${now})`,
      jobFacts(r),
    ];
  }
  const reason = waitingReasons(state).get(id);
  return [
    `job ${id}: waiting since ${r.submitTime} (${now - r.submitTime} s)`,
    jobFacts(r),
    ...requeueLines(r),
    reason === undefined
      ? "  pend reason: none (a scheduling round now would start it)"
      : `  pend reason: ${reason.code}: ${reason.message}`,
  ];
}

function waitingBy(state: SimState): Map<string | undefined, JobRecord[]> {
  const by = new Map<string | undefined, JobRecord[]>();
  for (const job of state.picker.pending(state.pickerState)) {
    const list = by.get(job.queue);
    if (list === undefined) by.set(job.queue, [job]);
    else list.push(job);
  }
  return by;
}

function listJobs(jobs: readonly JobRecord[]): string {
  if (jobs.length === 0) return "";
  const shown = jobs.slice(0, LISTED).map((j) => `${j.id}(p${j.priority})`).join(" ");
  return `: ${shown}${jobs.length > LISTED ? ` … and ${jobs.length - LISTED} more` : ""}`;
}

function queueLine(q: QueueState, waiting: readonly JobRecord[]): string {
  const d = q.def;
  const block = queueBlock(q);
  const state = !d.open
    ? "closed"
    : block === "queue_limit"
    ? "open, at its running limit"
    : "open";
  const limit = d.maxRunning === undefined ? "no running limit" : `maxRunning ${d.maxRunning}`;
  const extra = [
    d.picker === undefined ? "" : `, picker ${d.picker}`,
    d.project === undefined ? "" : `, project ${d.project}`,
  ].join("");
  return `queue ${d.name}: priority ${d.priority}, ${state}, ${limit}${extra}; ${q.running} running, ${waiting.length} waiting${
    listJobs(waiting)
  }`;
}

/** `info queue NAME|all`: priority, state, limits, running count, waiting jobs in the picker's order. */
export function queueInfo(state: SimState, arg: string | undefined): string[] {
  if (arg === undefined) throw new ReplError("info queue needs a queue name or 'all'");
  const list = state.queues.list;
  const by = waitingBy(state);
  if (list.length === 0) {
    if (arg !== "all") throw new ReplError(`no queue '${arg}': no queues are configured`);
    const waiting = by.get(undefined) ?? [];
    return [
      `no queues configured: one queue; ${state.running.size} running, ${waiting.length} waiting${
        listJobs(waiting)
      }`,
    ];
  }
  if (arg === "all") return list.map((q) => queueLine(q, by.get(q.def.name) ?? []));
  const i = state.queues.byName.get(arg);
  if (i === undefined) {
    throw new ReplError(`no queue '${arg}' (queues: ${list.map((q) => q.def.name).join(", ")})`);
  }
  return [queueLine(list[i], by.get(arg) ?? [])];
}

/** `info pending`: every waiting job, in the picker's order, with its pend reason. */
export function pendingInfo(state: SimState): string[] {
  const waiting = [...state.picker.pending(state.pickerState)];
  if (waiting.length === 0) return [`no job is waiting at t=${state.time}`];
  const reasons = waitingReasons(state);
  return [
    `${waiting.length} waiting at t=${state.time}, in the picker's order:`,
    ...waiting.map((j) => {
      const r = reasons.get(j.id);
      const queue = j.queue === undefined ? "" : `${j.queue}, `;
      return `  job ${j.id} (${queue}${demandText(j)}, since ${j.submitTime}): ${
        r === undefined ? "none (a round now would start it)" : `${r.code}: ${r.message}`
      }`;
    }),
  ];
}

/** `info resource`: nodes, running jobs, the head's reservation and the next releases. */
export function resourceInfo(state: SimState): string[] {
  const c = state.config;
  const free = Math.max(0, state.capacity - state.allocatedNodes);
  const lines = [
    machineNodesLine(state) ??
      `nodes: ${c.totalNodes} total, ${state.capacity} usable, ${state.allocatedNodes} in use, ${free} free; ${state.running.size} jobs running`,
  ];
  // On a machine the head is EASY's (held jobs passed over) and its shadow
  // time EASY's over every resource; when every waiting job is held, why.
  const head = headReservation(state);
  if (head !== undefined) {
    lines.push(
      `head: job ${head.job.id} needs ${demandText(head.job)}; ${
        head.reason === undefined
          ? `reservation (shadow time) at ${head.shadowTime}`
          : `held, no reservation: ${head.reason.code}: ${head.reason.message}`
      }`,
    );
  }
  lines.push(...modelResourceLines(state));
  const releases: string[] = [];
  for (const r of state.running.values()) {
    if (releases.length === 5) break;
    // A demand job (a machine's) holds replicas, not a share of the node count.
    const replicas = recordOf(state, r.id)?.demand?.replicas;
    const held = replicas === undefined ? `${r.numNodes} nodes` : `${replicas} replicas`;
    releases.push(`${r.projectedEnd}: job ${r.id} (${held})`);
  }
  if (releases.length > 0) lines.push(`next releases by limit: ${releases.join(", ")}`);
  lines.push(...onlineLines(state));
  const schedule = c.capacitySchedule;
  if (state.capacityIndex < schedule.length) {
    const next = schedule[state.capacityIndex];
    const names = named(next);
    lines.push(
      `next capacity change: ${next.capacity} nodes at ${next.time}${
        names === "" ? "" : ` (${names})`
      }`,
    );
  }
  for (const l of state.liveEvents.values()) {
    if (l.kind === "nodes") lines.push(`node change due at ${l.time}: ${named(l)}`);
  }
  return lines;
}

// "down gpu[001-004], up cpu003": the nodes a change names, if any.
function named(
  c: {
    readonly down?: readonly string[];
    readonly up?: readonly string[];
    readonly failed?: readonly string[];
  },
): string {
  const parts = [["down", c.down], ["failed", c.failed], ["up", c.up]].flatMap(([f, list]) =>
    list === undefined || list.length === 0 ? [] : [`${f} ${compressHostlist([...list])}`]
  );
  return parts.join(", ");
}

// On a machine (a resource model that takes nodes offline): the nodes online
// and offline, and the offline ones that still run jobs (draining).
function onlineLines(state: SimState): string[] {
  const model = state.resources?.model;
  if (model?.offline === undefined || model.nodes === undefined) return [];
  const modelState = state.resources!.state;
  const offline = model.offline(modelState);
  const down = new Set(offline);
  const online = model.nodes.filter((n) => !down.has(n.name)).map((n) => n.name);
  const lines = [
    `online: ${online.length} nodes${online.length === 0 ? "" : ` ${compressHostlist(online)}`}`,
    `offline: ${offline.length} nodes${
      offline.length === 0 ? "" : ` ${compressHostlist([...offline])}`
    }`,
  ];
  if (offline.length > 0 && model.allocationOf !== undefined) {
    const draining = new Map<string, number[]>();
    for (const r of state.running.values()) {
      for (const a of model.allocationOf(modelState, r.id) ?? []) {
        if (!down.has(a.nodeName)) continue;
        const jobs = draining.get(a.nodeName) ?? [];
        if (!jobs.includes(r.id)) jobs.push(r.id);
        draining.set(a.nodeName, jobs);
      }
    }
    if (draining.size > 0) {
      lines.push(
        `draining (offline, jobs still running): ${
          model.nodes.filter((n) => draining.has(n.name))
            .map((n) => `${n.name} (job ${draining.get(n.name)!.join(", ")})`).join(", ")
        }`,
      );
    }
  }
  return lines;
}

// On a resource model that names its nodes (a --machine run): each resource's
// free and total units over the nodes, as the per-resource columns count them.
function modelResourceLines(state: SimState): string[] {
  const model = state.resources?.model;
  if (model?.nodes === undefined || model.freeOn === undefined) return [];
  const names = countedResources(model.nodes);
  if (names.length === 0) return [];
  const free = new Float64Array(names.length), total = new Float64Array(names.length);
  for (const n of model.nodes) {
    const f = model.freeOn(state.resources!.state, n.name) ?? {};
    // A whole-node job holds every resource of its nodes (it takes all of the
    // `node` unit), as the per-resource columns and utilization count it.
    const whole = (n.capacity[NODE_RESOURCE] ?? 0) > 0 && (f[NODE_RESOURCE] ?? 0) === 0;
    names.forEach((r, k) => {
      free[k] += whole ? 0 : f[r] ?? 0;
      total[k] += n.capacity[r] ?? 0;
    });
  }
  return [`resources: ${names.map((r, k) => `${r} ${free[k]} free of ${total[k]}`).join(", ")}`];
}

/**
 * `info summary`: jobs by state, queues, nodes. On a machine the nodes are
 * the model's (in use, with free room, idle, offline) and a third line gives
 * the units of each resource free on the nodes online (the node count's "in
 * use" counts whole nodes only: a job asking for cores or GPUs holds none).
 */
export function summaryInfo(state: SimState): string[] {
  const s = statistics(state);
  const waiting = state.replay ? 0 : state.picker.size(state.pickerState);
  const finished = s.jobsCompleted + s.jobsCancelled + s.jobsFailed + s.jobsKilled;
  const queues = state.queues.list.length;
  const wait = s.jobsStarted > 0
    ? `; average wait so far ${Math.round(s.averageWait * 10) / 10} s`
    : "";
  const room = machineRoom(state);
  const nodes = room === undefined
    ? `${state.config.totalNodes} nodes, ${state.allocatedNodes} in use`
    : `${room.nodes} nodes, ${room.busy} in use, ${
      room.idle + room.mixed
    } with free room (${room.idle} idle)${room.offline === 0 ? "" : `, ${room.offline} offline`}`;
  const lines = [
    `t=${state.time}: ${state.nextJobId} jobs (${waiting} waiting, ${state.running.size} running, ${state.arrivals.size} not arrived yet, ${finished} finished, ${s.jobsRejected} rejected)${wait}`,
    `${
      queues === 0 ? "no queues configured" : `${queues} queues`
    }; ${nodes}; ${state.round} scheduling rounds`,
  ];
  if (room !== undefined && Object.keys(room.free).length > 0) {
    lines.push(
      `free on the nodes online: ${
        Object.keys(room.free).map((r) => `${r} ${room.free[r]} of ${room.online[r]}`).join(", ")
      }`,
    );
  }
  return lines;
}

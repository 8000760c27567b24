// The resource-model part of the snapshot state check (core/_state_check.ts):
// a snapshot of a machine run stores the model's nodes and what each running
// job holds, and loading allocates those holdings again. A state `step`
// produced has every running job allocated (its demand's replicas, on nodes
// of the model), nothing allocated to a job that is not running, and no
// resource of any node oversubscribed; a snapshot that says otherwise is
// refused here, naming the field, before anything is built from it.

import type { SnapshotData } from "./snapshot.ts";
import { bad } from "./_state_check_parts.ts";

/** Throws an `EvtsimError` naming the field unless the snapshot's allocations fit its model. */
export function checkAllocations(data: SnapshotData): void {
  const nodes = data.config.resourceNodes;
  const { firstId, records } = data.store;
  if (nodes === undefined) {
    if (data.offline !== undefined) {
      throw bad("offline", "offline nodes without a resource model (config.resourceNodes)");
    }
    if (data.allocations !== undefined) {
      throw bad("allocations", "allocations without a resource model (config.resourceNodes)");
    }
    const i = records.findIndex((r) => r.demand !== undefined);
    if (i >= 0) {
      throw bad(
        `store.records[${i}].demand`,
        "a demand without a resource model (config.resourceNodes)",
      );
    }
    return;
  }
  const index = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (index.has(n.name)) {
      throw bad(`config.resourceNodes[${i}].name`, `${n.name} is listed twice`);
    }
    index.set(n.name, i);
  });
  for (const [k, name] of (data.offline ?? []).entries()) {
    if (!index.has(name)) throw bad(`offline[${k}]`, `${name} is not a node of the model`);
  }
  const used: Record<string, number>[] = nodes.map(() => ({}));
  const held = new Set<number>();
  for (const [k, [id, shares]] of (data.allocations ?? []).entries()) {
    const at = `allocations[${k}]`;
    const r = Number.isInteger(id) ? records[id - firstId] : undefined;
    if (r === undefined || r.rejected || r.beginTime < 0 || r.endTime >= 0) {
      throw bad(at, `job ${id} is not a running job of the store`);
    }
    if (held.has(id)) throw bad(at, `job ${id} is allocated twice`);
    held.add(id);
    const d = r.demand;
    if (d === undefined) throw bad(at, `job ${id} has no demand`);
    let replicas = 0;
    for (const [j, [name, n]] of shares.entries()) {
      const i = index.get(name);
      if (i === undefined) throw bad(`${at}[${j}]`, `${name} is not a node of the model`);
      if (!Number.isSafeInteger(n) || n <= 0) {
        throw bad(`${at}[${j}]`, `${n} replicas: expected a positive integer`);
      }
      replicas += n;
      for (const [res, amount] of Object.entries(d.perReplica)) {
        if (!(amount > 0)) continue;
        const total = (used[i][res] ?? 0) + amount * n;
        const capacity = nodes[i].capacity[res] ?? 0;
        if (total > capacity) {
          throw bad(
            `${at}[${j}]`,
            `node ${name} would hold ${total} ${res} of its ${capacity} (oversubscribed)`,
          );
        }
        used[i][res] = total;
      }
    }
    if (replicas !== d.replicas) {
      throw bad(at, `job ${id} holds ${replicas} replicas, its demand is ${d.replicas}`);
    }
  }
  records.forEach((r, i) => {
    if (r.rejected || r.beginTime < 0 || r.endTime >= 0) return;
    if (r.demand === undefined) {
      throw bad(
        `store.records[${i}].demand`,
        `running job ${r.id} has no demand on the resource model`,
      );
    }
    if (!held.has(r.id)) {
      throw bad(
        "allocations",
        `running job ${r.id} holds nothing (every running job is allocated)`,
      );
    }
  });
}

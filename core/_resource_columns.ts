// `--resource_columns per_resource`: the resource timeline with one
// `<resource>_free,<resource>_used` pair per resource type after DR_EVT's
// three columns. A whole-node machine has one type, nodes (the pair is the
// row's own free and allocated nodes). A resource model that names its
// nodes has its own types (cpu, gpu, memory …); what each job holds comes
// from its DISPATCH row (replicas per node × units per replica) and when
// from its start and its job row, so the rows wait until the end of the run
// and each row's pair is the machine after every event at the row's time.

import type { DecisionRow } from "./decisions.ts";
import type { ModelNode } from "./resource_model.ts";
import { countedResources, heldOn } from "./_metrics_resources.ts";
import type { JobRow, ResourceRow } from "./types.ts";

/** The resource timeline's layouts: DR_EVT's columns, or a pair per resource added. */
export type ResourceColumns = "drevt" | "per_resource";

/** A CSV header field, quoted when it holds a comma, quote or line break. */
function field(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The per-resource pairs of a run on a resource model.
 *
 * @example
 * ```ts
 * import { PerResourceColumns } from "./_resource_columns.ts";
 * const c = new PerResourceColumns([{ name: "a", capacity: { cpu: 8, gpu: 2 } }]);
 * c.decisions([{
 *   type: "DISPATCH", time: 5, round: 1, jobId: 0, numNodes: 1, backfill: false,
 *   allocation: [{ nodeName: "a", replicas: 2 }], perReplica: { cpu: 3, gpu: 1 },
 * }]);
 * c.job({ jobId: 0, submitTime: 0, beginTime: 5, endTime: 9, numNodes: 0, timeLimit: 4, queue: undefined });
 * const rows = [0, 5, 9].map((time) => ({ time, freeNodes: 1, allocatedNodes: 0 }));
 * const pairs: string[] = [];
 * c.finish(rows, (_r, extra) => pairs.push(extra));
 * console.assert(c.header() === "cpu_free,cpu_used,gpu_free,gpu_used");
 * console.assert(pairs.join(" ") === "8,0,2,0 2,6,0,2 8,0,2,0");
 * ```
 */
export class PerResourceColumns {
  readonly #resources: readonly string[];
  readonly #capacity: Float64Array;
  /** Units each started job holds, by resource, and when it started. */
  readonly #held = new Map<number, { begin: number; units: Float64Array }>();
  /** Ends of the jobs that have a row. */
  readonly #ends = new Map<number, number>();
  /** Node name → its capacity (a whole-node job holds all of it). */
  readonly #capacityOf = new Map<string, Readonly<Record<string, number>>>();

  constructor(nodes: readonly ModelNode[]) {
    this.#resources = countedResources(nodes);
    this.#capacity = new Float64Array(this.#resources.length);
    for (const n of nodes) {
      this.#capacityOf.set(n.name, n.capacity);
      this.#resources.forEach((r, k) => this.#capacity[k] += n.capacity[r] ?? 0);
    }
  }

  /** The pairs' header fields (without the leading comma). */
  header(): string {
    return this.#resources.map((r) => `${field(r + "_free")},${field(r + "_used")}`).join(",");
  }

  /** Takes the units of every DISPATCH row that carries an allocation. */
  decisions(rows: readonly DecisionRow[]): void {
    for (const d of rows) {
      if (d.type !== "DISPATCH" || d.allocation === undefined) continue;
      const units = new Float64Array(this.#resources.length);
      for (const share of d.allocation) {
        const capacity = this.#capacityOf.get(share.nodeName);
        this.#resources.forEach((r, k) =>
          units[k] += heldOn(capacity, d.perReplica, share.replicas, r)
        );
      }
      this.#held.set(d.jobId, { begin: d.time, units });
    }
  }

  /** Takes a job row's end (a job without one is still running at the end). */
  job(r: JobRow): void {
    if (this.#held.has(r.jobId)) this.#ends.set(r.jobId, r.endTime);
  }

  /** Hands every row back with its pairs, in order (rows are in time order). */
  finish(rows: readonly ResourceRow[], write: (r: ResourceRow, pairs: string) => void): void {
    // +units at each start, −units at each end; applied up to each row's time.
    const deltas: { time: number; units: Float64Array; sign: number }[] = [];
    for (const [id, h] of this.#held) {
      const end = this.#ends.get(id) ?? Infinity;
      if (end <= h.begin) continue;
      deltas.push({ time: h.begin, units: h.units, sign: 1 });
      if (end !== Infinity) deltas.push({ time: end, units: h.units, sign: -1 });
    }
    deltas.sort((a, b) => a.time - b.time);
    const used = new Float64Array(this.#resources.length);
    let k = 0;
    for (const r of rows) {
      while (k < deltas.length && deltas[k].time <= r.time) {
        const d = deltas[k++];
        for (let i = 0; i < used.length; i++) used[i] += d.sign * d.units[i];
      }
      let pairs = "";
      for (let i = 0; i < used.length; i++) {
        pairs += `${i === 0 ? "" : ","}${this.#capacity[i] - used[i]},${used[i]}`;
      }
      write(r, pairs);
    }
  }
}

// `--trace_type pcon` (DR_EVT's experimental power-consumption records, its
// src/trace/trace_policy.hpp `Pcon_Trace_Policy`): each job carries
// avgpcon, minpcon and maxpcon; the run keeps three running sums, adding a
// job's values when it starts and subtracting them when it ends, and every
// resource row gets the sums after its event as three more columns,
// `,avgpcon,minpcon,maxpcon`, each printed as C's std::to_string prints a
// double ("%f": six decimals). The baseline row has 0.000000 three times.
//
// The core's resource rows say how many nodes are allocated after each
// event, not which job's event it was, so the timeline is matched up at the
// end of the run: an allocation that grows is the next start in DISPATCH
// order (the decision rows, in the order the starts happened; a replay's
// starts come from its recorded begin times, by id), one that shrinks is the
// end, at that row's time, of the lowest-numbered started job of that size
// ending then (the core's event queue ends jobs of one instant in id order).
// The sums are doubles updated in the rows' order, as DR_EVT's are, so the
// rounding of the printed values is DR_EVT's too.

import { EvtsimError } from "../core/errors.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { JobRow, ResourceRow } from "../core/types.ts";
import { PCON_COLUMNS, type PconJob } from "../io/trace_csv.ts";
import type { EnergyMetrics } from "../io/stats_json.ts";

/** The resource CSV's extra columns (with their leading comma). */
export const PCON_HEADER = "," + PCON_COLUMNS.join(",");

/**
 * A double as C's `std::to_string(double)` (printf "%f") prints it: six
 * decimals, correctly rounded from the double's exact value, ties to even,
 * and a minus sign on a negative value that rounds to zero ("-0.000000").
 *
 * @example
 * ```ts
 * import { cFixed6 } from "./_pcon.ts";
 * console.assert(cFixed6(1.5) === "1.500000" && cFixed6(0) === "0.000000");
 * console.assert(cFixed6(0.0078125) === "0.007812"); // an exact tie: to even (JS toFixed gives ...813)
 * console.assert(cFixed6(-1e-9) === "-0.000000" && cFixed6(-0) === "-0.000000");
 * console.assert(cFixed6(0.1 + 0.2) === "0.300000" && cFixed6(123456.0000005) === "123456.000001");
 * ```
 */
export function cFixed6(x: number): string {
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  // The double's exact value as mantissa * 2^exponent.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  const scaled = mantissa * 1_000_000n;
  let n: bigint;
  if (exponent >= 0) n = scaled << BigInt(exponent);
  else {
    const den = 1n << BigInt(-exponent);
    n = scaled / den;
    const twice = 2n * (scaled - n * den);
    if (twice > den || (twice === den && (n & 1n) === 1n)) n += 1n;
  }
  const digits = n.toString().padStart(7, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** The power timeline of one run. */
export class PconTimeline {
  /** avgpcon, minpcon, maxpcon of job i at 3i, 3i+1, 3i+2. */
  #values = new Float64Array(0);
  #jobs = 0;
  readonly #starts: { id: number; time: number; nodes: number }[] = [];
  readonly #ended: { id: number; time: number; nodes: number; begin: number }[] = [];
  #energy: EnergyMetrics | undefined;
  readonly #held: ResourceRow[] = [];

  /** `replay`: the run replays recorded begin and end times (no DISPATCH rows). */
  constructor(private readonly replay: boolean) {}

  /** Notes an input's jobs (ids continuing from the previous input's, as the jobs' ids do). */
  jobs(jobs: readonly (PconJob & { beginTime?: number; numNodes: number })[]): void {
    const need = 3 * (this.#jobs + jobs.length);
    if (need > this.#values.length) {
      const v = new Float64Array(Math.max(need, 2 * this.#values.length));
      v.set(this.#values);
      this.#values = v;
    }
    for (const j of jobs) {
      const p = j.pcon ?? [0, 0, 0];
      this.#values.set(p, 3 * this.#jobs);
      if (this.replay && j.beginTime !== undefined) {
        this.#starts.push({ id: this.#jobs, time: j.beginTime, nodes: j.numNodes });
      }
      this.#jobs++;
    }
  }

  /** Notes one step's rows (the resource rows are held until {@link lines}). */
  rows(
    decisions: readonly DecisionRow[],
    jobs: readonly JobRow[],
    resources: readonly ResourceRow[],
  ) {
    if (!this.replay) {
      for (const d of decisions) {
        if (d.type === "DISPATCH") {
          this.#starts.push({ id: d.jobId, time: d.time, nodes: d.numNodes });
        }
      }
    }
    for (const j of jobs) {
      this.#ended.push({ id: j.jobId, time: j.endTime, nodes: j.numNodes, begin: j.beginTime });
    }
    for (const r of resources) this.#held.push(r);
  }

  /** Each held resource row with the columns to append to its line. */
  lines(write: (row: ResourceRow, columns: string) => void): void {
    const starts = this.replay
      ? [...this.#starts].sort((a, b) => a.time - b.time || a.id - b.id)
      : this.#starts;
    const endsAt = new Map<number, { id: number; nodes: number }[]>();
    for (const e of this.#ended) {
      const list = endsAt.get(e.time);
      if (list === undefined) endsAt.set(e.time, [e]);
      else list.push(e);
    }
    for (const list of endsAt.values()) list.sort((a, b) => a.id - b.id);
    const started = new Set<number>();
    let next = 0;
    let allocated = 0;
    let avg = 0, min = 0, max = 0;
    const v = this.#values;
    // The energy: the avgpcon timeline's integral, each row's sum held until the next row.
    let total = 0;
    let lastTime = this.#held[0]?.time ?? 0;
    for (const r of this.#held) {
      total += avg * (r.time - lastTime);
      lastTime = r.time;
      const delta = r.allocatedNodes - allocated;
      const s = starts[next];
      if (delta > 0 || (delta === 0 && s?.nodes === 0 && s.time === r.time)) {
        if (s === undefined || s.nodes !== delta || s.time !== r.time) {
          throw mismatch(r, `${delta} nodes start but the next start is ${describe(s)}`);
        }
        next++;
        started.add(s.id);
        avg += v[3 * s.id];
        min += v[3 * s.id + 1];
        max += v[3 * s.id + 2];
      } else if (delta < 0) {
        const list = endsAt.get(r.time) ?? [];
        const k = list.findIndex((e) => e.nodes === -delta && started.has(e.id));
        if (k < 0) {
          throw mismatch(r, `${-delta} nodes end but no started job of that size ends then`);
        }
        const id = list[k].id;
        list.splice(k, 1);
        avg -= v[3 * id];
        min -= v[3 * id + 1];
        max -= v[3 * id + 2];
      }
      allocated = r.allocatedNodes;
      write(r, `,${cFixed6(avg)},${cFixed6(min)},${cFixed6(max)}`);
    }
    this.#held.length = 0;
    let sum = 0, most = -Infinity;
    for (const e of this.#ended) {
      const energy = v[3 * e.id] * (e.time - e.begin);
      sum += energy;
      if (energy > most) most = energy;
    }
    const n = this.#ended.length;
    this.#energy = {
      total,
      jobs: n,
      per_job_mean: n === 0 ? null : sum / n,
      per_job_max: n === 0 ? null : most,
    };
  }

  /** The run's energy (after {@link lines}). */
  energy(): EnergyMetrics | undefined {
    return this.#energy;
  }
}

function describe(s: { id: number; time: number; nodes: number } | undefined): string {
  return s === undefined ? "none" : `job ${s.id} (${s.nodes} nodes at ${s.time})`;
}

function mismatch(r: ResourceRow, why: string): EvtsimError {
  return new EvtsimError(
    "state",
    `--trace_type pcon: the resource row at ${r.time} (${r.allocatedNodes} nodes allocated): ${why}`,
  );
}

// `evtsim replay LOG --alt_events F` (or with another --picker, admission
// policy or --queues): a what-if as a command of its own. The log is
// re-simulated twice from the same snapshot, as recorded and as the what-if
// changes it, side by side; the statistics of both runs (core/statistics.ts,
// through the core's `statistics` query) are printed in two columns, with
// the first decision where the runs part (time, job, both decisions) instead
// of a diff of every decision.
//
// The two runs are stepped in turn, each as far as the other's decisions
// reach, so their decisions are compared as they come and only the ones not
// yet compared are held. Round numbers are left out of the comparison: a run
// that schedules one more round numbers every later round differently while
// deciding the same.
//
// On a machine (a resource model that names its nodes) each run's
// utilization is its node equivalents and each resource's utilization is a
// row of its own, from the same collector as simulate's stats JSON
// (ResourceUseCollector over the DISPATCH allocations and the job rows), so
// the recorded column is what simulate printed for the run.

import { Resimulation, type ResimulationOptions, sameDecision } from "../api/resimulation.ts";
import type { DecisionRow } from "../core/decisions.ts";
import { statistics } from "../core/queries.ts";
import type { Statistics } from "../core/statistics.ts";
import { dumpDecision } from "../io/replay_dump.ts";
import { type ResourceMetrics, ResourceUseCollector } from "../core/_metrics_resources.ts";

/** Where the two runs first decide differently (a side is missing when that run has no more decisions). */
export interface Divergence {
  readonly recorded?: DecisionRow;
  readonly whatIf?: DecisionRow;
}

/** The outcome of a what-if: both runs' statistics and their first divergence. */
export interface WhatIfResult {
  /** On a machine, `utilization` is the node equivalents (as simulate's). */
  readonly recorded: Statistics;
  readonly whatIf: Statistics;
  /** On a machine: each run's per-resource figures (as simulate's stats JSON `resources`). */
  readonly recordedResources?: ResourceMetrics;
  readonly whatIfResources?: ResourceMetrics;
  /** Undefined when every decision is the same. */
  readonly divergence: Divergence | undefined;
}

/** Decisions of one run not compared yet. */
class Pending {
  #rows: DecisionRow[] = [];
  #at = 0;
  done = false;

  get size(): number {
    return this.#rows.length - this.#at;
  }

  push(rows: readonly DecisionRow[]): void {
    for (const r of rows) this.#rows.push(r);
  }

  shift(): DecisionRow | undefined {
    const r = this.#rows[this.#at++];
    if (this.#at > 4096 && this.#at * 2 > this.#rows.length) {
      this.#rows = this.#rows.slice(this.#at);
      this.#at = 0;
    }
    return r;
  }

  clear(): void {
    this.#rows = [];
    this.#at = 0;
  }
}

/**
 * Runs `recorded` (the log's own events and policies) and `whatIf` to their
 * ends; `whatIf` is already constructed (its output, if any, is written as
 * it runs). Both start from the same snapshot.
 */
export function runWhatIf(recorded: ResimulationOptions, whatIf: Resimulation): WhatIfResult {
  const base = new Resimulation(recorded);
  const a = new Pending();
  const b = new Pending();
  const [useA, useB] = [machineUse(base), machineUse(whatIf)];
  let divergence: Divergence | undefined;
  const stepInto = (sim: Resimulation, into: Pending, use?: ResourceUseCollector) => {
    const r = sim.step();
    if (r === undefined) into.done = true;
    else {
      if (use !== undefined) {
        use.decisions(r.rows.decisions);
        for (const j of r.rows.jobs) use.add(j);
      }
      if (divergence === undefined) into.push(r.rows.decisions);
    }
  };
  while (!a.done || !b.done) {
    // The run behind (fewer decisions waiting) goes next.
    if (!a.done && (b.done || a.size <= b.size)) stepInto(base, a, useA);
    else stepInto(whatIf, b, useB);
    if (divergence !== undefined) continue;
    while (a.size > 0 && b.size > 0) {
      const x = a.shift()!;
      const y = b.shift()!;
      if (!sameDecision(x, y, true)) {
        divergence = { recorded: x, whatIf: y };
        break;
      }
    }
    if (divergence === undefined && (a.done && a.size === 0) !== (b.done && b.size === 0)) {
      // One run has no decision left where the other still has one.
      const x = a.shift();
      const y = b.shift();
      if (x !== undefined || y !== undefined) {
        divergence = {
          ...(x === undefined ? {} : { recorded: x }),
          ...(y === undefined ? {} : { whatIf: y }),
        };
      }
    }
    if (divergence !== undefined) {
      a.clear();
      b.clear();
    }
  }
  base.close();
  const [ra, rb] = [useA?.metrics(), useB?.metrics()];
  return {
    recorded: machineStatistics(statistics(base.state), ra),
    whatIf: machineStatistics(statistics(whatIf.state), rb),
    ...(ra === undefined ? {} : { recordedResources: ra }),
    ...(rb === undefined ? {} : { whatIfResources: rb }),
    divergence,
  };
}

// A collector of what the run's jobs hold, on a machine that names its nodes.
function machineUse(sim: Resimulation): ResourceUseCollector | undefined {
  const nodes = sim.state.resources?.model.nodes;
  return nodes === undefined ? undefined : new ResourceUseCollector(nodes);
}

// On a machine the node count is bookkeeping (a demand job holds no whole
// node): the run's utilization is its node equivalents, as simulate prints it.
function machineStatistics(s: Statistics, r: ResourceMetrics | undefined): Statistics {
  const u = r?.node_equivalents.utilization;
  return u === undefined || u === null ? s : { ...s, utilization: u };
}

const ROWS: readonly [string, (s: Statistics) => string][] = [
  ["jobs", (s) => `${s.totalJobs}`],
  ["jobs completed", (s) => `${s.jobsCompleted}`],
  ["average wait (s)", (s) => `${round(s.averageWait, 1)}`],
  ["maximum wait (s)", (s) => `${s.maxWait}`],
  ["average bounded slowdown", (s) => `${round(s.averageBoundedSlowdown, 3)}`],
  ["utilization", (s) => `${round(s.utilization, 6)}`],
  ["makespan (s)", (s) => `${s.makespan}`],
];

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The two runs' statistics side by side: a header and one line per figure. */
export function statisticsTable(r: WhatIfResult): string[] {
  const cells = ROWS.map(([name, f]) => [name, f(r.recorded), f(r.whatIf)]);
  // On a machine, each resource's utilization after the machine's.
  const names = new Set([
    ...Object.keys(r.recordedResources?.by_resource ?? {}),
    ...Object.keys(r.whatIfResources?.by_resource ?? {}),
  ]);
  const figure = (m: ResourceMetrics | undefined, name: string) => {
    const u = m?.by_resource[name]?.utilization;
    return u === undefined || u === null ? "-" : `${round(u, 6)}`;
  };
  const at = ROWS.findIndex(([name]) => name === "utilization") + 1;
  cells.splice(
    at,
    0,
    ...[...names].sort().map((name) => [
      `utilization (${name})`,
      figure(r.recordedResources, name),
      figure(r.whatIfResources, name),
    ]),
  );
  const all = [["", "recorded", "what-if"], ...cells];
  const w = [0, 1, 2].map((i) => Math.max(...all.map((c) => c[i].length)));
  return all.map((c) =>
    `${c[0].padEnd(w[0])}  ${c[1].padStart(w[1])}  ${c[2].padStart(w[2])}`.trimEnd()
  );
}

/** The what-if's report: the statistics side by side, then the first divergence. */
export function whatIfLines(r: WhatIfResult): string[] {
  const d = r.divergence;
  if (d === undefined) {
    return [...statisticsTable(r), "no divergence: the what-if makes every recorded decision"];
  }
  const first = d.recorded !== undefined && d.whatIf !== undefined
    ? (d.recorded.time <= d.whatIf.time ? d.recorded : d.whatIf)
    : (d.recorded ?? d.whatIf)!;
  const jobs = d.recorded !== undefined && d.whatIf !== undefined &&
      d.recorded.jobId !== d.whatIf.jobId
    ? `${d.recorded.jobId}/${d.whatIf.jobId}`
    : `${first.jobId}`;
  const text = (x: DecisionRow | undefined) => x === undefined ? "(none)" : dumpDecision(x).trim();
  return [
    ...statisticsTable(r),
    `first divergence at t=${first.time} job ${jobs}: recorded: ${text(d.recorded)}; what-if: ${
      text(d.whatIf)
    }`,
  ];
}

// The report's figures of a run on a machine (`simulate --machine`): its
// jobs hold no share of the node count (num_nodes 0), so the schedule alone
// gives a utilization of 0. What each job held on which node is in the run's
// stats JSON (`resources`: node equivalents, per resource and partition,
// computed by core/_metrics_resources.ts from the DISPATCH allocations);
// the report takes them from there, and `machineMetrics` makes the summary's
// utilization the node equivalents, as simulate's stats JSON does.

import { EvtsimError } from "../core/errors.ts";
import type { MetricsOptions } from "../core/metrics.ts";
import type { ResourceMetrics } from "../core/_metrics_resources.ts";
import { parseTrim } from "../core/_metrics_breakdowns.ts";
import { checkJsonBounds } from "../core/_json_bounds.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import { parseMeasureWindow } from "../io/stats_json.ts";
import type { ResourceColumns } from "./_run_files.ts";

/** Largest stats JSON the report reads (a machine's figures are a few KB). */
const MAX_STATS_BYTES = 64 * 1024 * 1024;

// The stats JSON at `path`, read within its size bound and parsed.
async function readStatsJson(path: string, bad: (detail: string) => never): Promise<unknown> {
  let text: string;
  try {
    const info = await Deno.stat(path);
    if (info.isFile && info.size > MAX_STATS_BYTES) {
      bad(`a stats JSON of ${info.size} bytes (at most ${MAX_STATS_BYTES})`);
    }
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof EvtsimError) throw e;
    if (e instanceof Deno.errors.NotFound) bad("stats JSON not found");
    if (!isFsError(e)) throw e;
    return bad(`cannot read the stats JSON: ${describeFsError(e)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return bad(`not JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  try {
    checkJsonBounds(doc, "stats JSON");
  } catch (e) {
    return bad((e as Error).message);
  }
  return doc;
}

/**
 * The machine figures of a run's stats JSON (`simulate --stats_json`), which
 * must have been measured as the report measures (`--measure_window`,
 * `--trim`) over the same measured jobs (`jobs`, the count the report's
 * metric set has from the schedule); one `FILE: …` line otherwise.
 */
export async function readRunResources(
  path: string,
  jobs: number,
  options: MetricsOptions = {},
): Promise<ResourceMetrics> {
  const bad = (detail: string, field?: string): never => {
    throw new EvtsimError("input", detail, { file: path, ...(field ? { field } : {}) });
  };
  const doc = await readStatsJson(path, bad);
  const o = doc as {
    options?: Record<string, unknown>;
    resources?: unknown;
    metrics?: { jobs?: unknown };
  };
  if (typeof o !== "object" || o === null || Array.isArray(o)) bad("expected a JSON object");
  const r = o.resources as Partial<ResourceMetrics> | undefined;
  if (r === undefined) {
    bad("no machine figures (resources): the stats JSON of a run with --machine is expected");
  }
  const figures = (x: unknown) =>
    typeof x === "object" && x !== null && typeof (x as { capacity?: unknown }).capacity ===
      "number" &&
    ((x as { utilization?: unknown }).utilization === null ||
      typeof (x as { utilization?: unknown }).utilization === "number");
  if (typeof r !== "object" || r === null || !figures(r.node_equivalents)) {
    bad("expected node_equivalents with capacity and utilization", "resources");
  }
  if (
    typeof r!.by_resource !== "object" || r!.by_resource === null ||
    !Object.values(r!.by_resource).every(figures)
  ) {
    bad("expected by_resource: each resource's capacity and utilization", "resources");
  }
  // The figures hold for the span they were measured over: the report's must be the same.
  const given = o.options ?? {};
  const parse = <T>(v: unknown, f: (s: string) => T) => typeof v === "string" ? f(v) : undefined;
  let theirs: unknown[];
  try {
    theirs = [parse(given.measure_window, parseMeasureWindow), parse(given.trim, parseTrim)];
  } catch (e) {
    return bad((e as Error).message, "options");
  }
  const ours = [options.measureWindow, options.trim];
  const said = (v: unknown, name: string) =>
    typeof v === "string" ? `--${name} ${v}` : `no --${name}`;
  if (JSON.stringify(theirs) !== JSON.stringify(ours)) {
    bad(
      `its machine figures were measured with ${said(given.measure_window, "measure_window")} ` +
        `and ${said(given.trim, "trim")}: give the report the same`,
    );
  }
  if (o.metrics?.jobs !== jobs) {
    bad(
      `its run measured ${o.metrics?.jobs} jobs, the schedule ${jobs}: the stats JSON of another run?`,
    );
  }
  return r as ResourceMetrics;
}

/**
 * The summary table's per-resource columns: every resource of any run's
 * machine figures, sorted (as compare's `utilization_<resource>` columns).
 */
export function resourceColumnNames(
  runs: readonly (ResourceMetrics | undefined)[],
): string[] {
  const names = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r?.by_resource ?? {})) names.add(k);
  return [...names].sort();
}

/** One line of the utilization chart: a name and the fraction at each row's time. */
export interface UtilizationLine {
  readonly name: string;
  readonly fraction: Float64Array;
}

/**
 * A run's lines of the utilization chart. On whole nodes one: allocated /
 * total nodes. On a machine (its figures given) whose resource CSV has the
 * per-resource pairs (`--resource_columns per_resource`), one per resource:
 * its used units / the machine's capacity of it (the figures' `capacity`,
 * the same denominator as its `utilization_<resource>`), named `LABEL
 * RESOURCE`. The node equivalents have no line: they need what each job held
 * on each node, which neither file has over time.
 */
export function utilizationLines(
  label: string,
  r: ResourceColumns,
  machine: ResourceMetrics | undefined,
): UtilizationLine[] {
  const lines: UtilizationLine[] = [];
  if (machine !== undefined && r.used !== undefined) {
    for (const [resource, figures] of Object.entries(machine.by_resource).sort()) {
      const used = r.used.get(resource);
      if (used === undefined || !(figures.capacity > 0)) continue;
      lines.push({ name: `${label} ${resource}`, fraction: used.map((u) => u / figures.capacity) });
    }
  }
  if (lines.length > 0) return lines;
  return [{ name: label, fraction: r.allocated.map((a) => a / Math.max(1, r.totalNodes)) }];
}

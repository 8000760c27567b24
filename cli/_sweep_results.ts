// The results folder of a sweep: `sweep.json` records the spec (its path,
// hashes and its lists, not its cells: cell i is computed from i) so that
// `sweep-cell` and `collect` know the whole sweep and refuse a folder whose
// spec changed; `cells/<id>.json` holds one cell's result, written
// atomically by whoever ran it; `results.csv` / `results.json` are merged
// from those files by one function for every executor, so they are the same
// bytes whichever ran the cells. Wall times go only to `timings.csv`.

import { EvtsimError } from "../core/errors.ts";
import {
  type Fairness,
  FAIRNESS_NAMES,
  METRIC_NAMES,
  type Metrics,
  type ResourceMetrics,
  utilizationColumns,
} from "../core/metrics.ts";
import { AtomicOutputSet, DENO_OUTPUT_FS, type OutputFileSystem } from "../io/atomic_writer.ts";
import { describeFsError } from "../io/fs_errors.ts";
import { sha256Hex } from "../io/_sha256.ts";
import {
  absolutePath,
  type Axis,
  type Cell,
  cellAt,
  type CellValue,
  type Sweep,
} from "./_sweep_model.ts";

/** A result row: the cell's id, index and options, then its figures. */
export type Row = Record<string, CellValue | null>;

/** What `cells/<id>.json` holds. */
export interface CellResult {
  readonly id: string;
  readonly index: number;
  readonly status: "ok" | "failed";
  /** The row (status ok). */
  readonly row?: Row;
  /** The error line (status failed). */
  readonly error?: string;
  readonly wall_seconds: number;
}

/**
 * The figure columns of a row, after the options: the metric set and the
 * fairness figures (core/metrics.ts).
 */
export const FIGURES: readonly string[] = [...METRIC_NAMES, ...FAIRNESS_NAMES];

const OPTION_COLUMNS = ["trace", "policy", "total_nodes", "run_time_mode", "seed"];

// 2: cells in the spec's product order, the record holds the lists (1: cells
// in id order, every cell in the record; refused, as its indices differ).
const RECORD_VERSION = 2;

export const recordPath = (dir: string) => `${dir}/sweep.json`;
export const cellPath = (dir: string, id: string) => `${dir}/cells/${id}.json`;

/** The row's columns for a sweep with these extra option keys. */
export function columnsOf(optionKeys: readonly string[]): string[] {
  return ["id", "index", ...OPTION_COLUMNS, ...optionKeys, ...FIGURES];
}

/** What a row takes from its cell's `--stats_json`. */
export interface CellStats {
  readonly metrics: Metrics;
  readonly fairness: Fairness;
  readonly statistics: { readonly totalNodes: number };
  /** A machine run's per-resource figures. */
  readonly resources?: ResourceMetrics;
  /** A run with a power model (docs/power.md): its energy, the integral of its draw. */
  readonly energy?: { readonly total: number };
}

/**
 * The row of a cell from its simulate run's `--stats_json`: the options,
 * `total_nodes` the machine size the run used (the option, or the trace
 * header's when the spec gives none), the metric set and fairness figures.
 */
export function rowOf(cell: Cell, optionKeys: readonly string[], stats: CellStats): Row {
  const row: Row = { id: cell.id, index: cell.index };
  for (const k of [...OPTION_COLUMNS, ...optionKeys]) row[k] = cell.options[k] ?? null;
  row.total_nodes = stats.statistics.totalNodes;
  // Simulated time only (throughput too), not wall time: results must not
  // depend on the machine.
  for (const k of METRIC_NAMES) row[k] = stats.metrics[k];
  for (const k of FAIRNESS_NAMES) row[k] = stats.fairness[k];
  // A machine run (--machine): each resource's utilization too.
  if (stats.resources !== undefined) Object.assign(row, utilizationColumns(stats.resources));
  // A run with a power model: its energy (joules when watts are given).
  if (stats.energy !== undefined) row.energy_j = stats.energy.total;
  return row;
}

/**
 * The columns of the merged rows: `columnsOf`, then the per-resource
 * columns of machine runs (`utilization_<resource>`, sorted), which
 * whole-node sweeps have none of, and `energy_j` where a run models power.
 */
function mergedColumns(optionKeys: readonly string[], rows: readonly Row[]): string[] {
  const columns = columnsOf(optionKeys);
  const known = new Set(columns);
  const extra = new Set<string>();
  for (const row of rows) {
    for (const k of Object.keys(row)) {
      if (!known.has(k) && (k.startsWith("utilization_") || k === "energy_j")) extra.add(k);
    }
  }
  return [...columns, ...[...extra].sort()];
}

interface Record_ {
  readonly evtsim_sweep: number;
  readonly spec: string;
  readonly spec_sha256: string;
  readonly cells_sha256: string;
  readonly option_keys: readonly string[];
  readonly folder: string;
  readonly axes: readonly Axis[];
  readonly count: number;
}

/** The sweep recorded in `dir`, or undefined when `dir` has no record. */
export async function readRecord(dir: string): Promise<Sweep | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(recordPath(dir));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, { file: recordPath(dir) });
  }
  let r: Record_;
  try {
    r = JSON.parse(text);
  } catch {
    throw new EvtsimError("input", "not a sweep record (invalid JSON)", { file: recordPath(dir) });
  }
  if (r?.evtsim_sweep === 1) {
    throw new EvtsimError(
      "input",
      "written by an older evtsim (cells in id order, not the spec's order): " +
        "run the sweep into another --results folder",
      { file: recordPath(dir) },
    );
  }
  if (
    r?.evtsim_sweep !== RECORD_VERSION || !Array.isArray(r.axes) ||
    !Number.isSafeInteger(r.count) || typeof r.folder !== "string"
  ) {
    throw new EvtsimError(
      "input",
      `not a sweep record of this evtsim (version ${RECORD_VERSION})`,
      { file: recordPath(dir) },
    );
  }
  return {
    specPath: r.spec,
    folder: r.folder,
    specSha256: r.spec_sha256,
    cellsSha256: r.cells_sha256,
    optionKeys: r.option_keys,
    axes: r.axes,
    count: r.count,
  };
}

/** Refuses a folder that holds the results of another sweep. */
export function checkSameSweep(dir: string, recorded: Sweep, sweep: Sweep): void {
  if (recorded.cellsSha256 !== sweep.cellsSha256) {
    throw new EvtsimError(
      "usage",
      `${dir} holds the results of another sweep (spec ${recorded.specPath} as it was; ` +
        "its cells changed): use another --results folder",
    );
  }
}

/**
 * Makes `dir` the results folder of `sweep` (its record, a copy of the spec,
 * `cells/`), or checks that it is one already.
 */
export async function prepareFolder(dir: string, sweep: Sweep, specText?: string): Promise<void> {
  const recorded = await readRecord(dir);
  if (recorded !== undefined) {
    checkSameSweep(dir, recorded, sweep);
  } else {
    const record: Record_ = {
      evtsim_sweep: RECORD_VERSION,
      spec: sweep.specPath,
      spec_sha256: sweep.specSha256,
      cells_sha256: sweep.cellsSha256,
      option_keys: sweep.optionKeys,
      folder: sweep.folder,
      axes: sweep.axes,
      count: sweep.count,
    };
    const set = new AtomicOutputSet();
    try {
      set.open(recordPath(dir)).line(JSON.stringify(record, null, 1));
      const text = specText ?? await Deno.readTextFile(sweep.specPath);
      set.open(`${dir}/spec.yaml`).text(text);
      set.commit();
    } catch (e) {
      set.abort();
      throw e;
    }
  }
  await Deno.mkdir(`${dir}/cells`, { recursive: true });
}

/**
 * The sweep of `dir`'s record, checked against the spec file: when the spec's
 * text is unchanged the record is used as it is (no YAML to parse: each
 * cell's process starts fast); otherwise the spec is read again and must
 * give the same cells. Without a record the spec is read and recorded.
 */
export async function sweepOf(specPath: string | undefined, dir: string): Promise<Sweep> {
  const recorded = await readRecord(dir);
  const path = specPath ?? recorded?.specPath;
  if (path === undefined) {
    throw new EvtsimError("usage", `${dir} is not a sweep results folder (no sweep.json)`);
  }
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    // collect without the spec file: the record alone still gives every cell.
    if (specPath === undefined && recorded !== undefined && e instanceof Deno.errors.NotFound) {
      return recorded;
    }
    throw new EvtsimError("input", `cannot read the sweep spec: ${describeFsError(e)}`, {
      file: path,
    });
  }
  if (recorded !== undefined && sha256Hex(text) === recorded.specSha256) return recorded;
  const { readSweepSpec } = await import("./_sweep_spec.ts");
  const sweep = await readSweepSpec(path);
  if (recorded !== undefined) {
    if (recorded.cellsSha256 !== sweep.cellsSha256) {
      throw new EvtsimError(
        "usage",
        `the spec ${path} changed since the sweep in ${dir} started (its cells differ): ` +
          "run it into another --results folder",
      );
    }
    return recorded;
  }
  await prepareFolder(dir, sweep, text);
  return sweep;
}

/**
 * The result of each cell that has one (index → result), in index order. The
 * folder's result files are read (not one per cell of the sweep): a file
 * counts when its id is that of the cell at its index.
 */
export async function readCellResults(dir: string, sweep: Sweep): Promise<Map<number, CellResult>> {
  const found: CellResult[] = [];
  try {
    for await (const e of Deno.readDir(`${dir}/cells`)) {
      const m = /^([0-9a-f]{12})\.json$/.exec(e.name);
      if (m === null || !e.isFile) continue;
      let r: CellResult;
      try {
        r = JSON.parse(await Deno.readTextFile(`${dir}/cells/${e.name}`));
      } catch {
        continue;
      }
      if (
        r?.id !== m[1] || !Number.isSafeInteger(r.index) || r.index < 0 ||
        r.index >= sweep.count || (r.status !== "ok" && r.status !== "failed")
      ) continue;
      if (cellAt(sweep, r.index).id === r.id) found.push(r);
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, {
        file: `${dir}/cells`,
      });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return new Map(found.map((r) => [r.index, r]));
}

/** A cell's result, or undefined when it has none (or an unreadable one). */
export async function readCellResult(dir: string, cell: Cell): Promise<CellResult | undefined> {
  try {
    const r = JSON.parse(await Deno.readTextFile(cellPath(dir, cell.id))) as CellResult;
    return r.id === cell.id && (r.status === "ok" || r.status === "failed") ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The real file system without fsync, for the cells' result files: a result
 * is still renamed into place whole (never seen half-written), but not
 * forced to the disk before the next cell starts (a fifth of a warm KTH
 * cell's time after its engine, and the worker waited for it). After a
 * crash of the machine a result file may be empty: it is then no result
 * (readCellResults skips it), so a rerun runs the cell again. The merged
 * results.csv / results.json are synced as every output is.
 */
const UNSYNCED_FS: OutputFileSystem = {
  ...DENO_OUTPUT_FS,
  create(path) {
    const f = DENO_OUTPUT_FS.create(path);
    return { write: (b) => f.write(b), sync: () => {}, close: () => f.close() };
  },
};

/** Writes a cell's result file atomically (not fsynced: see UNSYNCED_FS). */
export function writeCellResult(dir: string, result: CellResult): void {
  const set = new AtomicOutputSet(UNSYNCED_FS);
  try {
    set.open(cellPath(dir, result.id)).line(JSON.stringify(result));
    set.commit();
  } catch (e) {
    set.abort();
    throw e;
  }
}

/** What a merge found. */
export interface MergeSummary {
  readonly ok: number;
  readonly failed: CellResult[];
  /** The indices of the cells with no result, in order. */
  readonly missing: number[];
  /** Whether `results.parquet` was written too. */
  readonly parquet: boolean;
}

/**
 * Writes `results.csv`, `results.json` (rows of the cells that ran fine, in
 * index order) and `timings.csv` (every cell with a result); `results.parquet`
 * too (the CSV's rows) when `parquet` asks for it or the folder has one already
 * (so it never goes stale).
 */
export async function writeResults(
  dir: string,
  sweep: Sweep,
  parquet = false,
): Promise<MergeSummary> {
  const withParquet = parquet || await Deno.lstat(`${dir}/results.parquet`).then(
    (s) => s.isFile,
    () => false,
  );
  // The writer package loads only for a Parquet file.
  const toParquet = withParquet
    ? (await import("../io/results_parquet.ts")).resultsParquet
    : undefined;
  const results = await readCellResults(dir, sweep);
  const columns = mergedColumns(
    sweep.optionKeys,
    [...results.values()].flatMap((r) => r.status === "ok" && r.row !== undefined ? [r.row] : []),
  );
  const rows: Row[] = [];
  const failed: CellResult[] = [];
  const missing: number[] = [];
  for (let i = 0; i < sweep.count; i++) {
    const r = results.get(i);
    if (r === undefined) missing.push(i);
    else if (r.status === "failed") failed.push(r);
    else rows.push(Object.fromEntries(columns.map((c) => [c, r.row?.[c] ?? null])));
  }
  const set = new AtomicOutputSet();
  try {
    const csv = set.open(`${dir}/results.csv`);
    csv.line(columns.join(","));
    for (const row of rows) csv.line(columns.map((c) => csvField(row[c])).join(","));
    set.open(`${dir}/results.json`).line(JSON.stringify(rows, null, 2));
    if (toParquet !== undefined) {
      set.open(`${dir}/results.parquet`).bytes(toParquet(columns, rows));
    }
    const timings = set.open(`${dir}/timings.csv`);
    // The machine's speed: jobs simulated per second of the cell's wall time.
    timings.line("id,index,status,wall_seconds,jobs_per_wall_s");
    for (const r of results.values()) {
      const jobs = r.row?.jobs;
      const rate = typeof jobs === "number" && r.wall_seconds > 0
        ? Math.round(jobs / r.wall_seconds)
        : "";
      timings.line(`${r.id},${r.index},${r.status},${r.wall_seconds},${rate}`);
    }
    set.commit();
  } catch (e) {
    set.abort();
    throw e;
  }
  return { ok: rows.length, failed, missing, parquet: withParquet };
}

function csvField(v: CellValue | null | undefined): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** `path` absolute from the working directory. */
export function absoluteDir(path: string): string {
  return absolutePath(path, Deno.cwd());
}

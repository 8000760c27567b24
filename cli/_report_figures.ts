// What the report's charts are drawn from, apart from the charts themselves:
// time-weighted rolling means of step series, readable axis numbers, calendar
// time when the trace's SWF header gives `UnixStartTime`, the trace's
// provenance (name, SHA-256) and the layouts of the node Gantt chart.

import { EvtsimError } from "../core/errors.ts";
import { expandHostlist } from "../io/hostlist.ts";
import { gunzipText } from "./_report_gzip.ts";

/** Readable windows for a rolling mean, in seconds (1 min .. 30 days). */
const NICE_WINDOWS = [
  60,
  300,
  600,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  86400,
  2 * 86400,
  7 * 86400,
  30 * 86400,
];

/** The default rolling-mean window: the largest readable one of at most 1/50 of the span. */
export function defaultMeanWindow(span: number): number {
  let w = NICE_WINDOWS[0];
  for (const n of NICE_WINDOWS) if (n <= span / 50) w = n;
  return w;
}

/** A window in words: "6 h", "1 d", "30 min". */
export function windowWords(s: number): string {
  if (s % 86400 === 0) return `${s / 86400} d`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${formatNumber(s)} s`;
}

/**
 * The trailing time-weighted mean of a step function (value `v[i]` from `t[i]`
 * on, 0 before `t[0]`) over `[x - window, x]`, clipped at `lo`, at `points`
 * evenly spaced times `x` in `(lo, hi]`. Of several values at one time only
 * the last counts (the others last no time).
 */
export function rollingMean(
  t: Float64Array,
  v: Float64Array,
  lo: number,
  hi: number,
  window: number,
  points = 480,
): [number, number][] {
  if (hi <= lo || t.length === 0) return [];
  // The integral of the step function from lo to x, for increasing x.
  const integralAt = (() => {
    let i = 0, acc = 0, at = lo, value = 0;
    while (i < t.length && t[i] <= lo) value = v[i++];
    return (x: number) => {
      while (i < t.length && t[i] <= x) {
        acc += value * (t[i] - at);
        at = t[i];
        value = v[i++];
      }
      return acc + value * (x - at);
    };
  })();
  const xs: number[] = [];
  for (let k = 1; k <= points; k++) xs.push(lo + ((hi - lo) * k) / points);
  // The integral at every x and at every x - window, in increasing order.
  const qs = [...new Set([...xs, ...xs.map((x) => Math.max(lo, x - window))])].sort((a, b) =>
    a - b
  );
  const at = new Map<number, number>();
  for (const q of qs) at.set(q, integralAt(q));
  return xs.map((x) => {
    const from = Math.max(lo, x - window);
    return [x, x > from ? (at.get(x)! - at.get(from)!) / (x - from) : 0];
  });
}

const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/** A number with thousands separators and at most two decimals: 1,095,990.5. */
export function formatNumber(x: number): string {
  return Number.isFinite(x) ? NUMBER.format(x) : String(x);
}

/** A UTC date (and time when `withTime`) for epoch seconds: 2003-07-01 or 2003-07-01 14:00. */
export function formatDate(epochSeconds: number, withTime: boolean): string {
  const iso = new Date(epochSeconds * 1000).toISOString();
  return withTime ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** Where a report's runs came from. */
export interface TraceProvenance {
  /** The trace's file name (no folder). */
  readonly name: string;
  /** SHA-256 of the trace file's bytes, as stored. */
  readonly sha256: string;
  /** The SWF header's `UnixStartTime` (epoch seconds of time 0), when it has one. */
  readonly unixStartTime?: number;
}

/**
 * Reads a trace's provenance: its name, the SHA-256 of its bytes and, for an
 * SWF log (gzipped or not), the header's `UnixStartTime` when positive.
 */
export async function traceProvenance(path: string): Promise<TraceProvenance> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound ? "trace not found" : "cannot read the trace";
    throw new EvtsimError("input", `${why} (--trace)`, { file: path });
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  const text = /\.gz$/i.test(path) ? await gunzipText(bytes, 1 << 16) : headOf(bytes);
  const unixStartTime = unixStartOf(text);
  return {
    name: path.replace(/^.*[\\/]/, ""),
    sha256,
    ...(unixStartTime !== undefined ? { unixStartTime } : {}),
  };
}

function headOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, 1 << 16));
}

// `; UnixStartTime: N` among the leading comment lines (as the SWF reader takes it: positive).
function unixStartOf(text: string): number | undefined {
  for (const line of text.split(/\r?\n/)) {
    const l = line.trim();
    if (l === "") continue;
    if (!l.startsWith(";")) break;
    const m = /^;\s*UnixStartTime\s*:\s*(\S+)/.exec(l);
    if (m !== null) {
      const n = Number(m[1]);
      if (Number.isFinite(n) && n > 0) return n;
    }
  }
  return undefined;
}

/** One rectangle of the Gantt chart: a job on nodes [fromNode, toNode) during [start, end). */
export interface GanttRect {
  readonly start: number;
  readonly end: number;
  readonly fromNode: number;
  readonly toNode: number;
  readonly job: number;
}

/**
 * A drawing layout of the jobs running in [lo, hi) on `total` nodes: jobs in
 * start order (then job order), each on the lowest free node numbers
 * (first fit), one rectangle per contiguous block. This is one valid picture
 * of the allocation (whole nodes are interchangeable), not the scheduler's
 * own node choice, which evtsim does not record. At most `maxJobs` jobs (the
 * earliest-starting ones) are placed.
 */
export function ganttLayout(
  s: {
    readonly count: number;
    readonly begin: Float64Array;
    readonly end: Float64Array;
    readonly nodes: Float64Array;
  },
  total: number,
  lo: number,
  hi: number,
  maxJobs: number,
): { rects: GanttRect[]; jobs: number; shown: number } {
  const ids: number[] = [];
  for (let i = 0; i < s.count; i++) {
    if (s.begin[i] < hi && s.end[i] > lo && s.end[i] > s.begin[i]) ids.push(i);
  }
  ids.sort((a, b) => s.begin[a] - s.begin[b] || a - b);
  const shown = ids.slice(0, maxJobs);
  const ends: [number, number][] = []; // [end time, job] of placed jobs, by end time
  const owner = new Int32Array(total).fill(-1);
  const rects: GanttRect[] = [];
  let e = 0;
  for (const j of shown) {
    const t = Math.max(lo, s.begin[j]);
    while (e < ends.length && ends[e][0] <= t) {
      const done = ends[e++][1];
      for (let k = 0; k < total; k++) if (owner[k] === done) owner[k] = -1;
    }
    let need = s.nodes[j];
    let k = 0;
    while (need > 0 && k < total) {
      if (owner[k] !== -1) {
        k++;
        continue;
      }
      const from = k;
      while (k < total && owner[k] === -1 && need > 0) {
        owner[k++] = j;
        need--;
      }
      rects.push({ start: t, end: Math.min(hi, s.end[j]), fromNode: from, toNode: k, job: j });
    }
    let a = e, b = ends.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (ends[mid][0] <= s.end[j]) a = mid + 1;
      else b = mid;
    }
    ends.splice(a, 0, [s.end[j], j]);
  }
  return { rects, jobs: ids.length, shown: shown.length };
}

/**
 * The Gantt chart of the jobs running in [lo, hi) on the nodes the schedule's
 * `nodes` column names (the allocation as the run made it): one row per node
 * named anywhere in the schedule, in hostlist order (the order
 * `compressHostlist` gives all the names in row order: groups of a prefix in
 * order of first appearance, numbers ascending), and per job one rectangle
 * per run of adjacent rows. Jobs in start order (then job order), at most
 * `maxJobs`; jobs with no nodes are not drawn.
 */
export function allocatedLayout(
  s: {
    readonly count: number;
    readonly begin: Float64Array;
    readonly end: Float64Array;
    readonly hostlists: readonly string[];
  },
  lo: number,
  hi: number,
  maxJobs: number,
): { rects: GanttRect[]; jobs: number; shown: number; rows: string[] } {
  const names = new Set<string>();
  const seen = new Set<string>();
  for (const h of s.hostlists) {
    if (seen.has(h)) continue;
    seen.add(h);
    for (const n of expandHostlist(h)) names.add(n);
  }
  const rows = hostlistOrder([...names]);
  const rowOf = new Map(rows.map((n, i) => [n, i]));
  const ids: number[] = [];
  for (let i = 0; i < s.count; i++) {
    if (s.begin[i] < hi && s.end[i] > lo && s.end[i] > s.begin[i] && s.hostlists[i] !== "") {
      ids.push(i);
    }
  }
  ids.sort((a, b) => s.begin[a] - s.begin[b] || a - b);
  const shown = ids.slice(0, maxJobs);
  const rects: GanttRect[] = [];
  for (const j of shown) {
    const at = [...new Set(expandHostlist(s.hostlists[j]).map((n) => rowOf.get(n)!))]
      .sort((a, b) => a - b);
    const start = Math.max(lo, s.begin[j]), end = Math.min(hi, s.end[j]);
    for (let k = 0; k < at.length;) {
      let e = k;
      while (e + 1 < at.length && at[e + 1] === at[e] + 1) e++;
      rects.push({ start, end, fromNode: at[k], toNode: at[e] + 1, job: j });
      k = e + 1;
    }
  }
  return { rects, jobs: ids.length, shown: shown.length, rows };
}

// Names in hostlist order: grouped by prefix and digit count (a name with
// no number is a group of its own), groups in order of first appearance,
// numbers ascending within a group (as compressHostlist writes them).
function hostlistOrder(names: readonly string[]): string[] {
  const group = new Map<string, number>();
  const keyed = names.map((name) => {
    const m = /^(.*?)(\d{1,15})$/.exec(name);
    const key = m === null ? `\u0000${name}` : `${m[2].length}\u0001${m[1]}`;
    if (!group.has(key)) group.set(key, group.size);
    return { name, group: group.get(key)!, n: m === null ? 0 : Number(m[2]) };
  });
  keyed.sort((a, b) => a.group - b.group || a.n - b.n);
  return keyed.map((k) => k.name);
}

// Options naming a run's own output files (temporary ones under compare).
const OUTPUT_OPTIONS = new Set([
  "outfile",
  "resource_trace",
  "stats_json",
  "report",
  "no_progress",
  "record",
  "decisions",
  "submission_stats",
]);

/**
 * A run's simulate options as one line for the report's provenance (by DR_EVT
 * name, as the stats JSON records them), without its output files.
 */
export function optionsLine(options: Readonly<Record<string, unknown>>): string {
  return Object.entries(options)
    .filter(([k]) => !OUTPUT_OPTIONS.has(k))
    .map(([k, v]) => v === true ? `--${k}` : `--${k} ${v}`).join(" ");
}

/**
 * Per job, 1 when it started before a job submitted strictly earlier did (the
 * policy let it overtake: backfilling or a reordering picker), else 0. Read
 * from the schedule alone, so it holds for any policy.
 */
export function overtook(s: {
  readonly count: number;
  readonly submit: Float64Array;
  readonly begin: Float64Array;
}): Uint8Array {
  const order = Array.from({ length: s.count }, (_, i) => i)
    .sort((a, b) => s.submit[a] - s.submit[b] || a - b);
  const flags = new Uint8Array(s.count);
  let before = -Infinity; // latest start among jobs submitted strictly earlier
  for (let k = 0; k < order.length;) {
    let e = k;
    while (e < order.length && s.submit[order[e]] === s.submit[order[k]]) e++;
    for (let q = k; q < e; q++) if (before > s.begin[order[q]]) flags[order[q]] = 1;
    for (let q = k; q < e; q++) before = Math.max(before, s.begin[order[q]]);
    k = e;
  }
  return flags;
}

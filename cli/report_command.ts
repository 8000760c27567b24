// `evtsim report RUN... --out report.html`: one self-contained HTML file
// comparing finished runs. Every chart is an inline SVG rendered here by
// ECharts' server-side renderer; the page has no script and loads nothing.
// Long series are down-sampled before drawing (see downsampleSteps).

import * as echarts from "echarts";
import { EvtsimError } from "../core/errors.ts";
import { AtomicOutputSet } from "../io/atomic_writer.ts";
import { parseMeasureWindow, percentile } from "../io/stats_json.ts";
import {
  computeMetrics,
  type Metrics,
  type MetricsJob,
  type MetricsOptions,
} from "../core/metrics.ts";
import { formatG } from "./report.ts";
import type { Console } from "./simulate.ts";
import { defaultResourceFile } from "./simulate.ts";
import {
  jobFigures,
  readResourceCsv,
  readScheduleCsv,
  type ResourceColumns,
  type ScheduleColumns,
} from "./_run_files.ts";
import { optionHelp, parseCommandArgs } from "./_command_args.ts";
import { checkOutputPath, type NamedPath } from "./paths.ts";

/** One run to report: a label and its two files. */
export interface RunFiles {
  readonly label: string;
  readonly schedule: string;
  readonly resources: string;
}

/** Report options. */
export interface ReportOptions {
  /** The occupancy chart's window, in trace seconds (default: see defaultWindow). */
  readonly window?: readonly [number, number];
  /** Allow runs of different traces in one report. */
  readonly allowMixed?: boolean;
  /** The option that named the output, for messages (default `--out`). */
  readonly option?: string;
  /** Files read besides the runs' own, which the output may not be either. */
  readonly inputs?: readonly NamedPath[];
  /** How the summary table's metrics are measured (τ, measure window). */
  readonly metrics?: MetricsOptions;
}

const WIDTH = 960;
/** Pixel columns a time series is reduced to (one min/max pair each). */
export const BUCKETS = 960;
/** Points of a CDF as drawn (evenly spaced quantiles). */
const CDF_POINTS = 500;
/** Most jobs drawn in an occupancy chart (the earliest-starting ones). */
const GANTT_JOBS = 4000;

const OPTIONS = {
  out: { type: "string", short: "o", value: "FILE", help: "the HTML file to write (required)" },
  window: {
    type: "string",
    value: "START:END",
    help: "node-occupancy window in trace seconds (default: one day from the first run's " +
      "median job start, or the whole run when shorter)",
  },
  bsld_tau: {
    type: "string",
    value: "S",
    help: "bounded-slowdown threshold tau of the summary table, in seconds (default 10)",
  },
  measure_window: {
    type: "string",
    value: "START:END",
    help: "the summary table measures only jobs submitted in [START, END) seconds",
  },
  allow_mixed: {
    type: "boolean",
    help: "allow runs of different traces (different submitted jobs) in one report",
  },
  help: { type: "boolean", short: "h", help: "show this help" },
} as const;

export function reportHelp(): string {
  return [
    "usage: evtsim report RUN... --out report.html [--window START:END] [--allow_mixed]",
    "",
    "Writes one self-contained HTML file (inline SVG charts, no script, no network)",
    "comparing finished runs: utilization and queue length over time, wait and",
    "bounded-slowdown CDFs, mean wait by job size, node occupancy in a window, and",
    "a summary table.",
    "",
    "A RUN is a schedule CSV written by 'evtsim simulate' (--outfile), with its",
    "resource CSV (--resource_trace) found by simulate's default name: X.csv ->",
    "X_resources.csv (e.g. jobs_sim.csv -> jobs_sim_resources.csv). Give both as",
    "SCHEDULE.csv,RESOURCES.csv when the resource file has another name. Prefix",
    "LABEL= to name a run (default: the schedule file's name). Both files are read",
    "strictly: every row has the header's fields and numbers where numbers belong;",
    "the first bad row is one FILE:LINE error.",
    "",
    "Time series are drawn down-sampled: each of 960 pixel columns keeps the",
    "minimum and maximum of the series in it; CDFs are drawn at 500 quantiles.",
    "",
    "options:",
    ...optionHelp(OPTIONS),
  ].join("\n");
}

// --bsld_tau and --measure_window of the report command.
function reportMetricsOptions(tau: unknown, window: unknown): MetricsOptions {
  const t = typeof tau === "string" ? Number(tau) : undefined;
  if (t !== undefined && !(t > 0 && Number.isFinite(t))) {
    throw new EvtsimError("usage", `--bsld_tau: expected seconds > 0, got '${tau}'`);
  }
  return {
    ...(t !== undefined ? { bsldTau: t } : {}),
    ...(typeof window === "string" ? { measureWindow: parseMeasureWindow(window) } : {}),
  };
}

/** Parses one RUN argument: `[LABEL=]SCHEDULE[,RESOURCES]`. */
export function parseRun(arg: string): RunFiles {
  const eq = arg.indexOf("=");
  const label = eq > 0 && !arg.slice(0, eq).includes("/") ? arg.slice(0, eq) : undefined;
  const files = label === undefined ? arg : arg.slice(eq + 1);
  const [schedule, resources, extra] = files.split(",");
  if (extra !== undefined || schedule === "") {
    throw new EvtsimError("usage", `'${arg}': expected SCHEDULE.csv or SCHEDULE.csv,RESOURCES.csv`);
  }
  return {
    label: label ?? schedule.replace(/^.*\//, "").replace(/\.csv$/i, ""),
    schedule,
    resources: resources ?? defaultResourceFile(schedule),
  };
}

/** Runs `evtsim report ARGS`; returns the exit code. */
export async function reportCommand(args: readonly string[], con: Console): Promise<number> {
  const a = parseCommandArgs(args, OPTIONS, "report");
  if (a.values.get("help") === true) {
    con.out(reportHelp());
    return 0;
  }
  const out = a.values.get("out");
  if (typeof out !== "string") {
    throw new EvtsimError("usage", "--out FILE is required (see 'evtsim report --help')");
  }
  if (a.positionals.length === 0) {
    throw new EvtsimError("usage", "no run given (see 'evtsim report --help')");
  }
  const runs = a.positionals.map(parseRun);
  const w = a.values.get("window");
  const window = typeof w === "string" ? parseWindow(w) : undefined;
  const t0 = performance.now();
  await writeReport(runs, out, {
    window,
    allowMixed: a.values.get("allow_mixed") === true,
    metrics: reportMetricsOptions(a.values.get("bsld_tau"), a.values.get("measure_window")),
  });
  con.out(
    `Report written to: ${out} (${runs.length} run${runs.length === 1 ? "" : "s"}, ${
      formatG((performance.now() - t0) / 1000, 3)
    } s)`,
  );
  return 0;
}

function parseWindow(s: string): [number, number] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*:\s*(-?\d+(?:\.\d+)?)\s*$/.exec(s);
  if (m === null || Number(m[1]) >= Number(m[2])) {
    throw new EvtsimError(
      "usage",
      `--window: expected START:END in seconds with START < END, got '${s}'`,
    );
  }
  return [Number(m[1]), Number(m[2])];
}

interface LoadedRun {
  readonly files: RunFiles;
  readonly schedule: ScheduleColumns;
  readonly resources: ResourceColumns;
  readonly summary: RunSummary;
}

/** The summary table's figures for one run, from its files. */
export interface RunSummary {
  /** The metric set (core/metrics.ts) of the run's jobs. */
  readonly metrics: Metrics;
  /** The machine's nodes, from the resource CSV. */
  readonly totalNodes: number;
}

/**
 * Reads every run, checks they belong together, renders the charts and
 * writes the HTML through the atomic writer (nothing is left half-written).
 */
export async function writeReport(
  files: readonly RunFiles[],
  out: string,
  options: ReportOptions,
): Promise<void> {
  // No output may be an input (cli/paths.ts): a run's files included.
  checkOutputPath(options.option ?? "--out", out, [
    ...files.flatMap((f) => [
      { what: "a run's schedule", path: f.schedule },
      { what: "a run's resource file", path: f.resources },
    ]),
    ...(options.inputs ?? []),
  ]);
  const runs: LoadedRun[] = [];
  for (const f of files) {
    const schedule = await readScheduleCsv(f.schedule);
    const resources = await readResourceCsv(f.resources);
    runs.push({
      files: f,
      schedule,
      resources,
      summary: summarizeRun(schedule, resources, options.metrics),
    });
  }
  if (options.allowMixed !== true) {
    const first = fingerprint(runs[0].schedule);
    for (const r of runs.slice(1)) {
      if (fingerprint(r.schedule) !== first) {
        throw new EvtsimError(
          "input",
          `holds other jobs than ${runs[0].files.schedule} (a run of another trace or ` +
            `options); give --allow_mixed to report them together`,
          { file: r.files.schedule },
        );
      }
    }
  }
  const html = renderHtml(runs, options.window ?? defaultWindow(runs[0].schedule));
  const output = new AtomicOutputSet();
  try {
    output.open(out).text(html);
    output.commit();
  } catch (e) {
    output.abort();
    throw e;
  }
}

// The submitted jobs (submit time and size, in job order): equal for runs of
// one trace under any policy.
function fingerprint(s: ScheduleColumns): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.count; i++) {
    for (const v of [s.submit[i], s.nodes[i]]) {
      h = Math.imul(h ^ (v & 0xffff), 16777619);
      h = Math.imul(h ^ Math.floor(v / 65536), 16777619);
    }
  }
  return `${s.count}:${h >>> 0}`;
}

/** The run's metric set from its files (as `simulate --stats_json` computes it from its rows). */
export function summarizeRun(
  s: ScheduleColumns,
  r: ResourceColumns,
  options: MetricsOptions = {},
): RunSummary {
  function* jobs(): Generator<MetricsJob> {
    for (let i = 0; i < s.count; i++) {
      yield {
        submitTime: s.submit[i],
        beginTime: s.begin[i],
        endTime: s.end[i],
        numNodes: s.nodes[i],
        ...(s.exit[i] === 0 ? {} : { outcome: "ended" }),
      };
    }
  }
  return { metrics: computeMetrics(jobs(), r.totalNodes, options), totalNodes: r.totalNodes };
}

/** One day from the median job start, clipped to the run; the whole run if shorter. */
export function defaultWindow(s: ScheduleColumns): [number, number] {
  if (s.count === 0) return [0, 1];
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < s.count; i++) {
    lo = Math.min(lo, s.begin[i]);
    hi = Math.max(hi, s.end[i]);
  }
  if (hi - lo <= 86400) return [lo, Math.max(hi, lo + 1)];
  const mid = percentile(s.begin.slice().sort(), 50)!;
  const start = Math.min(mid, hi - 86400);
  return [start, start + 86400];
}

/**
 * Down-samples a step function (value `v[i]` from `t[i]` on) over [lo, hi]
 * to `buckets` pixel columns: each column keeps the minimum and maximum the
 * function takes in it (in the order they occur), so spikes survive. Of
 * several values at one time only the last counts (the others last no time).
 */
export function downsampleSteps(
  t: Float64Array,
  v: Float64Array,
  lo: number,
  hi: number,
  buckets = BUCKETS,
): [number, number][] {
  const out: [number, number][] = [];
  if (t.length === 0 || hi <= lo) return out;
  const width = (hi - lo) / buckets;
  let i = 0;
  let current = v[0];
  for (let b = 0; b < buckets; b++) {
    const start = lo + b * width;
    const end = b === buckets - 1 ? Infinity : start + width;
    let min = current, max = current, minAt = -1, maxAt = -1;
    while (i < t.length && t[i] < end) {
      current = v[i];
      // Several rows at one time: only the last is a state that lasts.
      if (i + 1 < t.length && t[i + 1] === t[i]) {
        i++;
        continue;
      }
      if (current < min) [min, minAt] = [current, i];
      if (current > max) [max, maxAt] = [current, i];
      i++;
    }
    const x = start + width / 2;
    if (min === max) out.push([x, min]);
    else if (minAt <= maxAt) out.push([x, min], [x, max]);
    else out.push([x, max], [x, min]);
  }
  return out;
}

function queueSteps(s: ScheduleColumns): { t: Float64Array; v: Float64Array } {
  // +1 at submission, -1 at start; starts first at a tie (as the queue does).
  const ev = new Float64Array(s.count * 2);
  const delta = new Int8Array(s.count * 2);
  const order = new Uint32Array(s.count * 2);
  for (let i = 0; i < s.count; i++) {
    ev[2 * i] = s.submit[i];
    delta[2 * i] = 1;
    ev[2 * i + 1] = s.begin[i];
    delta[2 * i + 1] = -1;
  }
  for (let k = 0; k < order.length; k++) order[k] = k;
  order.sort((a, b) => ev[a] - ev[b] || delta[a] - delta[b]);
  const t = new Float64Array(order.length);
  const v = new Float64Array(order.length);
  let q = 0;
  order.forEach((k, j) => {
    q += delta[k];
    t[j] = ev[k];
    v[j] = q;
  });
  return { t, v };
}

function cdf(sorted: Float64Array): [number, number][] {
  const n = sorted.length;
  if (n === 0) return [];
  const pts: [number, number][] = [];
  const k = Math.min(n, CDF_POINTS);
  for (let j = 1; j <= k; j++) {
    const rank = Math.ceil((j / k) * n);
    pts.push([sorted[rank - 1], rank / n]);
  }
  return pts;
}

function render(option: Record<string, unknown>, height = 360): string {
  const chart = echarts.init(null, null, {
    renderer: "svg",
    ssr: true,
    width: WIDTH,
    height,
  });
  chart.setOption({
    animation: false,
    grid: { left: 70, right: 30, top: 70, bottom: 50 },
    legend: { top: 30 },
    ...option,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

function lineChart(
  title: string,
  xName: string,
  yName: string,
  series: { name: string; data: [number, number][] }[],
  xType: "value" | "log" = "value",
  yMax?: number,
): string {
  return render({
    title: { text: title, left: "center", textStyle: { fontSize: 14 } },
    xAxis: { type: xType, name: xName, nameLocation: "middle", nameGap: 30, scale: true },
    yAxis: { type: "value", name: yName, min: 0, ...(yMax !== undefined ? { max: yMax } : {}) },
    series: series.map((s) => ({
      type: "line",
      name: s.name,
      data: s.data,
      showSymbol: false,
      lineStyle: { width: 1 },
    })),
  });
}

const SIZE_BUCKETS = (maxNodes: number): [number, number][] => {
  const b: [number, number][] = [[1, 1]];
  for (let lo = 2; lo <= maxNodes; lo *= 2) b.push([lo, lo * 2 - 1]);
  return b;
};

function waitBySize(runs: readonly LoadedRun[]): string {
  let maxNodes = 1;
  for (const r of runs) for (const n of r.schedule.nodes) if (n > maxNodes) maxNodes = n;
  const buckets = SIZE_BUCKETS(maxNodes);
  const series = runs.map((r) => {
    const sum = new Float64Array(buckets.length);
    const n = new Float64Array(buckets.length);
    const s = r.schedule;
    for (let i = 0; i < s.count; i++) {
      if (s.exit[i] !== 0) continue;
      const b = Math.min(buckets.length - 1, Math.floor(Math.log2(Math.max(1, s.nodes[i]))));
      sum[b] += s.begin[i] - s.submit[i];
      n[b]++;
    }
    return {
      type: "bar",
      name: r.files.label,
      data: [...sum].map((x, b) => n[b] > 0 ? Math.round(x / n[b]) : 0),
    };
  });
  return render({
    title: { text: "Mean wait by job size", left: "center", textStyle: { fontSize: 14 } },
    xAxis: {
      type: "category",
      name: "nodes",
      nameLocation: "middle",
      nameGap: 30,
      data: buckets.map(([lo, hi]) => lo === hi ? `${lo}` : `${lo}-${hi}`),
    },
    yAxis: { type: "value", name: "mean wait (s)" },
    series,
  });
}

// Node occupancy in [lo, hi): jobs running at `lo` are placed first, then
// each start takes the lowest free node numbers (nodes are interchangeable,
// so this is one valid picture of the allocation). A job on non-contiguous
// nodes is drawn as one rectangle per contiguous block.
function occupancy(r: LoadedRun, lo: number, hi: number): string {
  const s = r.schedule;
  const total = r.resources.totalNodes;
  const ids: number[] = [];
  for (let i = 0; i < s.count; i++) {
    if (s.begin[i] < hi && s.end[i] > lo && s.end[i] > s.begin[i]) ids.push(i);
  }
  ids.sort((a, b) => s.begin[a] - s.begin[b] || a - b);
  const shown = ids.slice(0, GANTT_JOBS);
  const ends: [number, number][] = []; // [end time, job] of placed jobs
  const owner = new Int32Array(total).fill(-1);
  const rects: [number, number, number, number, number][] = [];
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
      rects.push([t, Math.min(hi, s.end[j]), from, k, j]);
    }
    // Keep ends[e..] sorted by end time (binary insertion).
    let a = e, b = ends.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (ends[mid][0] <= s.end[j]) a = mid + 1;
      else b = mid;
    }
    ends.splice(a, 0, [s.end[j], j]);
  }
  const h = (x: number) => (x - lo) / 3600;
  const note = ids.length > shown.length
    ? ` (first ${shown.length} of ${ids.length} jobs)`
    : ` (${ids.length} jobs)`;
  return render({
    title: {
      text: `Node occupancy: ${r.files.label}, ${lo}..${hi} s${note}`,
      left: "center",
      textStyle: { fontSize: 14 },
    },
    legend: { show: false },
    xAxis: {
      type: "value",
      name: `hours from ${lo} s`,
      nameLocation: "middle",
      nameGap: 30,
      min: 0,
      max: h(hi),
    },
    yAxis: { type: "value", name: "node", min: 0, max: total },
    series: [{
      type: "custom",
      renderItem: (
        _params: unknown,
        api: {
          value: (i: number) => number;
          coord: (p: number[]) => number[];
          visual: (k: string) => string;
        },
      ) => {
        const [x0, y0] = api.coord([api.value(0), api.value(2)]);
        const [x1, y1] = api.coord([api.value(1), api.value(3)]);
        return {
          type: "rect",
          shape: { x: x0, y: y1, width: Math.max(0.5, x1 - x0), height: Math.max(0.5, y0 - y1) },
          style: { fill: PALETTE[api.value(4) % PALETTE.length], stroke: "#fff", lineWidth: 0.2 },
        };
      },
      encode: { x: [0, 1], y: [2, 3] },
      data: rects.map(([a, b, c, d, j]) => [h(a), h(b), c, d, j]),
    }],
  }, 420);
}

const PALETTE = ["#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452"];

/** Titles of the charts, in page order, before the per-run occupancy charts. */
export const CHART_TITLES = [
  "Utilization over time",
  "Queue length over time",
  "Wait time CDF",
  "Bounded slowdown CDF",
  "Mean wait by job size",
];

/** The summary table's metric columns, named as in the metrics glossary. */
export const SUMMARY_METRICS = [
  "jobs",
  "jobs_excluded",
  "wait_mean_s",
  "wait_p50_s",
  "wait_p95_s",
  "wait_max_s",
  "bsld_mean",
  "utilization",
  "makespan_s",
] as const satisfies readonly (keyof Metrics)[];

function renderHtml(runs: readonly LoadedRun[], window: readonly [number, number]): string {
  let lo = Infinity, hi = -Infinity;
  for (const r of runs) {
    const s = r.schedule;
    for (let i = 0; i < s.count; i++) {
      lo = Math.min(lo, s.submit[i]);
      hi = Math.max(hi, s.end[i]);
    }
  }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  const hours = (pts: [number, number][]) =>
    pts.map(([x, y]) => [(x - lo) / 3600, y] as [number, number]);
  const utilization = runs.map((r) => {
    const { time, allocated, totalNodes } = r.resources;
    const frac = allocated.map((a) => a / Math.max(1, totalNodes));
    return { name: r.files.label, data: hours(downsampleSteps(time, frac, lo, hi)) };
  });
  const queue = runs.map((r) => {
    const { t, v } = queueSteps(r.schedule);
    return { name: r.files.label, data: hours(downsampleSteps(t, v, lo, hi)) };
  });
  const figures = runs.map((r) => jobFigures(r.schedule));
  const charts = [
    lineChart(CHART_TITLES[0], "hours", "allocated / total nodes", utilization, "value", 1),
    lineChart(CHART_TITLES[1], "hours", "waiting jobs", queue),
    lineChart(
      CHART_TITLES[2],
      "wait (s)",
      "fraction of jobs",
      runs.map((r, i) => ({ name: r.files.label, data: cdf(figures[i].waits) })),
      "value",
      1,
    ),
    lineChart(
      CHART_TITLES[3],
      "bounded slowdown (log)",
      "fraction of jobs",
      runs.map((r, i) => ({ name: r.files.label, data: cdf(figures[i].slowdowns) })),
      "log",
      1,
    ),
    waitBySize(runs),
    ...runs.map((r) => occupancy(r, window[0], window[1])),
  ];
  const g = (x: number | null) => x === null ? "-" : formatG(x);
  const rows = runs.map((r) => {
    const m = r.summary.metrics;
    return `<tr><td class="l">${esc(r.files.label)}</td>${
      SUMMARY_METRICS.map((k) => `<td>${k === "jobs" ? m.jobs : g(m[k])}</td>`).join("")
    }<td>${r.summary.totalNodes}</td></tr>`;
  });
  const sources = runs.map((r) =>
    `<li>${esc(r.files.label)}: ${esc(r.files.schedule)}, ${esc(r.files.resources)}</li>`
  );
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    "<title>evtsim report</title>",
    "<style>body{font-family:sans-serif;margin:20px;max-width:1000px}" +
    "table{border-collapse:collapse}td,th{padding:3px 8px;text-align:right;" +
    "border-bottom:1px solid #ddd}.l{text-align:left}figure{margin:10px 0}</style>",
    "</head><body>",
    "<h1>evtsim report</h1>",
    '<table id="summary"><thead><tr><th class="l">run</th>' +
    SUMMARY_METRICS.map((k) => `<th>${k}</th>`).join("") + "<th>nodes</th></tr></thead><tbody>",
    ...rows,
    "</tbody></table>",
    `<p>Summary: metrics as in the README's metrics glossary (bounded slowdown τ = ${
      formatG(runs[0]?.summary.metrics.bsld_tau_s ?? 10)
    } s); the slowdown CDF uses τ = 10 s. Time series are down-sampled to ${BUCKETS} columns ` +
    `(minimum and maximum per column); CDFs are drawn at up to ${CDF_POINTS} quantiles.</p>`,
    ...charts.map((svg) => `<figure>${svg}</figure>`),
    "<h2>Runs</h2><ul>",
    ...sources,
    "</ul></body></html>",
    "",
  ].join("\n");
}

function esc(s: string): string {
  return s.replace(
    /[&<>"]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!,
  );
}

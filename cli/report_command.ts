// `evtsim report RUN... --out report.html`: one self-contained HTML file
// comparing finished runs. Every chart is an inline SVG rendered here by
// ECharts' server-side renderer; the page has no script and loads nothing.
// Time series are drawn as rolling means (see _report_figures.ts).

import * as echarts from "echarts";
import { EvtsimError } from "../core/errors.ts";
import { AtomicOutputSet } from "../io/atomic_writer.ts";
import { parseMeasureWindow, percentile } from "../io/stats_json.ts";
import {
  type Breakdowns,
  computeMetrics,
  DEFAULT_BSLD_TAU,
  type Fairness,
  machineMetrics,
  type Metrics,
  type MetricsJob,
  type MetricsOptions,
  utilizationColumns,
} from "../core/metrics.ts";
import type { ResourceMetrics } from "../core/_metrics_resources.ts";
import { readRunResources, resourceColumnNames, utilizationLines } from "./_report_machine.ts";
import { computeBreakdowns, parseTrim } from "../core/_metrics_breakdowns.ts";
import { breakdownTables } from "./_report_breakdowns.ts";
import { formatG } from "./report.ts";
import { VERSION } from "./version.ts";
import {
  allocatedLayout,
  defaultMeanWindow,
  formatDate,
  formatNumber,
  ganttLayout,
  optionsLine,
  overtook,
  rollingMean,
  type TraceProvenance,
  traceProvenance,
  windowWords,
} from "./_report_figures.ts";
import type { Console } from "./_console.ts";
import { defaultResourceFile } from "./_output_names.ts";
import {
  jobFigures,
  readResourceCsv,
  readScheduleCsv,
  type ResourceColumns,
  type ScheduleColumns,
} from "./_run_files.ts";
import { optionHelp, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import { checkOutputPath, type NamedPath } from "./paths.ts";

export { optionsLine };

/** One run to report: a label and its two files (three on a machine). */
export interface RunFiles {
  readonly label: string;
  readonly schedule: string;
  readonly resources: string;
  /** A machine run's stats JSON (`simulate --stats_json`): its machine figures. */
  readonly stats?: string;
  /** A machine run's figures, given directly (simulate --report, compare --report). */
  readonly resourceMetrics?: ResourceMetrics;
}

/** Where the report's runs came from, as the page states it. */
export interface Provenance {
  readonly trace?: TraceProvenance;
  /** Per run (in order): the options it was simulated with, when known. */
  readonly runOptions?: readonly (string | undefined)[];
  /** When the report was made (ISO 8601, UTC). */
  readonly date: string;
  /** The rolling-mean window (seconds). */
  readonly meanWindow: number;
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
  /** The trace the runs simulated: named with its SHA-256; its SWF `UnixStartTime` dates the axes. */
  readonly trace?: string;
  /** Per run (in order): the options it was simulated with, shown instead of its file names. */
  readonly runOptions?: readonly (string | undefined)[];
  /** The rolling-mean window of utilization and queue length (s; default from the span). */
  readonly meanWindow?: number;
  /** Also write every figure alone as NAME.svg and NAME.png into this folder. */
  readonly figures?: string;
  /** The report's date (default: now); fixed by tests and the figures task. */
  readonly date?: Date;
}

const WIDTH = 960;
/** Points of a CDF as drawn (evenly spaced quantiles). */
const CDF_POINTS = 500;
/** Most jobs drawn in an occupancy chart (the earliest-starting ones). */
const GANTT_JOBS = 4000;

/** `evtsim report`'s options. */
export const REPORT_OPTIONS = [
  {
    name: "out",
    kind: "string",
    short: "o",
    placeholder: "FILE",
    help: "the HTML file to write (required)",
  },
  {
    name: "window",
    kind: "string",
    placeholder: "START:END",
    help: "node-occupancy window in trace seconds (default: one day from the first run's " +
      "median job start, or the whole run when shorter)",
  },
  {
    name: "bsld_tau",
    kind: "string",
    placeholder: "S",
    help: "bounded-slowdown threshold tau of the summary table, in seconds (default 10)",
  },
  {
    name: "measure_window",
    kind: "string",
    placeholder: "START:END",
    help: "the summary table measures only jobs submitted in [START, END) seconds",
  },
  {
    name: "trim",
    kind: "string",
    placeholder: "WARMUP,COOLDOWN",
    help: "instead of --measure_window: leave out the first WARMUP and last COOLDOWN jobs " +
      "in submit order (fractions in [0, 1) or whole numbers of jobs)",
  },
  {
    name: "trace",
    kind: "string",
    placeholder: "FILE",
    help: "the trace the runs simulated: the page names it with its SHA-256, and an SWF " +
      "header's UnixStartTime puts calendar dates (UTC) on the time axes",
  },
  {
    name: "mean_window",
    kind: "string",
    placeholder: "S",
    help: "window of the utilization and queue-length rolling means in seconds (default: " +
      "the largest of 1 min, 5 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 1 d, 2 d, 7 d, 30 d " +
      "that is at most 1/50 of the span)",
  },
  {
    name: "figures",
    kind: "string",
    placeholder: "DIR",
    help: "also write every figure alone as DIR/NAME.svg and DIR/NAME.png (2,100 pixels " +
      "wide: 7 in at 300 dpi)",
  },
  {
    name: "allow_mixed",
    kind: "flag",
    help: "allow runs of different traces (different submitted jobs) in one report",
  },
  { name: "help", kind: "flag", short: "h", help: "show this help" },
] as const satisfies readonly OptionSpec[];

export function reportHelp(): string {
  return [
    "usage: evtsim report RUN... --out report.html [--trace FILE] [--mean_window S]",
    "                     [--figures DIR] [--window START:END] [--allow_mixed]",
    "",
    "Writes one self-contained HTML file (inline SVG charts, no script, no network)",
    "comparing finished runs: utilization and queue length over time (rolling",
    "means, one line per run), wait and bounded-slowdown CDFs (log axes), mean wait",
    "by job size, node occupancy in a window (a Gantt chart per run), a summary",
    "table and the provenance (trace and its SHA-256, options per run, evtsim",
    "version, date).",
    "",
    "A RUN is a schedule CSV written by 'evtsim simulate' (--outfile), with its",
    "resource CSV (--resource_trace) found by simulate's default name: X.csv ->",
    "X_resources.csv (e.g. jobs_sim.csv -> jobs_sim_resources.csv). Give both as",
    "SCHEDULE.csv,RESOURCES.csv when the resource file has another name. Prefix",
    "LABEL= to name a run (default: the schedule file's name). Both files are read",
    "strictly: every row has the header's fields and numbers where numbers belong;",
    "the first bad row is one FILE:LINE error.",
    "",
    "A run on a --machine adds its stats JSON (simulate --stats_json, measured with",
    "the report's --measure_window and --trim): SCHEDULE.csv[,RESOURCES.csv],STATS.json.",
    "Its utilization is then the machine's node equivalents and the summary adds",
    "utilization_<resource> columns, as simulate's stats JSON and compare give them.",
    "When its resource CSV has the per-resource columns (simulate --resource_columns",
    "per_resource), the utilization chart draws one line per resource (used units /",
    "the machine's capacity) instead of the whole-node line (0 for demand jobs).",
    "",
    "Utilization and queue length are time-weighted means over the trailing",
    "--mean_window, at 480 times; CDFs are drawn at 500 quantiles. The Gantt",
    "chart draws each job on its allocated nodes when the schedule has the nodes",
    "column (simulate --extended_output; compare --report asks for it); without",
    "it the node numbers are a drawing layout (first fit in start order). A job",
    "is orange when it started before an earlier-submitted job (backfilled or",
    "reordered).",
    "",
    "options:",
    ...optionHelp(REPORT_OPTIONS),
  ].join("\n");
}

// --bsld_tau, --measure_window and --trim of the report command.
function reportMetricsOptions(tau: unknown, window: unknown, trim: unknown): MetricsOptions {
  const t = typeof tau === "string" ? Number(tau) : undefined;
  if (t !== undefined && !(t > 0 && Number.isFinite(t))) {
    throw new EvtsimError("usage", `--bsld_tau: expected seconds > 0, got '${tau}'`);
  }
  if (typeof window === "string" && typeof trim === "string") {
    throw new EvtsimError("usage", "--trim and --measure_window: give one of them, not both");
  }
  return {
    ...(t !== undefined ? { bsldTau: t } : {}),
    ...(typeof window === "string" ? { measureWindow: parseMeasureWindow(window) } : {}),
    ...(typeof trim === "string" ? { trim: parseTrim(trim) } : {}),
  };
}

/** Parses one RUN argument: `[LABEL=]SCHEDULE[,RESOURCES][,STATS.json]`. */
export function parseRun(arg: string): RunFiles {
  const eq = arg.indexOf("=");
  const label = eq > 0 && !arg.slice(0, eq).includes("/") ? arg.slice(0, eq) : undefined;
  const parts = (label === undefined ? arg : arg.slice(eq + 1)).split(",");
  // A machine run's stats JSON comes last, named by its .json.
  const stats = parts.length > 1 && /\.json$/i.test(parts[parts.length - 1])
    ? parts.pop()
    : undefined;
  const [schedule, resources, extra] = parts;
  if (extra !== undefined || schedule === "") {
    throw new EvtsimError(
      "usage",
      `'${arg}': expected SCHEDULE.csv or SCHEDULE.csv,RESOURCES.csv (a machine run: ,STATS.json after them)`,
    );
  }
  return {
    label: label ?? schedule.replace(/^.*\//, "").replace(/\.csv$/i, ""),
    schedule,
    resources: resources ?? defaultResourceFile(schedule),
    ...(stats === undefined ? {} : { stats }),
  };
}

/** Runs `evtsim report ARGS`; returns the exit code. */
export async function reportCommand(args: readonly string[], con: Console): Promise<number> {
  const a = parseOptions(args, REPORT_OPTIONS, { command: "report", dialect: "plain" });
  if (a.options.get("help") === true) {
    con.out(reportHelp());
    return 0;
  }
  const out = a.options.get("out");
  if (typeof out !== "string") {
    throw new EvtsimError("usage", "--out FILE is required (see 'evtsim report --help')");
  }
  if (a.positional.length === 0) {
    throw new EvtsimError("usage", "no run given (see 'evtsim report --help')");
  }
  const runs = a.positional.map(parseRun);
  const w = a.options.get("window");
  const window = typeof w === "string" ? parseWindow(w) : undefined;
  const mw = a.options.get("mean_window");
  const meanWindow = typeof mw === "string" ? parseMeanWindow(mw) : undefined;
  const trace = a.options.get("trace");
  const figures = a.options.get("figures");
  const t0 = performance.now();
  await writeReport(runs, out, {
    window,
    ...(meanWindow !== undefined ? { meanWindow } : {}),
    ...(typeof trace === "string" ? { trace } : {}),
    ...(typeof figures === "string" ? { figures } : {}),
    allowMixed: a.options.get("allow_mixed") === true,
    metrics: reportMetricsOptions(
      a.options.get("bsld_tau"),
      a.options.get("measure_window"),
      a.options.get("trim"),
    ),
  });
  con.out(
    `Report written to: ${out} (${runs.length} run${runs.length === 1 ? "" : "s"}, ${
      formatG((performance.now() - t0) / 1000, 3)
    } s)`,
  );
  return 0;
}

function parseMeanWindow(s: string): number {
  const n = /^\s*\d+(?:\.\d+)?\s*$/.test(s) ? Number(s) : NaN;
  if (!(n > 0)) {
    throw new EvtsimError("usage", `--mean_window: expected seconds greater than 0, got '${s}'`);
  }
  return n;
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
  /** Per queue and size class, and per user with the extended columns. */
  readonly breakdowns: Breakdowns;
  /** Fairness across users (none without the extended columns' trace_user). */
  readonly fairness: Fairness;
  /** A machine run's figures (node equivalents, per resource and partition). */
  readonly resources?: ResourceMetrics;
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
      ...(f.stats === undefined ? [] : [{ what: "a run's stats JSON", path: f.stats }]),
    ]),
    ...(options.inputs ?? []),
  ]);
  const runs: LoadedRun[] = [];
  for (const f of files) {
    const schedule = await readScheduleCsv(f.schedule);
    const resources = await readResourceCsv(f.resources);
    let summary = summarizeRun(schedule, resources, options.metrics, f.resourceMetrics);
    if (f.stats !== undefined && f.resourceMetrics === undefined) {
      const jobs = summary.metrics.jobs;
      const machine = await readRunResources(f.stats, jobs, options.metrics);
      summary = {
        ...summary,
        metrics: machineMetrics(summary.metrics, machine),
        resources: machine,
      };
    }
    runs.push({ files: f, schedule, resources, summary });
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
  const trace = options.trace !== undefined ? await traceProvenance(options.trace) : undefined;
  const { figures, meanWindow } = renderFigures(
    runs,
    options.window ?? defaultWindow(runs[0].schedule),
    { meanWindow: options.meanWindow, unixStartTime: trace?.unixStartTime },
  );
  const html = renderHtml(runs, figures, {
    ...(trace !== undefined ? { trace } : {}),
    runOptions: options.runOptions,
    date: (options.date ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z"),
    meanWindow,
  });
  const pngs = options.figures !== undefined
    ? await (await import("./_figure_png.ts")).svgsToPng(
      figures.map((f) => f.svg),
      figures.map((f) => f.name),
    )
    : [];
  const output = new AtomicOutputSet();
  try {
    output.open(out).text(html);
    for (const [i, f] of options.figures !== undefined ? figures.entries() : []) {
      output.open(`${options.figures}/${f.name}.svg`).text(f.svg);
      output.open(`${options.figures}/${f.name}.png`).bytes(pngs[i]);
    }
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

/**
 * The run's metric set from its files (as `simulate --stats_json` computes it
 * from its rows); on a machine, with its figures, the utilization is the node
 * equivalents (`machineMetrics`).
 */
export function summarizeRun(
  s: ScheduleColumns,
  r: ResourceColumns,
  options: MetricsOptions = {},
  machine?: ResourceMetrics,
): RunSummary {
  function* jobs(): Generator<MetricsJob> {
    for (let i = 0; i < s.count; i++) {
      yield {
        submitTime: s.submit[i],
        beginTime: s.begin[i],
        endTime: s.end[i],
        numNodes: s.nodes[i],
        ...(s.exit[i] === 0 ? {} : { outcome: "ended" }),
        ...(s.queue?.[i] ? { queue: s.queue[i] } : {}),
        ...(s.user?.[i] ? { user: s.user[i] } : {}),
      };
    }
  }
  return {
    metrics: machineMetrics(computeMetrics(jobs(), r.capacity, options), machine),
    totalNodes: r.totalNodes,
    ...computeBreakdowns(jobs(), options, options.bsldTau ?? DEFAULT_BSLD_TAU),
    ...(machine === undefined ? {} : { resources: machine }),
  };
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
    grid: { left: 80, right: 60, top: 70, bottom: 55 },
    legend: { top: 30, itemGap: 24 },
    ...option,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

/** How trace seconds are drawn on a time axis: calendar dates, or hours from `base`. */
interface TimeAxis {
  readonly at: (t: number) => number;
  readonly axis: (lo: number, hi: number) => Record<string, unknown>;
}

// A tick interval of whole hours or days giving at most about 6 ticks.
function dateTickInterval(span: number): number {
  for (const h of [1, 2, 3, 6, 12]) if (span / (h * 3600) <= 6) return h * 3600;
  return Math.max(1, Math.ceil(span / 86400 / 6)) * 86400;
}

function timeAxis(base: number, unixStartTime: number | undefined): TimeAxis {
  if (unixStartTime !== undefined) {
    return {
      at: (t) => unixStartTime + t,
      axis: (lo, hi) => ({
        type: "value",
        name: "date (UTC)",
        nameLocation: "middle",
        nameGap: 32,
        // Bounded to the data; a tick every whole number of hours or days.
        min: unixStartTime + lo,
        max: unixStartTime + hi,
        interval: dateTickInterval(hi - lo),
        axisLabel: {
          formatter: (v: number) => formatDate(v, dateTickInterval(hi - lo) < 86400),
        },
      }),
    };
  }
  return {
    at: (t) => (t - base) / 3600,
    axis: (lo, hi) => ({
      type: "value",
      name: `hours since the first submission (t = ${formatNumber(base)} s)`,
      nameLocation: "middle",
      nameGap: 32,
      min: (lo - base) / 3600,
      max: (hi - base) / 3600,
      axisLabel: { formatter: (v: number) => formatNumber(v) },
    }),
  };
}

const numberAxis = (extra: Record<string, unknown>) => ({
  axisLabel: { formatter: (v: number) => formatNumber(v) },
  nameLocation: "middle",
  ...extra,
});

function lineChart(
  title: string,
  xAxis: Record<string, unknown>,
  yAxis: Record<string, unknown>,
  series: { name: string; data: [number, number][] }[],
): string {
  return render({
    title: { text: title, left: "center", textStyle: { fontSize: 14 } },
    xAxis,
    yAxis,
    series: series.map((s) => ({
      type: "line",
      name: s.name,
      data: s.data,
      showSymbol: false,
      lineStyle: { width: 1.5 },
    })),
  });
}

// A CDF on a log x axis bounded to the data; values below `floor` are drawn at it.
function cdfChart(
  title: string,
  xName: string,
  floor: number,
  runs: readonly LoadedRun[],
  values: readonly Float64Array[],
): string {
  let lo = Infinity, hi = -Infinity;
  const series = runs.map((r, i) => {
    const data = cdf(values[i]).map(([x, y]) => [Math.max(floor, x), y] as [number, number]);
    for (const [x] of data) [lo, hi] = [Math.min(lo, x), Math.max(hi, x)];
    return { name: r.files.label, data };
  });
  if (!Number.isFinite(lo)) [lo, hi] = [floor, floor * 10];
  const min = 10 ** Math.floor(Math.log10(lo));
  const max = Math.max(10 ** Math.ceil(Math.log10(hi)), min * 10);
  return lineChart(
    title,
    numberAxis({ type: "log", name: xName, nameGap: 32, min, max, logBase: 10 }),
    numberAxis({ type: "value", name: "fraction of jobs", nameGap: 45, min: 0, max: 1 }),
    series,
  );
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
    yAxis: numberAxis({ type: "value", name: "mean wait (s)", nameLocation: "end" }),
    series,
  });
}

// Node occupancy in [lo, hi) as a Gantt chart (node x time), coloured by
// whether the job overtook an earlier-submitted one (see overtook). With the
// schedule's nodes column, each job on the nodes the run gave it (one row per
// node, named); without it, the drawing layout of ganttLayout (first fit in
// start order, not the scheduler's own allocation, which the file lacks).
function occupancy(r: LoadedRun, lo: number, hi: number, time: TimeAxis): string {
  const hostlists = r.schedule.hostlists;
  const allocated = hostlists !== undefined
    ? allocatedLayout({ ...r.schedule, hostlists }, lo, hi, GANTT_JOBS)
    : undefined;
  const total = r.resources.totalNodes;
  const { rects, jobs, shown } = allocated ?? ganttLayout(r.schedule, total, lo, hi, GANTT_JOBS);
  const ahead = overtook(r.schedule);
  const how = allocated !== undefined ? ", nodes as allocated" : "";
  const note = jobs > shown
    ? ` (first ${formatNumber(shown)} of ${formatNumber(jobs)} jobs${how})`
    : ` (${formatNumber(jobs)} jobs${how})`;
  type Api = {
    value: (i: number) => number;
    coord: (p: number[]) => number[];
    size: (p: number[]) => number[];
  };
  // Named rows are categories (row k is centred on k); numbered rows span [k, k + 1).
  const box = (api: Api) => {
    if (allocated === undefined) {
      const [x0, y0] = api.coord([api.value(0), api.value(2)]);
      const [x1, y1] = api.coord([api.value(1), api.value(3)]);
      return { x0, x1, top: y1, bottom: y0 };
    }
    const row = api.size([0, 1])[1];
    const [x0, y0] = api.coord([api.value(0), api.value(2)]);
    const [x1, y1] = api.coord([api.value(1), api.value(3) - 1]);
    return { x0, x1, top: y1 - row / 2, bottom: y0 + row / 2 };
  };
  return render({
    title: {
      text: `Node occupancy: ${r.files.label}${note}`,
      left: "center",
      textStyle: { fontSize: 14 },
    },
    xAxis: time.axis(lo, hi),
    yAxis: allocated !== undefined
      ? {
        type: "category",
        name: "node",
        nameLocation: "middle",
        nameGap: 65,
        data: allocated.rows,
      }
      : numberAxis({ type: "value", name: "node", nameGap: 45, min: 0, max: total }),
    series: GANTT_KINDS.map((kind, k) => ({
      type: "custom",
      name: kind.name,
      color: kind.colour,
      renderItem: (_params: unknown, api: Api) => {
        const { x0, x1, top, bottom } = box(api);
        return {
          type: "rect",
          shape: {
            x: x0,
            y: top,
            width: Math.max(0.5, x1 - x0),
            height: Math.max(0.5, bottom - top),
          },
          style: { fill: kind.colour, stroke: "#fff", lineWidth: 0.4 },
        };
      },
      encode: { x: [0, 1], y: [2, 3] },
      data: rects.filter((g) => ahead[g.job] === k).map((g) => [
        time.at(g.start),
        time.at(g.end),
        g.fromNode,
        g.toNode,
        g.job,
      ]),
    })),
  }, 420);
}

// The Gantt chart's colours: the policy's decision, as the schedule shows it.
const GANTT_KINDS = [
  { name: "in submission order", colour: "#5470c6" },
  { name: "overtook an earlier job", colour: "#fc8452" },
];

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

/** One figure of the report: a file name (no extension), its title and its SVG. */
export interface Figure {
  readonly name: string;
  readonly title: string;
  readonly svg: string;
}

/** Every figure of the report, in page order. */
function renderFigures(
  runs: readonly LoadedRun[],
  window: readonly [number, number],
  options: { meanWindow?: number; unixStartTime?: number },
): { figures: Figure[]; meanWindow: number } {
  let lo = Infinity, hi = -Infinity;
  for (const r of runs) {
    const s = r.schedule;
    for (let i = 0; i < s.count; i++) {
      lo = Math.min(lo, s.submit[i]);
      hi = Math.max(hi, s.end[i]);
    }
  }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  const meanWindow = options.meanWindow ?? defaultMeanWindow(hi - lo);
  const time = timeAxis(lo, options.unixStartTime);
  const onAxis = (pts: [number, number][]) =>
    pts.map(([x, y]) => [time.at(x), y] as [number, number]);
  // On a machine with per-resource columns: one line per resource (cli/_report_machine.ts).
  const lines = runs.map((r) => utilizationLines(r.files.label, r.resources, r.summary.resources));
  const perResource = lines.some((l, i) => l[0].name !== runs[i].files.label);
  const utilization = lines.flatMap((ls, i) =>
    ls.map((l) => ({
      name: l.name,
      data: onAxis(rollingMean(runs[i].resources.time, l.fraction, lo, hi, meanWindow)),
    }))
  );
  const queue = runs.map((r) => {
    const { t, v } = queueSteps(r.schedule);
    return { name: r.files.label, data: onAxis(rollingMean(t, v, lo, hi, meanWindow)) };
  });
  const stats = runs.map((r) => jobFigures(r.schedule));
  const mean = `rolling mean over ${windowWords(meanWindow)}`;
  const yAxis = (name: string, extra: Record<string, unknown>) =>
    numberAxis({ type: "value", name, nameGap: 50, ...extra });
  const figures: Figure[] = [
    {
      name: "utilization",
      title: CHART_TITLES[0],
      svg: lineChart(
        `${CHART_TITLES[0]} (${mean})`,
        time.axis(lo, hi),
        yAxis(
          perResource ? "used / capacity (nodes or resource units)" : "allocated / total nodes",
          { min: 0, max: 1 },
        ),
        utilization,
      ),
    },
    {
      name: "queue_length",
      title: CHART_TITLES[1],
      svg: lineChart(
        `${CHART_TITLES[1]} (${mean})`,
        time.axis(lo, hi),
        yAxis("waiting jobs", { min: 0 }),
        queue,
      ),
    },
    {
      name: "wait_cdf",
      title: CHART_TITLES[2],
      svg: cdfChart(
        CHART_TITLES[2],
        "wait (s, log scale; waits under 1 s drawn at 1 s)",
        1,
        runs,
        stats.map((f) => f.waits),
      ),
    },
    {
      name: "slowdown_cdf",
      title: CHART_TITLES[3],
      svg: cdfChart(
        CHART_TITLES[3],
        "bounded slowdown (τ = 10 s, log scale)",
        1,
        runs,
        stats.map((f) => f.slowdowns),
      ),
    },
    { name: "wait_by_size", title: CHART_TITLES[4], svg: waitBySize(runs) },
    ...runs.map((r, i) => ({
      name: `gantt_${i + 1}_${r.files.label.replace(/[^\w.-]+/g, "_")}`,
      title: `Node occupancy: ${r.files.label}`,
      svg: occupancy(r, window[0], window[1], time),
    })),
  ];
  return { figures, meanWindow };
}

function renderHtml(
  runs: readonly LoadedRun[],
  figures: readonly Figure[],
  provenance: Provenance,
): string {
  const g = (x: number | null) => x === null ? "-" : formatG(x);
  // A machine run's per-resource utilization (none of these columns on whole nodes).
  const perResource = resourceColumnNames(runs.map((r) => r.summary.resources));
  const rows = runs.map((r) => {
    const m = r.summary.metrics;
    const u = r.summary.resources === undefined ? {} : utilizationColumns(r.summary.resources);
    return `<tr><td class="l">${esc(r.files.label)}</td>${
      SUMMARY_METRICS.map((k) => `<td>${k === "jobs" ? m.jobs : g(m[k])}</td>`).join("")
    }${
      perResource.map((k) => `<td>${g(u[`utilization_${k}`] ?? null)}</td>`).join("")
    }<td>${r.summary.totalNodes}</td></tr>`;
  });
  const t = provenance.trace;
  const about = [
    "<h2>Provenance</h2>",
    '<dl id="provenance">',
    t === undefined
      ? "<dt>trace</dt><dd>not given (see --trace)</dd>"
      : `<dt>trace</dt><dd>${
        esc(t.name)
      }</dd><dt>trace SHA-256</dt><dd><code>${t.sha256}</code></dd>` +
        (t.unixStartTime !== undefined
          ? `<dt>UnixStartTime</dt><dd>${t.unixStartTime} (${
            formatDate(t.unixStartTime, true)
          } UTC)</dd>`
          : ""),
    `<dt>evtsim version</dt><dd>${esc(VERSION)}</dd>`,
    `<dt>date</dt><dd>${esc(provenance.date)}</dd>`,
    `<dt>rolling-mean window</dt><dd>${formatNumber(provenance.meanWindow)} s</dd>`,
    "</dl>",
    '<table id="runs"><thead><tr><th class="l">run</th><th class="l">options</th></tr></thead>' +
    "<tbody>",
    ...runs.map((r, i) => {
      const o = provenance.runOptions?.[i];
      const what = o !== undefined
        ? esc(o)
        : `${esc(r.files.schedule)}, ${esc(r.files.resources)} (options not recorded)`;
      return `<tr class="run"><td class="l">${
        esc(r.files.label)
      }</td><td class="l"><code>${what}</code></td></tr>`;
    }),
    "</tbody></table>",
  ];
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
    SUMMARY_METRICS.map((k) => `<th>${k}</th>`).join("") +
    perResource.map((k) => `<th>utilization_${esc(k)}</th>`).join("") +
    "<th>nodes</th></tr></thead><tbody>",
    ...rows,
    "</tbody></table>",
    `<p>Summary: metrics as in the metrics glossary, docs/metrics.md (bounded slowdown τ = ${
      formatG(runs[0]?.summary.metrics.bsld_tau_s ?? 10)
    } s); the slowdown CDF uses τ = 10 s. Utilization and queue length are time-weighted ` +
    `rolling means over ${windowWords(provenance.meanWindow)}; CDFs are drawn at up to ` +
    `${CDF_POINTS} quantiles.</p>`,
    ...figures.map((f) => `<figure>${f.svg}</figure>`),
    ...breakdownTables(runs.map((r) => ({ label: r.files.label, ...r.summary }))),
    ...about,
    "</body></html>",
    "",
  ].join("\n");
}

function esc(s: string): string {
  return s.replace(
    /[&<>"]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!,
  );
}

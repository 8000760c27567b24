// `evtsim compare TRACE [--policies LIST] [simulate options]`: the same trace
// under each policy, one row per policy. Each policy is one `simulate` run
// (the very same command, with the same options plus the policy), into a
// temporary folder (in memory, statistics JSON only, without --report); its
// numbers are read back from that run's statistics (and for a report its
// schedule), so a row can never disagree with `evtsim simulate` run by hand.
// The runs go on side by side on the cores, here and in workers, over the
// trace parsed once here (cli/_compare_pool.ts, cli/_compare_jobs.ts; a
// worker parses it itself only when it cannot be sent); with one core (or --jobs 1)
// they run one after another here, over one parse, every run after the first
// warm.

import { EvtsimError } from "../core/errors.ts";
import {
  type Fairness,
  FAIRNESS_NAMES,
  METRIC_NAMES,
  type Metrics,
  type MetricsOptions,
  type ResourceMetrics,
  utilizationColumns,
} from "../core/metrics.ts";
import { parseTrim } from "../core/_metrics_breakdowns.ts";
import { parseMeasureWindow } from "../io/stats_json.ts";
import { policyRegistry } from "./policy_module.ts";
import { temporaryMade, temporaryReleased } from "../io/_temporaries.ts";
import { formatG } from "./report.ts";
import type { Console } from "./simulate.ts";
import { inputsOf, simulateCommand, sourcesOf } from "./simulate.ts";
import { parseCommandLineAsync } from "./options.ts";
import { optionHelp, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import { checkOutputPath, type NamedPath } from "./paths.ts";
import { optionsLine } from "./_report_figures.ts";
import { TraceCache } from "./_trace_cache.ts";
import { type SharedTrace, shareTrace } from "./_compare_jobs.ts";
import { figuresJson, KeepOneOutput } from "./_cell_outputs.ts";
import type { CompareTask } from "./_compare_worker.ts";
import type { RunOutput } from "./_compare_pool.ts";
import { CONSERVATIVE_NOTE, isDrEvtConservative } from "./_policy_notes.ts";
import { parsePolicies, type Policy } from "./_compare_policies.ts";

/** One policy's figures, as the table and `--json` show them. */
export interface PolicySummary {
  readonly policy: string;
  /** The run's metric set, from its stats JSON (core/metrics.ts). */
  readonly metrics: Metrics;
  /** The run's fairness figures, from its stats JSON. */
  readonly fairness: Fairness;
  /** The machine size the run used (the option, or the trace's header). */
  readonly totalNodes: number;
  /**
   * On a machine (`--machine`): each resource's utilization by column name
   * (`utilization_gpus`, ...), from the stats JSON's `resources.by_resource`.
   */
  readonly byResource?: Readonly<Record<string, number | null>>;
  /** With a power model (docs/power.md): the run's energy, its stats JSON's `energy.total`. */
  readonly energy?: number;
  readonly simulationSeconds: number;
}

/** The admission policy `--external_command` decides for. */
const EXTERNAL = "external";

// Options of simulate that compare sets itself for every run.
const OWN = new Set([
  "outfile",
  "o",
  "resource_trace",
  "R",
  "stats_json",
  "backfill_policy",
  "b",
  "admission",
  "record",
  "decisions",
  "decisions_detail",
  "submission_stats",
  "verbose",
  "v",
  "infile_list",
  "L",
]);

/** compare's own options; every other word is simulate's (cli/option_table.ts) and goes to each run. */
export const COMPARE_OPTIONS = [
  {
    name: "policies",
    kind: "string",
    placeholder: "LIST",
    help: [
      "comma-separated policies: an admission (backfill) policy name, or",
      "PICKER+ADMISSION (e.g. none,easy,conservative,sjf+easy); names come from",
      "the policy registry (with --policy_module, its policies too).",
      "Default: every registered admission policy. A plain admission name",
      "uses --picker when given.",
      ...CONSERVATIVE_NOTE,
      "The table marks its rows with '*' and says so under it.",
    ].join("\n        "),
  },
  { name: "json", kind: "flag", help: "print the rows as a JSON array instead of the table" },
  {
    name: "jobs",
    kind: "int",
    min: 1,
    expects: "a positive integer",
    placeholder: "N",
    help: "policies simulated at once, each worker parsing the trace once (default: the\n" +
      "        number of cores); the rows are the same bytes whatever N is",
  },
  {
    name: "report",
    kind: "string",
    placeholder: "FILE",
    help: "also write an HTML report of every policy's run (see 'evtsim help report')",
  },
  {
    name: "external_command",
    kind: "string",
    placeholder: "CMD",
    help: "a scheduler of your own in any language: the policy 'external' (or\n" +
      "        PICKER+external) runs CMD as simulate --admission external does, one\n" +
      "        round per line each way (docs/external-schedulers.md); 'external' is\n" +
      "        then in the default list too",
  },
  { name: "help", short: "h", kind: "flag", help: "show this help" },
] as const satisfies readonly OptionSpec[];

export function compareHelp(): string {
  return [
    "usage: evtsim compare TRACE [--policies LIST] [--json] [--report FILE] [simulate options]",
    "",
    "Simulates TRACE once per policy, with the same simulate options (e.g. -n 128,",
    "--queues FILE, --picker NAME, --swf_unit nodes), and prints one row per policy:",
    "jobs, wait mean / p50 / p95 / max (s), mean bounded slowdown, utilization,",
    "makespan (s) and simulation time (s), named as in the metrics glossary",
    "(docs/metrics.md); --json gives total_nodes (the size the run used), every metric and the",
    "fairness columns (users, jain_bsld, worst_user, worst_user_bsld_mean). On a machine",
    "(--machine FILE) utilization counts node equivalents (on each node a job held, its",
    "largest fraction of any resource), and utilization_<resource> columns (cores, gpus,",
    "...: each resource's utilization) follow it in the table and --json.",
    "--bsld_tau S and --measure_window START:END or --trim WARMUP,COOLDOWN (simulate",
    "options) set how they are measured. One progress line per policy goes to stderr",
    "as it finishes (in the order of --policies).",
    "",
    "options:",
    ...optionHelp(COMPARE_OPTIONS),
    "",
    "Not accepted here (compare sets them per run): --outfile, --resource_trace,",
    "--stats_json, --backfill_policy, --admission, --record, --decisions,",
    "--submission_stats, --verbose, --infile_list.",
  ].join("\n");
}

interface CompareArgs {
  policies?: string;
  jobs?: number;
  json: boolean;
  report?: string;
  picker?: string;
  policyModule?: string;
  /** The command that decides for the policy `external` (simulate's --external_command). */
  externalCommand?: string;
  /** Everything else, in the order given: the trace and simulate's options. */
  rest: string[];
  /** The files the runs read (cli/paths.ts): no output of compare may be one. */
  inputs: NamedPath[];
}

// compare's options read by the one parser, simulate's kept in order for the
// runs (and read by simulate's parser for the picker, the policy module and
// the input files), and the ones compare sets itself refused.
async function splitArgs(args: readonly string[]): Promise<CompareArgs | "help"> {
  const own = parseOptions(args, COMPARE_OPTIONS, {
    command: "compare",
    dialect: "drevt",
    keepUnknown: true,
  });
  if (own.options.get("help") === true) return "help";
  const rest = own.positional;
  for (const a of rest) {
    const m = /^--?([A-Za-z][\w-]*)(?:=.*)?$/.exec(a);
    if (m !== null && OWN.has(m[1].replaceAll("-", "_"))) {
      throw new EvtsimError(
        "usage",
        `compare sets '${a.split("=")[0]}' itself for each policy (see 'evtsim help compare')`,
      );
    }
  }
  const sim = await parseCommandLineAsync(rest);
  const given = (name: "picker" | "policy_module") => {
    const v = sim.fromConfig.has(name) ? undefined : sim.options.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const o = own.options;
  const picker = given("picker");
  const policyModule = given("policy_module");
  return {
    json: o.get("json") === true,
    rest,
    inputs: inputsOf(sim, sourcesOf(sim)),
    ...(o.get("policies") !== undefined ? { policies: o.get("policies") } : {}),
    ...(o.get("jobs") !== undefined ? { jobs: o.get("jobs") } : {}),
    ...(o.get("report") !== undefined ? { report: o.get("report") } : {}),
    ...(o.get("external_command") !== undefined
      ? { externalCommand: o.get("external_command") }
      : {}),
    ...(picker !== undefined ? { picker } : {}),
    ...(policyModule !== undefined ? { policyModule } : {}),
  };
}

/** The files of one policy's run. */
export interface PolicyRun {
  readonly summary: PolicySummary;
  /** The run's input files (its stats JSON's `inputs`). */
  readonly inputs: readonly string[];
  /** The options the run was simulated with, as one line (no file of compare's own). */
  readonly options: string;
  readonly schedule: string;
  readonly resources: string;
  /** How its metrics were measured (its options as simulate took them). */
  readonly metricsOptions: MetricsOptions;
  /** A machine run's utilization per resource (its stats JSON's `resources`), for the report. */
  readonly resourceMetrics?: ResourceMetrics;
}

/** Runs `evtsim compare ARGS`; returns the exit code. */
export async function compareCommand(args: readonly string[], con: Console): Promise<number> {
  const parsed = await splitArgs(args);
  if (parsed === "help") {
    con.out(compareHelp());
    return 0;
  }
  // No output may be an input (cli/paths.ts): checked before anything is loaded.
  const inputs = parsed.inputs;
  if (parsed.report !== undefined) checkOutputPath("--report", parsed.report, inputs);
  const policies = await policiesOf(parsed);
  const dir = await Deno.makeTempDir({ prefix: "evtsim-compare-" });
  temporaryMade(dir, "tree");
  try {
    const runs: PolicyRun[] = new Array(policies.length);
    // Progress lines in the order of --policies: a run that ends before an
    // earlier one is told of when that one has ended too.
    let told = 0;
    const ended = async (i: number, { code, out, stats }: RunOutput) => {
      if (code !== 0) {
        throw new EvtsimError("usage", `simulate failed for policy '${policies[i].name}'`);
      }
      runs[i] = await policyRun(
        policies[i],
        `${dir}/run${i}`,
        out,
        nodesForReport(parsed),
        stats,
      );
      for (; told < policies.length && runs[told] !== undefined; told++) {
        con.err(
          `compare: ${policies[told].name} done (${told + 1}/${policies.length}, ${
            runs[told].summary.simulationSeconds.toFixed(2)
          } s)`,
        );
      }
    };
    const tasks = compareTasks(parsed, policies, dir);
    const workers = Math.min(parsed.jobs ?? navigator.hardwareConcurrency ?? 1, tasks.length);
    const cache = new TraceCache();
    const { seed, share, runHere } = runnerHere(cache, con);
    if (workers > 1) {
      // This thread runs policies too, beside workers - 1 workers, unless a
      // policy module may load: a policy that calls Deno.exit must end only
      // a worker (its run fails), not the command.
      const { runOnWorkers } = await import("./_compare_pool.ts");
      const { runsInWorker } = await import("./_supervise.ts");
      const userCode = runsInWorker(["compare", ...args]);
      if (!userCode) {
        cache.onRead = (key, input) => {
          cache.onRead = undefined;
          share(shareTrace(key, input));
        };
      }
      await runOnWorkers(
        tasks,
        workers,
        con,
        ended,
        userCode ? undefined : runHere,
        userCode ? undefined : seed,
      );
    } else {
      for (const [i, task] of tasks.entries()) await ended(i, await runHere(task));
    }
    if (parsed.report !== undefined) await writeCompareReport(runs, parsed.report, inputs);
    const rows = runs.map((r) => r.summary);
    if (parsed.json) con.out(JSON.stringify(rows.map(jsonRow), null, 2));
    else for (const line of compareTable(rows)) con.out(line);
    if (parsed.report !== undefined) con.out(`Report written to: ${parsed.report}`);
    return 0;
  } finally {
    await Deno.remove(dir, { recursive: true });
    temporaryReleased(dir);
  }
}

// One simulate per policy. Without a report only each run's statistics JSON
// is read: the runs keep their outputs in memory and drop the schedules
// (cli/_cell_outputs.ts).
/** The policies to run: --policies against the registry, and `external` with --external_command. */
async function policiesOf(parsed: CompareArgs): Promise<Policy[]> {
  const { registry } = await policyRegistry(parsed.policyModule);
  // --external_command: `external` is one more admission policy, run by that command.
  const external = parsed.externalCommand === undefined ? [] : [EXTERNAL];
  const policies = parsePolicies(parsed.policies, registry, parsed.picker, external);
  if (parsed.externalCommand !== undefined && !policies.some((p) => p.admission === EXTERNAL)) {
    throw new EvtsimError(
      "usage",
      "--external_command decides for the policy 'external': name it in --policies",
    );
  }
  return policies;
}

function compareTasks(
  parsed: CompareArgs,
  policies: readonly Policy[],
  dir: string,
): CompareTask[] {
  const inMemory = parsed.report === undefined;
  return policies.map((p, i) => ({
    args: policyArgs(parsed, p, `${dir}/run${i}`),
    ...(inMemory ? { keepOnly: `${dir}/run${i}.json` } : {}),
  }));
}

// This thread's runs: `simulate` in process, its traces read through the
// cache; the first trace read goes to the workers as columns
// (cli/_compare_jobs.ts), and they wait for it rather than read it again.
function runnerHere(cache: TraceCache, con: Console) {
  let resolveSeed: (box: { trace?: SharedTrace }) => void = () => {};
  const seed = new Promise<{ trace?: SharedTrace }>((resolve) => resolveSeed = resolve);
  const share = (trace: SharedTrace | undefined) =>
    resolveSeed(trace === undefined ? {} : { trace });
  const load: typeof cache.load = async (path, options) => {
    try {
      return await cache.load(path, options);
    } finally {
      share(undefined);
    }
  };
  const runHere = async ({ args, keepOnly }: CompareTask): Promise<RunOutput> => {
    const out: string[] = [];
    const fs = keepOnly === undefined ? undefined : new KeepOneOutput(keepOnly);
    let stats: string | undefined;
    const code = await simulateCommand(
      args,
      { out: (l) => out.push(l), err: con.err, isTerminal: false },
      // In memory, the run is stats-only: the figures a row reads.
      { load, ...(fs !== undefined ? { fs, figures: (f) => stats = figuresJson(f) } : {}) },
    ).finally(() => share(undefined));
    return { code, out, ...(stats !== undefined ? { stats } : {}) };
  };
  return { seed, share, runHere };
}

// --report: one report of every policy's run, read back from its files.
async function writeCompareReport(
  runs: readonly PolicyRun[],
  report: string,
  inputs: NamedPath[],
): Promise<void> {
  const { writeReport } = await import("./report_command.ts");
  await writeReport(
    runs.map((r) => ({
      label: r.summary.policy,
      schedule: r.schedule,
      resources: r.resources,
      ...(r.resourceMetrics !== undefined ? { resourceMetrics: r.resourceMetrics } : {}),
    })),
    report,
    {
      option: "--report",
      inputs,
      metrics: runs[0].metricsOptions,
      ...(runs[0].inputs.length === 1 ? { trace: runs[0].inputs[0] } : {}),
      runOptions: runs.map((r) => r.options),
    },
  );
}

// simulate's arguments for policy `p`: compare's own, the policy, and the run's files.
function policyArgs(a: CompareArgs, p: Policy, stem: string): string[] {
  const restWithoutPicker = p.picker === undefined ? a.rest : withoutPicker(a.rest);
  return [
    ...restWithoutPicker,
    "--admission",
    p.admission,
    ...(p.admission === EXTERNAL ? ["--external_command", a.externalCommand!] : []),
    ...(p.picker !== undefined ? ["--picker", p.picker] : []),
    "--outfile",
    `${stem}_sim.csv`,
    "--resource_trace",
    `${stem}_sim_resources.csv`,
    "--stats_json",
    `${stem}.json`,
    "--no_progress",
    ...(nodesForReport(a) ? ["--extended_output"] : []),
  ];
}

// Whether compare asks its runs for the extended columns itself: for a
// report, whose Gantt chart then draws the nodes the runs allocated (the
// `nodes` column). Only compare's temporary schedules get them, and the
// option is left out of the options the report shows.
function nodesForReport(a: CompareArgs): boolean {
  return a.report !== undefined && !a.rest.includes("--extended_output");
}

// A run's row, read back from its stats JSON; `out` is its stdout.
async function policyRun(
  p: Policy,
  stem: string,
  out: readonly string[],
  addedExtended: boolean,
  stats?: string,
): Promise<PolicyRun> {
  const doc = JSON.parse(stats ?? await Deno.readTextFile(`${stem}.json`));
  if (addedExtended) delete doc.options.extended_output;
  const wall = out.map((l) => /^Wall clock time to run simulation: (\S+) \(sec\)$/.exec(l))
    .find((m) => m !== null);
  return {
    schedule: `${stem}_sim.csv`,
    resources: `${stem}_sim_resources.csv`,
    metricsOptions: metricsOptionsOf(doc.options),
    inputs: doc.inputs,
    options: optionsLine(doc.options),
    ...(doc.resources !== undefined ? { resourceMetrics: doc.resources } : {}),
    summary: {
      policy: p.name,
      metrics: doc.metrics,
      fairness: doc.fairness,
      totalNodes: doc.statistics.totalNodes,
      ...(doc.resources !== undefined ? { byResource: utilizationColumns(doc.resources) } : {}),
      ...(doc.energy !== undefined ? { energy: doc.energy.total } : {}),
      simulationSeconds: wall !== undefined && wall !== null ? Number(wall[1]) : NaN,
    },
  };
}

/**
 * A `--json` row: the policy, the machine size, every metric and fairness
 * figure by its name, the simulation time.
 */
function jsonRow(r: PolicySummary): Record<string, string | number | null> {
  const row: Record<string, string | number | null> = {
    policy: r.policy,
    total_nodes: r.totalNodes,
  };
  for (const k of METRIC_NAMES) row[k] = r.metrics[k];
  for (const k of FAIRNESS_NAMES) row[k] = r.fairness[k];
  for (const [k, v] of Object.entries(r.byResource ?? {})) row[k] = v;
  if (r.energy !== undefined) row.energy_j = r.energy;
  row.sim_s = r.simulationSeconds;
  return row;
}

// The metric options of a run, as its stats JSON records the options given
// (command line and config files).
function metricsOptionsOf(given: Record<string, unknown>): MetricsOptions {
  const tau = given.bsld_tau, window = given.measure_window, trim = given.trim;
  return {
    ...(typeof tau === "number" ? { bsldTau: tau } : {}),
    ...(typeof window === "string" ? { measureWindow: parseMeasureWindow(window) } : {}),
    ...(typeof trim === "string" ? { trim: parseTrim(trim) } : {}),
  };
}

// simulate takes the picker of the policy; drop --picker given to compare.
function withoutPicker(rest: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--picker") i++;
    else if (!/^--picker=/.test(rest[i])) out.push(rest[i]);
  }
  return out;
}

/** The table's metric columns (every metric is in `--json`). */
const TABLE_METRICS = [
  "jobs",
  "wait_mean_s",
  "wait_p50_s",
  "wait_p95_s",
  "wait_max_s",
  "bsld_mean",
  "utilization",
  "makespan_s",
] as const satisfies readonly (keyof Metrics)[];

const HEADERS = ["policy", ...TABLE_METRICS, "sim_s"];

/**
 * The table's lines: a header and one right-aligned row per policy (the
 * policy name left-aligned). Numbers as `simulate` prints them (6
 * significant digits); the simulation time with two decimals. A policy
 * running DR_EVT's conservative rule is marked `*`, with the note under the
 * table.
 */
export function compareTable(rows: readonly PolicySummary[]): string[] {
  const g = (x: number | null | undefined) => x === null || x === undefined ? "-" : formatG(x);
  const marked = rows.some((r) => isDrEvtConservative(r.policy));
  // On a machine, each resource's utilization after the machine's (node equivalents).
  const perResource = [...new Set(rows.flatMap((r) => Object.keys(r.byResource ?? {})))];
  const at = HEADERS.indexOf("utilization") + 1;
  // With a power model, the energy before the simulation time.
  const energy = rows.some((r) => r.energy !== undefined) ? ["energy_j"] : [];
  const headers = [
    ...HEADERS.slice(0, at),
    ...perResource,
    ...HEADERS.slice(at, -1),
    ...energy,
    ...HEADERS.slice(-1),
  ];
  const cells = rows.map((r) => {
    const metrics = TABLE_METRICS.map((k) =>
      k === "jobs" ? String(r.metrics.jobs) : g(r.metrics[k])
    );
    return [
      r.policy + (isDrEvtConservative(r.policy) ? "*" : ""),
      ...metrics.slice(0, at - 1),
      ...perResource.map((k) => g(r.byResource?.[k])),
      ...metrics.slice(at - 1),
      ...energy.map(() => g(r.energy)),
      r.simulationSeconds.toFixed(2),
    ];
  });
  const widths = headers.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) =>
    row.map((v, c) => c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c])).join("  ");
  const note = marked
    ? ["", "* " + CONSERVATIVE_NOTE[0], ...CONSERVATIVE_NOTE.slice(1).map((l) => `  ${l}`)]
    : [];
  return [line(headers), ...cells.map(line), ...note];
}

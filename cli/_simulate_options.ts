// The options step of an `evtsim simulate` run: the trace or list given,
// every option checked and every output path settled (against each other
// and the inputs) before anything is read or made. The plan it returns is
// what the later steps (cli/_simulate_run.ts) read.

import { EvtsimError } from "../core/errors.ts";
import type { MetricsOptions } from "../core/metrics.ts";
import { parseTrim } from "../core/_metrics_breakdowns.ts";
import { parseMeasureWindow } from "../io/stats_json.ts";
import { type LoadOptions, sniffFormat } from "./load.ts";
import type { ParsedCommandLine, ParsedOptions } from "./options.ts";
import { isParquetPath, isSwfPath } from "./outputs.ts";
import { checkOutputPaths, type NamedPath, optionInputs } from "./paths.ts";
import { num, str } from "./_simulate_steps.ts";
import { defaultOutfile, defaultResourceFile } from "./_output_names.ts";
import type { SimulateRunDeps } from "./simulate.ts";

/** What the options step settled: how to read, what to write, and where. */
export type RunPlan = Awaited<ReturnType<typeof runPlanOf>>;

/**
 * The options step: every option checked and every output path settled
 * (against each other and the inputs) before anything is read or made.
 */
export async function runPlanOf(
  o: ParsedOptions,
  parsed: ParsedCommandLine,
  sources: Sources,
  deps: SimulateRunDeps,
) {
  const runTimeMode = runTimeModeOf(o);
  const timezone = str(o, "timezone") ?? "America/Los_Angeles";
  const firstPath = sources.paths[0];
  const maxJobs = num(o, "max_jobs") ?? 0;
  let loadOptions = await loadOptionsOf(o, sources, runTimeMode, timezone, maxJobs);

  if (o.has("decisions_detail") && !o.has("decisions")) {
    throw new EvtsimError("usage", "--decisions_detail needs --decisions FILE");
  }
  const admission = str(o, "admission") ?? str(o, "backfill_policy") ?? "easy";
  if (o.get("no_compression") === true && admission !== "conservative_profile") {
    throw new EvtsimError(
      "usage",
      `--no_compression needs --admission conservative_profile, got '${admission}'`,
    );
  }
  const metricsOptions = metricsOptionsOf(o);
  const schedulePath = str(o, "outfile") ?? defaultOutfile(sources.list ?? firstPath);
  const extended = o.get("extended_output") === true;
  const swf = isSwfPath(schedulePath);
  const parquet = isParquetPath(schedulePath);
  // The SWF schedule and the extended columns write back what the log gave.
  loadOptions = {
    ...loadOptions,
    keepSwfFields: swf || extended,
    // A CSV trace's jobs stay in columns until fed, unless the outputs write
    // back what the trace gave, a snapshot's jobs are skipped, or many runs
    // share the parsed trace (deps.load).
    columns: !swf && !extended && !o.has("from_snapshot") && !o.has("checkpoint_file") &&
      deps.load === undefined,
  };
  if (swf && extended) {
    throw new EvtsimError(
      "usage",
      "--extended_output adds CSV columns; it cannot be used with an SWF --outfile",
    );
  }
  const named = namedOutputsOf(o, schedulePath);
  if (named.report !== undefined && (swf || parquet)) {
    throw new EvtsimError("usage", "--report reads the schedule CSV: it needs a CSV --outfile");
  }
  const redis = redisOf(o, { swf, parquet, extended, report: named.report !== undefined });
  const checkpointFile = checkpointFileOf(o);
  const pcon = pconOf(o, loadOptions.format);
  if (pcon) loadOptions = { ...loadOptions, pcon: true, columns: false };
  const real = realOutputPaths(named, redis !== undefined, checkpointFile, parsed, sources);
  return {
    runTimeMode,
    timezone,
    firstPath,
    maxJobs,
    loadOptions,
    admission,
    metricsOptions,
    schedulePath,
    extended,
    swf,
    parquet,
    named,
    redis,
    checkpointFile,
    pcon,
    real,
  };
}

/** The traces of a run: one path, or an --infile_list (read later). */
export interface Sources {
  readonly paths: string[];
  readonly list?: string;
}

// The command line's trace (positional, --infile or --infile_list) beats a
// config file's infile / infile_list, as DR_EVT's positional argument does.
export function sourcesOf(p: ParsedCommandLine): Sources {
  const { options: o, positional } = p;
  if (positional.length > 1) {
    throw new EvtsimError("usage", `unexpected arguments: ${positional.slice(1).join(" ")}`);
  }
  const fromCommandLine = (name: "infile" | "infile_list") =>
    p.fromConfig.has(name) ? undefined : str(o, name);
  let infile = fromCommandLine("infile");
  let list = fromCommandLine("infile_list");
  if (positional[0] === undefined && infile === undefined && list === undefined) {
    infile = str(o, "infile");
    list = str(o, "infile_list");
  }
  const given = [positional[0], infile, list].filter((x) => x !== undefined);
  if (given.length === 0) {
    throw new EvtsimError("usage", "no input trace given (see 'evtsim simulate --help')");
  }
  if (given.length > 1) {
    throw new EvtsimError(
      "usage",
      "give exactly one of: a trace argument, --infile, --infile_list",
    );
  }
  return list !== undefined ? { paths: [], list } : { paths: [given[0]!] };
}

/** Every file `simulate ARGS` reads (its trace or list, and its options' files). */
export function inputsOf(p: ParsedCommandLine, s: Sources): NamedPath[] {
  const inputs: NamedPath[] = s.paths.map((path) => ({
    what: s.list !== undefined ? "a trace of --infile_list" : "the input trace",
    path,
  }));
  if (s.list !== undefined) inputs.push({ what: "the --infile_list file", path: s.list });
  // cli/paths.ts names the file options of every command (simulate's among them).
  const byName: ReadonlyMap<string, unknown> = p.options;
  inputs.push(...optionInputs((name) => {
    const v = byName.get(name);
    return typeof v === "string" ? v : undefined;
  }));
  for (const c of p.configFiles) inputs.push({ what: "a --config file", path: c });
  return inputs;
}

// How the traces are read, as the options say (the outputs add to it).
async function loadOptionsOf(
  o: ParsedOptions,
  sources: Sources,
  runTimeMode: LoadOptions["runTimeMode"],
  timezone: string,
  maxJobs: number,
): Promise<LoadOptions> {
  return {
    format: await sniffFormat(sources.paths[0], str(o, "trace_format")),
    timezone,
    maxJobs,
    runTimeMode,
    overrun: str(o, "overrun") as LoadOptions["overrun"],
    swfUnit: (str(o, "swf_unit") ?? "procs") as "procs" | "nodes",
    procsPerNode: num(o, "procs_per_node"),
    swfReplayWait: o.get("swf_replay_wait") === true,
    requireSorted: sources.list !== undefined,
    totalNodes: num(o, "total_nodes"),
  };
}

// The output files the options name (undefined: not asked for).
function namedOutputsOf(o: ParsedOptions, schedulePath: string) {
  return {
    schedule: schedulePath,
    resources: str(o, "resource_trace") ?? defaultResourceFile(schedulePath),
    submissions: str(o, "submission_stats"),
    statsJson: str(o, "stats_json"),
    decisions: str(o, "decisions"),
    record: str(o, "record"),
    report: str(o, "report"),
    failures: str(o, "failures_out"),
  };
}

// Every output path, checked against the others and the inputs: the real
// path each option names (the schedule and the resource CSV go to Redis instead).
function realOutputPaths(
  named: ReturnType<typeof namedOutputsOf>,
  toRedis: boolean,
  checkpointFile: string | undefined,
  parsed: ParsedCommandLine,
  sources: Sources,
): Map<string, string> {
  return checkOutputPaths(
    [
      ...(!toRedis ? [["--outfile", named.schedule], ["--resource_trace", named.resources]] : []),
      ...(named.submissions !== undefined ? [["--submission_stats", named.submissions]] : []),
      ...(named.statsJson !== undefined ? [["--stats_json", named.statsJson]] : []),
      ...(named.decisions !== undefined ? [["--decisions", named.decisions]] : []),
      ...(named.record !== undefined ? [["--record", named.record]] : []),
      ...(named.report !== undefined ? [["--report", named.report]] : []),
      ...(named.failures !== undefined ? [["--failures_out", named.failures]] : []),
      ...(checkpointFile !== undefined ? [["--checkpoint_file", checkpointFile]] : []),
    ] as [string, string][],
    inputsOf(parsed, sources),
  );
}

// --trace_type pcon: a CSV trace's avgpcon, minpcon and maxpcon columns
// (cli/_pcon.ts), on DR_EVT's node-count machine.
function pconOf(o: ParsedOptions, format: string): boolean {
  if (str(o, "trace_type") !== "pcon") return false;
  const refused = format !== "simple"
    ? `${
      format === "swf" ? "an SWF" : format === "sacct" ? "a Slurm sacct" : "a lassen"
    } trace (it reads a simple CSV trace's avgpcon, minpcon and maxpcon columns)`
    : o.has("machine")
    ? "--machine"
    : str(o, "resource_columns") === "per_resource"
    ? "--resource_columns per_resource"
    : o.has("sim_start_time")
    ? "--sim_start_time"
    : undefined;
  if (refused !== undefined) {
    throw new EvtsimError("usage", `--trace_type pcon cannot be used with ${refused}`);
  }
  return true;
}

// --checkpoint_file (and --checkpoint_interval_jobs, which needs it: DR_EVT's
// rule). A checkpoint continues the run it was taken of, so a recording or a
// run from a snapshot is not checkpointed.
function checkpointFileOf(o: ParsedOptions): string | undefined {
  const file = str(o, "checkpoint_file");
  if (file === undefined) {
    if (o.has("checkpoint_interval_jobs")) {
      throw new EvtsimError("usage", "--checkpoint_interval_jobs requires --checkpoint_file");
    }
    return undefined;
  }
  for (const name of ["record", "from_snapshot"]) {
    if (o.has(name)) {
      throw new EvtsimError("usage", `--checkpoint_file cannot be used with --${name}`);
    }
  }
  return file;
}

// --redis_uri and --redis_key_prefix: both or neither (DR_EVT's rule), and a
// DR_EVT CSV schedule (the keys hold its columns).
function redisOf(
  o: ParsedOptions,
  layout: { swf: boolean; parquet: boolean; extended: boolean; report: boolean },
): { uri: string; prefix: string } | undefined {
  const uri = str(o, "redis_uri");
  const prefix = str(o, "redis_key_prefix");
  if ((uri === undefined) !== (prefix === undefined)) {
    throw new EvtsimError(
      "usage",
      "--redis_uri and --redis_key_prefix must be specified together",
    );
  }
  if (uri === undefined || prefix === undefined) return undefined;
  const refused = layout.swf
    ? "an SWF --outfile"
    : layout.parquet
    ? "a Parquet --outfile"
    : layout.extended
    ? "--extended_output"
    : layout.report
    ? "--report (it reads the schedule file)"
    : undefined;
  if (refused !== undefined) {
    throw new EvtsimError(
      "usage",
      `--redis_uri writes DR_EVT's CSV schedule to Redis; it cannot be used with ${refused}`,
    );
  }
  return { uri, prefix };
}

// --bsld_tau, --measure_window and --trim: how the stats JSON's metric set is
// measured (checked before the run: a bad pair writes nothing).
function metricsOptionsOf(o: ParsedOptions): MetricsOptions {
  const w = str(o, "measure_window");
  const trim = str(o, "trim");
  const tau = num(o, "bsld_tau");
  if (w !== undefined && trim !== undefined) {
    throw new EvtsimError("usage", "--trim and --measure_window: give one of them, not both");
  }
  return {
    ...(tau !== undefined ? { bsldTau: tau } : {}),
    ...(w !== undefined ? { measureWindow: parseMeasureWindow(w) } : {}),
    ...(trim !== undefined ? { trim: parseTrim(trim) } : {}),
  };
}

function runTimeModeOf(o: ParsedOptions): "actual" | "limit" | "distribution" {
  const mode = str(o, "run_time_mode");
  const legacy = str(o, "duration_mode");
  if (mode !== undefined && legacy !== undefined) {
    throw new EvtsimError(
      "usage",
      "give --run_time_mode or its old name --duration_mode, not both",
    );
  }
  if (legacy !== undefined) {
    return legacy === "exact" ? "limit" : legacy === "column" ? "actual" : "distribution";
  }
  return (mode ?? "actual") as "actual" | "limit" | "distribution";
}

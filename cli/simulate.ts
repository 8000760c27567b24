// `evtsim simulate`: read the trace, feed the reducer, write the rows. No
// scheduling logic lives here. The order matters for "nothing lost, nothing
// half-written": options are checked first, then every output path (against
// each other and the inputs), then the outputs' temporaries are created, and
// only then is anything read or simulated; on any failure every temporary
// is removed and old outputs stay as they were.

import { EvtsimError } from "../core/errors.ts";
import { initialState } from "../api/initial_state.ts";
import { type Input, step } from "../core/step.ts";
import { statistics } from "../core/queries.ts";
import type { Statistics } from "../core/statistics.ts";
import type { SimulationConfig } from "../core/types.ts";
import { lookupPicker, type PolicyRegistry } from "../core/policies.ts";
import { memoryPressureLimit } from "../api/memory.ts";
import type { OutputFileSystem } from "../io/atomic_writer.ts";
import { parseMeasureWindow, SLOWDOWN_TAU, statsJsonText } from "../io/stats_json.ts";
import {
  capacityOverTime,
  type Fairness,
  machineMetrics,
  type Metrics,
  type MetricsOptions,
  type ResourceMetrics,
} from "../core/metrics.ts";
import { parseTrim } from "../core/_metrics_breakdowns.ts";
import { parseTimestamp } from "../io/timestamps.ts";
import {
  type LoadedInput,
  loadInput,
  type LoadOptions,
  readInfileList,
  sniffFormat,
} from "./load.ts";
import {
  parseCommandLineAsync,
  type ParsedCommandLine,
  type ParsedOptions,
  simulateHelp,
} from "./options.ts";
import { isParquetPath, isSwfPath, RunOutputs, type ScheduleLayout } from "./outputs.ts";
import { checkOutputPaths, type NamedPath, optionInputs } from "./paths.ts";
import { Progress, type ProgressSink } from "./progress.ts";
import {
  num,
  printRunSummary,
  simulationConfigOf,
  str,
  writeRunReport,
} from "./_simulate_steps.ts";
import { policyRegistry } from "./policy_module.ts";
import type { ExternalCommand } from "./_external_command.ts";
import { RunHooks } from "./record_hooks.ts";
import { applyAdvance, type LoopContext, replayAll, simulateFiles, Yielder } from "./run_loop.ts";
import { VERSION } from "./version.ts";
import { jsonConfig, machineOf } from "./_machine_run.ts";
import { beforeStep } from "./_watchdog.ts";
import type { Console } from "./_console.ts";
import type { REDIS_PATHS, RedisCapture, RedisRun, RedisSink } from "./_redis_output.ts";
import type { StepRows } from "../core/types.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import type { PconTimeline } from "./_pcon.ts";
import { machineWatts, PowerEnergy, powerGiven, withPconPower } from "./_power_options.ts";

// Re-exported where the commands and tests have always found them.
export type { Console } from "./_console.ts";
import { defaultOutfile, defaultResourceFile } from "./_output_names.ts";
export { defaultOutfile, defaultResourceFile };

/** Replaceable pieces, for tests: the output file system and the progress sink. */
export interface SimulateDeps {
  /** The file system outputs are written through (default: the real one). */
  readonly fs?: OutputFileSystem;
  /** Where the progress line goes (default: stderr). */
  readonly progressSink?: ProgressSink;
}

/** {@link SimulateDeps}, and (for commands running many simulations) how a trace is read. */
export interface SimulateRunDeps extends SimulateDeps {
  /** Reads a trace (default: `loadInput`; many runs share parsed traces through cli/_trace_cache.ts). */
  readonly load?: (path: string, options: LoadOptions) => Promise<LoadedInput>;
  /**
   * A stats-only run (a sweep cell or compare's run, with `--stats_json`
   * given): the figures a row reads are handed here, each the value the statistics JSON would
   * hold, and that JSON is not made (nor the breakdowns, nor the wait and
   * slowdown distributions, which no row reads).
   */
  readonly figures?: (figures: RunFigures) => void;
}

/** What a stats-only run hands on: the statistics JSON's parts a sweep or compare row reads. */
export interface RunFigures {
  readonly inputs: readonly string[];
  readonly options: Readonly<Record<string, string | number | boolean>>;
  readonly statistics: Statistics;
  readonly metrics: Metrics;
  readonly fairness: Fairness;
  readonly resources: ResourceMetrics | undefined;
}

/** Runs `evtsim simulate ARGS`; returns the exit code. */
export async function simulateCommand(
  args: readonly string[],
  con: Console,
  deps: SimulateRunDeps = {},
): Promise<number> {
  const parsed = await parseCommandLineAsync(args);
  const o = parsed.options;
  if (o.get("help") === true) {
    con.out(simulateHelp());
    return 0;
  }
  const started = performance.now();
  const given = sourcesOf(parsed);
  const sources: Sources = given.list !== undefined
    ? { paths: await readInfileList(given.list), list: given.list }
    : given;
  const plan = await runPlanOf(o, parsed, sources, deps);
  const {
    runTimeMode,
    timezone,
    firstPath,
    maxJobs,
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
  } = plan;
  let loadOptions = plan.loadOptions;
  const { sink, capture, memory, outputs } = await openOutputs(redis, real, deps);
  const redisJobs: RedisRun["jobs"][number][] = [];
  const redisResourceTimes: number[] = [];
  // --trace_type pcon: made with the first input (whose mode it needs).
  const Timeline = pcon ? (await import("./_pcon.ts")).PconTimeline : undefined;
  let timeline: InstanceType<NonNullable<typeof Timeline>> | undefined;
  // A power model (cli/_power_options.ts): the run's energy from its rows.
  let energy = powerGiven(o) ? new PowerEnergy() : undefined;
  let progress: Progress | undefined;
  let state: ReturnType<typeof initialState>;
  let readSeconds = 0;
  let recorded: string[] = [];
  let runStatistics: Statistics | undefined;
  let external: ExternalCommand | undefined;
  try {
    // Reading is timed on its own so that a slow parse shows up as such.
    const load = async (path: string, jobsLeft: number): Promise<LoadedInput> => {
      const t0 = performance.now();
      let input = await (deps.load ?? loadInput)(path, { ...loadOptions, maxJobs: jobsLeft });
      if (energy !== undefined) {
        if (pcon) input = { ...input, jobs: withPconPower(input.jobs) };
        energy.jobs(input.jobs);
      }
      readSeconds += (performance.now() - t0) / 1000;
      // Only these outputs write back what the trace gave (kept alive for them).
      if (swf || extended) outputs.input(input);
      // The stats JSON's breakdowns need each job's user and account (only those are kept).
      outputs.owners(input);
      if (Timeline !== undefined) {
        timeline ??= new Timeline(input.mode === "replay");
        timeline.jobs(input.mode === "replay" ? input.recorded : input.jobs);
      }
      return input;
    };
    const loaded = await policyRegistry(str(o, "policy_module"));
    const { modules } = loaded;
    external = await externalOf(o, admission, loaded.registry, () => state?.config.totalNodes);
    // A round blocks this thread: the command's worker must have started it first.
    if (external !== undefined) await external.ready;
    const registry = external?.registry ?? loaded.registry;
    const queuesFile = await queuesOf(o, registry);
    const queues = queuesFile?.queues;
    if (queues !== undefined) {
      loadOptions = { ...loadOptions, queues: new Set(queues.map((q) => q.name)) };
    }
    const machine = await machineOf(o, queuesFile);
    if (machineWatts(machine?.machine)) energy ??= new PowerEnergy();
    if (machine !== undefined) loadOptions = { ...loadOptions, machine };
    const first = await load(firstPath, maxJobs);
    checkFirstInput(first, machine !== undefined, sources, con);
    const startTime = startTimeOf(o, timezone, first.mode);
    const totalNodes = machine?.nodes.length ?? num(o, "total_nodes") ?? first.machineSize ?? 795;
    const config = await simulationConfigOf(o, {
      totalNodes,
      admission,
      runTimeMode,
      queues,
      fairshare: queuesFile?.fairshare,
      machine,
      pcon,
      replay: first.mode === "replay",
      decisions: named.decisions !== undefined,
      startTime,
      timezone,
      failureTrace: (text) => outputs.failureTrace(text),
      // A stats-only run that drops its resource timeline reads no resource
      // row (cli/outputs.ts): the engine makes none.
      resourceRows: energy !== undefined || !(deps.figures !== undefined &&
        deps.fs?.discards?.(real.get("--resource_trace")!) &&
        str(o, "resource_columns") !== "per_resource" && named.record === undefined),
    });
    const maxTime = num(o, "max_time");
    if (maxTime !== undefined && maxTime < startTime) {
      throw new EvtsimError(
        "usage",
        `--max_time ${maxTime} is before the start time ${startTime}`,
      );
    }
    state = initialState(config, { replay: first.mode === "replay", registry });
    // --record, --from_snapshot
    const run = await RunHooks.create(o, state, first.mode, modules);
    state = await run.start((line) => outputs.recordLine(line));
    // --checkpoint_file: continue from it when it exists (cli/_checkpoint.ts).
    if (checkpointFile !== undefined && first.mode === "replay") {
      throw new EvtsimError(
        "usage",
        "--checkpoint_file needs a simulation trace: a trace with begin_time and end_time replays a recorded schedule",
        { file: firstPath },
      );
    }
    const { Checkpoints, runIdentity } = checkpointFile !== undefined
      ? await import("./_checkpoint.ts")
      : { Checkpoints: undefined, runIdentity: undefined };
    const opened = Checkpoints?.open(
      real.get("--checkpoint_file")!,
      num(o, "checkpoint_interval_jobs"),
      runIdentity!(o, inputsOf(parsed, sources).map((i) => i.path)),
      registry,
    );
    const checkpoints = opened?.checkpoints;
    if (opened?.resumed !== undefined) state = opened.resumed.state;
    let toSkip = opened?.resumed?.state.nextJobId ?? 0;
    if (o.get("verbose") === true) printParams(con, config, sources.paths);
    const msec = o.get("msec_output") === true;
    outputs.begin({
      format: swf ? "swf" : parquet ? "parquet" : "csv",
      parquet: parquet ? await parquetWriter() : undefined,
      extended,
      queueColumn: first.queueColumn,
      msec,
      totalNodes,
      version: VERSION,
      listRejected: o.get("verbose") === true,
      resourceModel: config.resourceModel,
      resourceColumns: str(o, "resource_columns") as ScheduleLayout["resourceColumns"],
      // Failures or preemptive queues: a job may be requeued.
      ...((state.config.capacitySchedule.some((c) => c.failed !== undefined) ||
          state.config.queues.some((q) => q.preemptMode === "requeue")) && !parquet
        ? { requeues: true }
        : {}),
      ...(timeline !== undefined ? { pcon: timeline } : {}),
      ...(energy !== undefined ? { power: true } : {}),
    }, con.err);
    if (o.has("from_snapshot")) outputs.runningIn(state);
    const emit = (rows: StepRows): void => {
      outputs.write(rows);
      energy?.resources(rows.resources);
      energy?.written(rows.jobs);
      if (sink !== undefined) {
        for (const j of rows.jobs) redisJobs.push(j);
        for (const row of rows.resources) redisResourceTimes.push(row.time);
      }
    };
    // A resumed run writes the rows the checkpoint covers first.
    for (const rows of opened?.resumed?.rows ?? []) emit(rows);

    const total = sources.paths.length === 1
      ? (first.mode === "replay" ? first.recorded.length : (first.columns ?? first.jobs).length)
      : 0;
    progress = new Progress(
      "simulating",
      total,
      o.get("no_progress") !== true && (o.get("progress") === true || con.isTerminal),
      deps.progressSink,
    );
    const applyOne = (input: Input): void => {
      const before = state;
      const t0 = performance.now();
      const r = step(state, input);
      state = r.state;
      emit(r.rows);
      checkpoints?.note(r.rows);
      run.record(input, before, r, t0);
    };
    const apply = (input: Input): void => {
      const { jobsCreated, jobsCompleted, jobsRejected } = state.stats;
      beforeStep(jobsCreated - jobsCompleted - jobsRejected);
      if (run.snapshotNext && input.kind !== "flush") applyOne({ kind: "flush" });
      applyOne(input);
      // A checkpoint holds the live jobs only: the finished ones are written first.
      if (checkpoints?.due(state) && input.kind !== "finish") {
        applyOne({ kind: "flush" });
        checkpoints.save(state);
      }
    };
    const memoryFraction = num(o, "check_memory_pressure");
    const loop: LoopContext = {
      apply,
      current: () => state,
      progress,
      maxTime,
      memoryLimit: memoryFraction !== undefined
        ? () => memoryPressureLimit(memoryFraction)
        : undefined,
      yielder: new Yielder(),
      // --checkpoint_file with --infile_list: a checkpoint after each file's
      // jobs are fed (DR_EVT's file boundary), the last file's included.
      fileFed: checkpoints !== undefined && sources.list !== undefined
        ? () => {
          if (!checkpoints.dueAtFileBoundary(state)) return;
          applyOne({ kind: "flush" });
          checkpoints.save(state);
        }
        : undefined,
      unseen: (jobs) => {
        jobs = run.skip(jobs);
        if (toSkip === 0) return jobs;
        const n = Math.min(toSkip, jobs.length);
        toSkip -= n;
        return jobs.slice(n);
      },
      byInstant: run.recording,
    };
    if (first.mode === "replay") await replayAll(first, loop);
    else await simulateFiles(sources.paths, first, maxJobs, load, con.err, loop);
    // With checkpoints the run's end goes instant by instant (the same rows,
    // cli/run_loop.ts), so that it has checkpoints too.
    applyAdvance(
      maxTime !== undefined
        ? { kind: "advanceTo", time: Math.max(maxTime, state.time) }
        : { kind: "runToCompletion" },
      checkpoints?.interval !== undefined ? { ...loop, byInstant: true } : loop,
    );
    // One macrotask before the last step: a policy's timer due by now runs, and
    // a decision it makes on an ended session fails the run (`finish` refuses
    // to end a run with one) instead of vanishing after an exit 0.
    await new Promise((resolve) => setTimeout(resolve, 0));
    apply({ kind: "finish" });
    progress.update(total);
    progress.done();
    recorded = run.finish(state);
    runStatistics = commitOutputs(o, state, outputs, {
      paths: sources.paths,
      machine,
      metricsOptions,
      timeline,
      energy,
      figures: deps.figures,
    });
    if (sink !== undefined) {
      await publishToRedis(sink, capture!, memory!, real.get("--stats_json"), {
        jobs: redisJobs,
        resourceTimes: redisResourceTimes,
        msec: o.get("msec_output") === true,
      });
    }
    checkpoints?.finish();
    if (named.report !== undefined) {
      await writeRunReport(o, {
        schedulePath,
        schedule: real.get("--outfile")!,
        resources: real.get("--resource_trace")!,
        report: real.get("--report")!,
        machineRun: outputs.resourceMetrics(metricsOptions),
        paths: sources.paths,
        metricsOptions,
      });
    }
  } catch (e) {
    progress?.done();
    outputs.abort();
    sink?.destroy();
    throw e;
  } finally {
    await external?.close();
  }

  const wall = (performance.now() - started) / 1000;
  const msec = o.get("msec_output") === true;
  printRunSummary(con, runStatistics ?? statistics(state), msec, wall, readSeconds, sink, named);
  for (const line of recorded) con.out(line);
  return 0;
}

// The options step: every option checked and every output path settled
// (against each other and the inputs) before anything is read or made.
async function runPlanOf(
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

// --admission external: a command of the user's decides every round.
async function externalOf(
  o: ParsedOptions,
  admission: string,
  registry: PolicyRegistry,
  totalNodes: () => number | undefined,
): Promise<ExternalCommand | undefined> {
  if (admission !== "external" && !o.has("external_command")) return undefined;
  const command = str(o, "external_command");
  if (command === undefined || admission !== "external") {
    throw new EvtsimError(
      "usage",
      "--admission external and --external_command CMD go together: the command decides every round",
    );
  }
  // Loaded only here: the protocol's schemas (zod) are no cost to other runs.
  const { externalCommand } = await import("./_external_command.ts");
  return externalCommand(command, registry, totalNodes);
}

// What the first trace allows (a replay trace: neither --machine nor an
// --infile_list); its reader's messages go out between the two checks.
function checkFirstInput(
  first: LoadedInput,
  machine: boolean,
  sources: Sources,
  con: Console,
): void {
  if (machine && first.mode === "replay") {
    throw new EvtsimError(
      "usage",
      "is a replay trace (begin_time and end_time columns); --machine takes simulation traces only",
      { file: sources.paths[0] },
    );
  }
  for (const m of first.messages) con.err(m);
  if (first.mode === "replay" && sources.paths.length > 1) {
    throw new EvtsimError(
      "usage",
      "is a replay trace (begin_time and end_time columns); --infile_list takes simulation " +
        "traces only",
      { file: sources.paths[0] },
    );
  }
}

// The outputs step: the statistics JSON (or a stats-only run's figures)
// made and every output committed; returns the run's statistics.
function commitOutputs(
  o: ParsedOptions,
  state: ReturnType<typeof initialState>,
  outputs: RunOutputs,
  c: {
    readonly paths: string[];
    readonly machine: MachineInput | undefined;
    readonly metricsOptions: MetricsOptions;
    readonly timeline: PconTimeline | undefined;
    readonly energy: PowerEnergy | undefined;
    readonly figures: ((figures: RunFigures) => void) | undefined;
  },
): Statistics {
  // On a machine the node count is bookkeeping (a demand job holds no whole
  // node), so the run's utilization is its node equivalents over the run.
  const wholeRun = outputs.resourceMetrics({})?.node_equivalents.utilization;
  const endStatistics = wholeRun === undefined || wholeRun === null
    ? statistics(state)
    : { ...statistics(state), utilization: wholeRun };
  // On a machine, utilization counts node equivalents (core/metrics.ts).
  const metrics = () =>
    machineMetrics(
      outputs.metricRows!.metrics(
        capacityOverTime(statistics(state).totalNodes, state.config.capacitySchedule),
        c.metricsOptions,
      ),
      outputs.resourceMetrics(c.metricsOptions),
    );
  let figures: RunFigures | undefined;
  outputs.commit(() => {
    if (c.figures !== undefined) {
      figures = {
        inputs: c.paths,
        options: shownOptions(o),
        statistics: endStatistics,
        metrics: metrics(),
        fairness: outputs.metricRows!.fairness(c.metricsOptions),
        resources: outputs.resourceMetrics(c.metricsOptions),
      };
      return "";
    }
    return statsJsonText({
      evtsimVersion: VERSION,
      inputs: c.paths,
      options: shownOptions(o),
      config: jsonConfig(state.config, c.machine),
      statistics: endStatistics,
      waitTime: outputs.metrics.waits(),
      boundedSlowdown: { ...outputs.metrics.slowdowns(), tau: SLOWDOWN_TAU },
      metrics: metrics(),
      ...outputs.metricRows!.breakdowns(c.metricsOptions),
      resources: outputs.resourceMetrics(c.metricsOptions),
      ...(c.energy !== undefined
        ? { energy: c.energy.energy() }
        : c.timeline !== undefined
        ? { energy: c.timeline.energy() }
        : {}),
    });
  });
  if (figures !== undefined) c.figures!(figures);
  return endStatistics;
}

// --redis_uri: the run made in memory, sent once it has ended.
async function publishToRedis(
  sink: RedisSink,
  capture: RedisCapture,
  memory: typeof REDIS_PATHS,
  statsPath: string | undefined,
  rows: Pick<RedisRun, "jobs" | "resourceTimes" | "msec">,
): Promise<void> {
  await sink.publish({
    scheduleCsv: capture.text(memory.schedule),
    resourceCsv: capture.text(memory.resources),
    statsJson: statsPath !== undefined
      ? await Deno.readTextFile(statsPath)
      : capture.text(memory.statsJson),
    ...rows,
  });
  await sink.close();
}

// The outputs' temporaries, made before anything is read; with --redis_uri
// the schedule, the resource CSV and the statistics JSON are made in memory.
async function openOutputs(
  redis: ReturnType<typeof redisOf>,
  real: Map<string, string>,
  deps: SimulateRunDeps,
) {
  // Redis: connected before anything is read or made (an unreachable server
  // is one line, and no file is touched); the schedule, the resource CSV and
  // the statistics JSON are made in memory and sent after the run.
  const sink = redis === undefined
    ? undefined
    : await (await import("./_redis_output.ts")).RedisSink.connect(redis.uri, redis.prefix);
  const capture = sink === undefined
    ? undefined
    : new (await import("./_redis_output.ts")).RedisCapture();
  const memory = capture === undefined
    ? undefined
    : (await import("./_redis_output.ts")).REDIS_PATHS;
  try {
    const outputs = new RunOutputs(
      {
        schedule: memory?.schedule ?? real.get("--outfile")!,
        resources: memory?.resources ?? real.get("--resource_trace")!,
        submissions: real.get("--submission_stats"),
        statsJson: real.get("--stats_json") ?? memory?.statsJson,
        decisions: real.get("--decisions"),
        record: real.get("--record"),
        failures: real.get("--failures_out"),
      },
      capture ?? deps.fs,
    );
    return { sink, capture, memory, outputs };
  } catch (e) {
    sink?.destroy();
    throw e;
  }
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

// The Parquet writer is loaded only for a Parquet schedule.
async function parquetWriter() {
  const { ScheduleParquet } = await import("../io/schedule_parquet.ts");
  return (layout: ScheduleLayout) => new ScheduleParquet(layout);
}

// The --queues file, with every per-queue picker checked against the registry
// so that an unknown one is reported at its line.
async function queuesOf(o: ParsedOptions, registry: PolicyRegistry) {
  const path = str(o, "queues");
  if (path === undefined) return undefined;
  // The YAML and schema libraries are loaded only for a queues file.
  const { readQueuesFile } = await import("../io/queues_file.ts");
  const file = await readQueuesFile(path);
  const entries = file.queues;
  entries.forEach(({ queue, fieldLines }, i) => {
    if (queue.picker === undefined) return;
    try {
      lookupPicker(registry, queue.picker);
    } catch (e) {
      throw new EvtsimError(
        "input",
        `queue ${i} (${queue.name}): picker: ${(e as Error).message}`,
        { file: path, line: fieldLines.picker },
      );
    }
  });
  return {
    queues: entries.length === 0 ? undefined : entries.map((e) => e.queue),
    fairshare: file.fairshare,
    path,
    entries,
  };
}

// --- option helpers -----------------------------------------------------

// The options as the statistics JSON lists them: a password in --redis_uri
// is not written down (the JSON goes to Redis and to files).
function shownOptions(o: ParsedOptions): Record<string, string | number | boolean> {
  const options = Object.fromEntries(o);
  const uri = options.redis_uri;
  if (typeof uri === "string") {
    options.redis_uri = uri.replace(/^(\w+:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
  }
  return options;
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
  const fromCommandLine = (name: string) => p.fromConfig.has(name) ? undefined : str(o, name);
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
  inputs.push(...optionInputs((name) => str(p.options, name)));
  for (const c of p.configFiles) inputs.push({ what: "a --config file", path: c });
  return inputs;
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

function startTimeOf(o: ParsedOptions, timezone: string, mode: "simulation" | "replay"): number {
  const raw = str(o, "sim_start_time");
  if (raw === undefined) return 0;
  let t: number;
  try {
    t = parseTimestamp(raw.trim(), timezone);
  } catch (e) {
    throw new EvtsimError("usage", `--sim_start_time: ${(e as Error).message}`);
  }
  if (t > 0 && mode !== "replay") {
    throw new EvtsimError(
      "usage",
      "--sim_start_time (warm start) needs replay input (begin_time and end_time columns)",
    );
  }
  return t;
}

function printParams(con: Console, c: SimulationConfig, paths: string[]): void {
  con.out("------ Sim params ------");
  con.out(` - input: ${paths.join(", ")}`);
  for (const [k, v] of Object.entries(c)) {
    if (v !== undefined && k !== "capacitySchedule" && k !== "resourceModel") {
      con.out(` - ${k}: ${v}`);
    }
  }
}

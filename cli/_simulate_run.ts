// The steps of an `evtsim simulate` run after its options (cli/simulate.ts,
// cli/_simulate_options.ts): inputs → configuration → run → outputs, each a
// method of one run record that holds what the steps share (the outputs,
// the engine state, the recording hooks, the checkpoints, the counters), in
// the order the command has always taken them: on any failure `abort`
// removes every temporary and old outputs stay as they were.

import { EvtsimError } from "../core/errors.ts";
import { initialState } from "../api/initial_state.ts";
import { type Input, step } from "../core/step.ts";
import { statistics } from "../core/queries.ts";
import type { Statistics } from "../core/statistics.ts";
import type { SimulationConfig, StepRows } from "../core/types.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { memoryPressureLimit } from "../api/memory.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import { type LoadedInput, loadInput, type LoadOptions } from "./load.ts";
import type { ParsedCommandLine, ParsedOptions } from "./options.ts";
import type { ScheduleLayout } from "./outputs.ts";
import { Progress } from "./progress.ts";
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
import { machineOf } from "./_machine_run.ts";
import { beforeStep } from "./_watchdog.ts";
import type { Console } from "./_console.ts";
import {
  checkFirstInput,
  externalOf,
  printParams,
  queuesOf,
  startTimeOf,
} from "./_simulate_inputs.ts";
import type { RedisRun } from "./_redis_output.ts";
import type { Checkpoints } from "./_checkpoint.ts";
import type { PconTimeline } from "./_pcon.ts";
import { machineWatts, PowerEnergy, powerGiven, withPconPower } from "./_power_options.ts";
import { inputsOf, type RunPlan, type Sources } from "./_simulate_options.ts";
import { commitOutputs, openOutputs, parquetWriter, publishToRedis } from "./_simulate_outputs.ts";
import type { SimulateRunDeps } from "./simulate.ts";

type State = ReturnType<typeof initialState>;
type Opened = Awaited<ReturnType<typeof openOutputs>>;

/**
 * One simulate run between its options and its summary: `open` makes the
 * outputs' temporaries, then `inputs`, `configure`, `simulate` and `commit`
 * run in that order (`abort` on a failure, `close` in any case).
 */
export class SimulateRun {
  readonly o: ParsedOptions;
  loadOptions: LoadOptions;
  // The inputs step's.
  registry!: PolicyRegistry;
  modules!: Awaited<ReturnType<typeof policyRegistry>>["modules"];
  external: ExternalCommand | undefined;
  queuesFile: Awaited<ReturnType<typeof queuesOf>>;
  machine: MachineInput | undefined;
  first!: LoadedInput;
  // The configuration step's.
  config!: SimulationConfig;
  totalNodes = 0;
  maxTime: number | undefined;
  state!: State;
  hooks!: RunHooks;
  checkpoints: Checkpoints | undefined;
  resumedRows: readonly StepRows[] = [];
  /** Jobs a resumed run has already fed (its checkpoint's), skipped as they are read again. */
  toSkip = 0;
  // The run step's and the outputs step's.
  progress: Progress | undefined;
  timeline: PconTimeline | undefined;
  /** A power model (cli/_power_options.ts): the run's energy from its rows. */
  energy: PowerEnergy | undefined;
  readSeconds = 0;
  recorded: string[] = [];
  runStatistics: Statistics | undefined;
  readonly redisJobs: RedisRun["jobs"][number][] = [];
  readonly redisResourceTimes: number[] = [];

  private constructor(
    readonly parsed: ParsedCommandLine,
    readonly sources: Sources,
    readonly plan: RunPlan,
    readonly con: Console,
    readonly deps: SimulateRunDeps,
    readonly opened: Opened,
    // --trace_type pcon: made with the first input (whose mode it needs).
    private readonly Timeline: typeof PconTimeline | undefined,
  ) {
    this.o = parsed.options;
    this.loadOptions = plan.loadOptions;
    this.energy = powerGiven(this.o) ? new PowerEnergy() : undefined;
  }

  /** The outputs' temporaries, made before anything is read. */
  static async open(
    parsed: ParsedCommandLine,
    sources: Sources,
    plan: RunPlan,
    con: Console,
    deps: SimulateRunDeps,
  ): Promise<SimulateRun> {
    const opened = await openOutputs(plan.redis, plan.real, deps);
    const Timeline = plan.pcon ? (await import("./_pcon.ts")).PconTimeline : undefined;
    return new SimulateRun(parsed, sources, plan, con, deps, opened, Timeline);
  }

  /** Reads a trace; reading is timed on its own so that a slow parse shows up as such. */
  readonly load = async (path: string, jobsLeft: number): Promise<LoadedInput> => {
    const t0 = performance.now();
    let input = await (this.deps.load ?? loadInput)(path, {
      ...this.loadOptions,
      maxJobs: jobsLeft,
    });
    if (this.energy !== undefined) {
      if (this.plan.pcon) input = { ...input, jobs: withPconPower(input.jobs) };
      this.energy.jobs(input.jobs);
    }
    this.readSeconds += (performance.now() - t0) / 1000;
    const { outputs } = this.opened;
    // Only these outputs write back what the trace gave (kept alive for them).
    if (this.plan.swf || this.plan.extended) outputs.input(input);
    // The stats JSON's breakdowns need each job's user and account (only those are kept).
    outputs.owners(input);
    if (this.Timeline !== undefined) {
      this.timeline ??= new this.Timeline(input.mode === "replay");
      this.timeline.jobs(input.mode === "replay" ? input.recorded : input.jobs);
    }
    return input;
  };

  /** The inputs step: the policies, an external command, the queues, the machine, the first trace. */
  async inputs(): Promise<void> {
    const { o } = this;
    const loaded = await policyRegistry(str(o, "policy_module"));
    this.modules = loaded.modules;
    this.external = await externalOf(
      o,
      this.plan.admission,
      loaded.registry,
      () => this.state?.config.totalNodes,
    );
    // A round blocks this thread: the command's worker must have started it first.
    if (this.external !== undefined) await this.external.ready;
    this.registry = this.external?.registry ?? loaded.registry;
    this.queuesFile = await queuesOf(o, this.registry);
    const queues = this.queuesFile?.queues;
    if (queues !== undefined) {
      this.loadOptions = { ...this.loadOptions, queues: new Set(queues.map((q) => q.name)) };
    }
    this.machine = await machineOf(o, this.queuesFile);
    if (machineWatts(this.machine?.machine)) this.energy ??= new PowerEnergy();
    if (this.machine !== undefined) {
      this.loadOptions = { ...this.loadOptions, machine: this.machine };
    }
    this.first = await this.load(this.plan.firstPath, this.plan.maxJobs);
    checkFirstInput(this.first, this.machine !== undefined, this.sources, this.con);
  }

  /** The configuration step: the engine's configuration and state, the recording hooks. */
  async configure(): Promise<void> {
    const { o, plan, first, machine } = this;
    const startTime = startTimeOf(o, plan.timezone, first.mode);
    this.totalNodes = machine?.nodes.length ?? num(o, "total_nodes") ?? first.machineSize ?? 795;
    const outputs = this.opened.outputs;
    this.config = await simulationConfigOf(o, {
      totalNodes: this.totalNodes,
      admission: plan.admission,
      runTimeMode: plan.runTimeMode,
      queues: this.queuesFile?.queues,
      fairshare: this.queuesFile?.fairshare,
      machine,
      pcon: plan.pcon,
      replay: first.mode === "replay",
      decisions: plan.named.decisions !== undefined,
      startTime,
      timezone: plan.timezone,
      failureTrace: (text) => outputs.failureTrace(text),
      // A stats-only run that drops its resource timeline reads no resource
      // row (cli/outputs.ts): the engine makes none, unless its energy is
      // read from them (a power model, a pcon timeline).
      resourceRows: this.energy !== undefined || plan.pcon || !(this.deps.figures !== undefined &&
        this.deps.fs?.discards?.(plan.real.get("--resource_trace")!) &&
        str(o, "resource_columns") !== "per_resource" && plan.named.record === undefined),
    });
    this.maxTime = num(o, "max_time");
    if (this.maxTime !== undefined && this.maxTime < startTime) {
      throw new EvtsimError(
        "usage",
        `--max_time ${this.maxTime} is before the start time ${startTime}`,
      );
    }
    this.state = initialState(this.config, {
      replay: first.mode === "replay",
      registry: this.registry,
    });
    // --record, --from_snapshot
    this.hooks = await RunHooks.create(o, this.state, first.mode, this.modules);
    this.state = await this.hooks.start((line) => outputs.recordLine(line));
  }

  /** --checkpoint_file: continue from it when it exists (cli/_checkpoint.ts). */
  async resume(): Promise<void> {
    const { plan } = this;
    if (plan.checkpointFile === undefined) return;
    if (this.first.mode === "replay") {
      throw new EvtsimError(
        "usage",
        "--checkpoint_file needs a simulation trace: a trace with begin_time and end_time replays a recorded schedule",
        { file: plan.firstPath },
      );
    }
    const { Checkpoints, runIdentity } = await import("./_checkpoint.ts");
    const opened = Checkpoints.open(
      plan.real.get("--checkpoint_file")!,
      num(this.o, "checkpoint_interval_jobs"),
      runIdentity(this.o, inputsOf(this.parsed, this.sources).map((i) => i.path)),
      this.registry,
    );
    this.checkpoints = opened.checkpoints;
    if (opened.resumed !== undefined) {
      this.state = opened.resumed.state;
      this.resumedRows = opened.resumed.rows;
    }
    this.toSkip = opened.resumed?.state.nextJobId ?? 0;
  }

  /** The outputs' layout, settled by the configuration; a resumed run's rows written first. */
  async beginOutputs(): Promise<void> {
    const { o, plan, state } = this;
    if (o.get("verbose") === true) printParams(this.con, this.config, this.sources.paths);
    const outputs = this.opened.outputs;
    outputs.begin({
      format: plan.swf ? "swf" : plan.parquet ? "parquet" : "csv",
      parquet: plan.parquet ? await parquetWriter() : undefined,
      extended: plan.extended,
      queueColumn: this.first.queueColumn,
      msec: o.get("msec_output") === true,
      totalNodes: this.totalNodes,
      version: VERSION,
      listRejected: o.get("verbose") === true,
      resourceModel: this.config.resourceModel,
      resourceColumns: str(o, "resource_columns") as ScheduleLayout["resourceColumns"],
      // Failures or preemptive queues: a job may be requeued.
      ...((state.config.capacitySchedule.some((c) => c.failed !== undefined) ||
          state.config.queues.some((q) => q.preemptMode === "requeue")) && !plan.parquet
        ? { requeues: true }
        : {}),
      ...(this.timeline !== undefined ? { pcon: this.timeline } : {}),
      ...(this.energy !== undefined ? { power: true } : {}),
    }, this.con.err);
    if (o.has("from_snapshot")) outputs.runningIn(state);
    for (const rows of this.resumedRows) this.emit(rows);
  }

  /** A step's rows to the outputs (and to Redis's lists). */
  readonly emit = (rows: StepRows): void => {
    this.opened.outputs.write(rows);
    this.energy?.resources(rows.resources);
    this.energy?.written(rows.jobs);
    if (this.opened.sink !== undefined) {
      for (const j of rows.jobs) this.redisJobs.push(j);
      for (const row of rows.resources) this.redisResourceTimes.push(row.time);
    }
  };

  private readonly applyOne = (input: Input): void => {
    const before = this.state;
    const t0 = performance.now();
    const r = step(this.state, input);
    this.state = r.state;
    this.emit(r.rows);
    this.checkpoints?.note(r.rows);
    this.hooks.record(input, before, r, t0);
  };

  /** One input to the engine, with the snapshot flush and the checkpoint it may be due. */
  readonly apply = (input: Input): void => {
    const { jobsCreated, jobsCompleted, jobsRejected } = this.state.stats;
    beforeStep(jobsCreated - jobsCompleted - jobsRejected);
    if (this.hooks.snapshotNext && input.kind !== "flush") this.applyOne({ kind: "flush" });
    this.applyOne(input);
    // A checkpoint holds the live jobs only: the finished ones are written first.
    const checkpoints = this.checkpoints;
    if (checkpoints?.due(this.state) && input.kind !== "finish") {
      this.applyOne({ kind: "flush" });
      checkpoints.save(this.state);
    }
  };

  // The run loop's view of this run (cli/run_loop.ts).
  private loopContext(progress: Progress): LoopContext {
    const memoryFraction = num(this.o, "check_memory_pressure");
    const checkpoints = this.checkpoints;
    return {
      apply: this.apply,
      current: () => this.state,
      progress,
      maxTime: this.maxTime,
      memoryLimit: memoryFraction !== undefined
        ? () => memoryPressureLimit(memoryFraction)
        : undefined,
      yielder: new Yielder(),
      // --checkpoint_file with --infile_list: a checkpoint after each file's
      // jobs are fed (DR_EVT's file boundary), the last file's included.
      fileFed: checkpoints !== undefined && this.sources.list !== undefined
        ? () => {
          if (!checkpoints.dueAtFileBoundary(this.state)) return;
          this.applyOne({ kind: "flush" });
          checkpoints.save(this.state);
        }
        : undefined,
      unseen: (jobs) => {
        jobs = this.hooks.skip(jobs);
        if (this.toSkip === 0) return jobs;
        const n = Math.min(this.toSkip, jobs.length);
        this.toSkip -= n;
        return jobs.slice(n);
      },
      byInstant: this.hooks.recording,
    };
  }

  /** The run step: every input fed, the run ended, the progress line closed. */
  async simulate(): Promise<void> {
    const { o, first, sources, con } = this;
    const total = sources.paths.length === 1
      ? (first.mode === "replay" ? first.recorded.length : (first.columns ?? first.jobs).length)
      : 0;
    const progress = this.progress = new Progress(
      "simulating",
      total,
      o.get("no_progress") !== true && (o.get("progress") === true || con.isTerminal),
      this.deps.progressSink,
    );
    const loop = this.loopContext(progress);
    if (first.mode === "replay") await replayAll(first, loop);
    else await simulateFiles(sources.paths, first, this.plan.maxJobs, this.load, con.err, loop);
    // With checkpoints the run's end goes instant by instant (the same rows,
    // cli/run_loop.ts), so that it has checkpoints too.
    applyAdvance(
      this.maxTime !== undefined
        ? { kind: "advanceTo", time: Math.max(this.maxTime, this.state.time) }
        : { kind: "runToCompletion" },
      this.checkpoints?.interval !== undefined ? { ...loop, byInstant: true } : loop,
    );
    // One macrotask before the last step: a policy's timer due by now runs, and
    // a decision it makes on an ended session fails the run (`finish` refuses
    // to end a run with one) instead of vanishing after an exit 0.
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.apply({ kind: "finish" });
    progress.update(total);
    progress.done();
  }

  /** The outputs step: every output committed, the run sent to Redis, the report written. */
  async commit(): Promise<void> {
    const { o, plan, opened } = this;
    this.recorded = this.hooks.finish(this.state);
    this.runStatistics = commitOutputs(o, this.state, opened.outputs, {
      paths: this.sources.paths,
      machine: this.machine,
      metricsOptions: plan.metricsOptions,
      timeline: this.timeline,
      energy: this.energy,
      figures: this.deps.figures,
    });
    if (opened.sink !== undefined) {
      await publishToRedis(
        opened.sink,
        opened.capture!,
        opened.memory!,
        plan.real.get("--stats_json"),
        {
          jobs: this.redisJobs,
          resourceTimes: this.redisResourceTimes,
          msec: o.get("msec_output") === true,
        },
      );
    }
    this.checkpoints?.finish();
    if (plan.named.report !== undefined) {
      await writeRunReport(o, {
        schedulePath: plan.schedulePath,
        schedule: plan.real.get("--outfile")!,
        resources: plan.real.get("--resource_trace")!,
        report: plan.real.get("--report")!,
        machineRun: opened.outputs.resourceMetrics(plan.metricsOptions),
        paths: this.sources.paths,
        metricsOptions: plan.metricsOptions,
      });
    }
  }

  /** A failed run: the progress line closed, every temporary removed, Redis let go. */
  abort(): void {
    this.progress?.done();
    this.opened.outputs.abort();
    this.opened.sink?.destroy();
  }

  /** Ends the external command, if any (after a run or a failure). */
  async close(): Promise<void> {
    await this.external?.close();
  }

  /** The lines a run ends with: its statistics, times and outputs, and what it recorded. */
  summary(started: number): void {
    const wall = (performance.now() - started) / 1000;
    const msec = this.o.get("msec_output") === true;
    printRunSummary(
      this.con,
      this.runStatistics ?? statistics(this.state),
      msec,
      wall,
      this.readSeconds,
      this.opened.sink,
      this.plan.named,
    );
    for (const line of this.recorded) this.con.out(line);
  }
}

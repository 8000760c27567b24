// What `evtsim simulate` does for recording and snapshots, kept out of
// cli/simulate.ts so that file only calls in: `--record FILE` (with
// `--snapshot_interval N` and `--record_decisions`) and `--from_snapshot FILE`
// (continue a run from a snapshot). The log is one of the run's outputs: it
// is written through their all-or-nothing set (cli/outputs.ts).
//
// The modules behind them (the log codec, the schemas, the YAML reader) are
// imported only when an option asks for them: a plain run starts as fast as
// it did without these options.

import type { Recorder } from "../api/recorder.ts";
import { EvtsimError } from "../core/errors.ts";
import type { SimState } from "../core/state.ts";
import type { Input, StepResult } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";
import type { PolicyModuleRef } from "../io/replay_schema.ts";
import type { ParsedOptions } from "./options.ts";
import type { SimulateOptionName } from "./option_table.ts";

/** The configuration options a snapshot already fixes (refused with --from_snapshot). */
const CONFIG_OPTIONS = [
  "total_nodes",
  "backfill_policy",
  "priority_policy",
  "run_time_mode",
  "duration_mode",
  "run_time_distribution",
  "run_time_scale",
  "run_time_stddev",
  "seed",
  "job_store_capacity",
  "job_store_overflow",
  "job_flush_interval",
  "resource_history_capacity",
  "capacity_schedule",
  "on_capacity_cut",
  "capacity_semantics",
  "node_failures",
  "failure_model",
  "on_node_failure",
  "requeue_limit",
  "sim_start_time",
  "queues",
  "picker",
];

const str = (o: ParsedOptions, name: SimulateOptionName) => {
  const v = o.get(name);
  return typeof v === "string" ? v : undefined;
};

// A run continued from a snapshot reads its trace's demands against --machine:
// the snapshot's resource model must be that machine (or neither has one).
function sameMachine(fresh: SimState, loaded: SimState, file: string): void {
  const nodes = (s: SimState) => {
    const m = s.resources?.model;
    return m === undefined ? undefined : JSON.stringify(m.nodes ?? []);
  };
  const given = nodes(fresh);
  const stored = nodes(loaded);
  if (given === stored) return;
  throw new EvtsimError(
    "usage",
    stored === undefined
      ? "--machine: the snapshot is of a run without a machine"
      : given === undefined
      ? "the snapshot is of a machine run: give its machine file with --machine"
      : "--machine: the machine file's nodes are not those of the snapshot's machine",
    { file },
  );
}

/** Recording and snapshot hooks of one `simulate` run. */
export class RunHooks {
  #state: SimState;
  #toSkip: number;
  #recorder: Recorder | undefined;
  readonly #recordPath: string | undefined;
  readonly #options: ParsedOptions;
  readonly #policyModules: readonly PolicyModuleRef[];

  private constructor(o: ParsedOptions, state: SimState, modules: readonly PolicyModuleRef[]) {
    this.#options = o;
    this.#policyModules = modules;
    this.#state = state;
    this.#toSkip = 0;
    this.#recordPath = str(o, "record");
  }

  /**
   * Checks the options and, with --from_snapshot, loads the snapshot (the
   * state to continue from). `state` is the fresh state of the options;
   * `modules` are the policy modules its registry came from (named in the
   * recording's header).
   */
  static async create(
    o: ParsedOptions,
    state: SimState,
    mode: "simulation" | "replay",
    modules: readonly PolicyModuleRef[] = [],
  ): Promise<RunHooks> {
    const hooks = new RunHooks(o, state, modules);
    const from = str(o, "from_snapshot");
    for (const name of ["record", "from_snapshot"]) {
      if (o.has(name) && mode === "replay") {
        throw new EvtsimError(
          "usage",
          `--${name} needs a simulation trace: a trace with begin_time and end_time replays a recorded schedule and makes no decisions`,
        );
      }
    }
    if (!o.has("record")) {
      for (const name of ["snapshot_interval", "record_decisions"]) {
        if (o.has(name)) throw new EvtsimError("usage", `--${name} needs --record FILE`);
      }
    }
    if (from !== undefined) {
      const given = CONFIG_OPTIONS.filter((name) => o.has(name));
      if (given.length > 0) {
        throw new EvtsimError(
          "usage",
          `--from_snapshot continues with the snapshot's configuration; drop --${given[0]}`,
        );
      }
      const { readSnapshotFile } = await import("./_snapshot_file.ts");
      // Policies of --policy_module resolve in the snapshot too.
      hooks.#state = await readSnapshotFile(from, state.registry);
      sameMachine(state, hooks.#state, from);
      // The snapshot has seen the first nextJobId jobs of the run's trace.
      hooks.#toSkip = hooks.#state.nextJobId;
    }
    return hooks;
  }

  /** The state to start from. */
  get state(): SimState {
    return this.#state;
  }

  /**
   * Starts the recording, if asked for, writing its lines with `line`;
   * returns the state to run (decisions on when recording).
   */
  async start(line: (text: string) => void): Promise<SimState> {
    if (this.#recordPath === undefined) return this.#state;
    const { Recorder } = await import("../api/recorder.ts");
    const interval = this.#options.get("snapshot_interval");
    const level = str(this.#options, "record_decisions") === "all" ? true : "heads";
    this.#recorder = new Recorder(
      { write: (text) => line(text.slice(0, -1)) },
      this.#state,
      {
        ...(typeof interval === "number" ? { snapshotInterval: interval } : {}),
        decisions: level,
        policyModules: this.#policyModules,
      },
    );
    this.#state = this.#recorder.initial;
    return this.#state;
  }

  /** Whether the run is recorded (it is then fed one instant per step: cli/run_loop.ts). */
  get recording(): boolean {
    return this.#recordPath !== undefined;
  }

  /** Jobs of the trace the snapshot has not seen (all of them without --from_snapshot). */
  skip(jobs: JobSpec[]): JobSpec[] {
    if (this.#toSkip === 0) return jobs;
    const n = Math.min(this.#toSkip, jobs.length);
    this.#toSkip -= n;
    return jobs.slice(n);
  }

  /**
   * Whether a snapshot follows the next recorded step. The run then applies
   * a `flush` first (finished records written and dropped from the job
   * store; the outputs are the same, in the same order), so that the
   * snapshot after it holds the live jobs, not thousands of finished ones.
   */
  get snapshotNext(): boolean {
    return this.#recorder?.snapshotNext === true;
  }

  /** Records one applied step (when recording). */
  record(input: Input, before: SimState, result: StepResult, t0: number): void {
    const r = this.#recorder;
    if (r === undefined) return;
    if (!r.record(input, before.time, result, performance.now() - t0)) {
      throw new EvtsimError(
        "input",
        `cannot write the recording: ${r.error?.message ?? "write failed"}`,
        { file: this.#recordPath },
      );
    }
  }

  /** Ends the recording (the outputs' commit moves it into place); returns the lines to print. */
  finish(state: SimState): string[] {
    if (this.#recorder === undefined) return [];
    const events = this.#recorder.stop(state.time);
    if (this.#recorder.error !== undefined) {
      throw new EvtsimError(
        "input",
        `cannot write the recording: ${this.#recorder.error.message}`,
        {
          file: this.#recordPath,
        },
      );
    }
    return [`Replay log written to: ${this.#recordPath} (${events} events)`];
  }
}

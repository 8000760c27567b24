// The outputs of an `evtsim simulate` run: their temporaries opened before
// anything is read (in memory for --redis_uri), and, once the run has ended,
// the statistics JSON (or a stats-only run's figures) made and every output
// committed, and the run sent to Redis.

import { statistics } from "../core/queries.ts";
import type { Statistics } from "../core/statistics.ts";
import { capacityOverTime, machineMetrics, type MetricsOptions } from "../core/metrics.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import { SLOWDOWN_TAU, statsJsonText } from "../io/stats_json.ts";
import type { initialState } from "../api/initial_state.ts";
import { RunOutputs, type ScheduleLayout } from "./outputs.ts";
import type { ParsedOptions } from "./options.ts";
import { jsonConfig } from "./_machine_run.ts";
import { VERSION } from "./version.ts";
import type { PconTimeline } from "./_pcon.ts";
import type { PowerEnergy } from "./_power_options.ts";
import type { REDIS_PATHS, RedisCapture, RedisRun, RedisSink } from "./_redis_output.ts";
import type { RunPlan } from "./_simulate_options.ts";
import type { RunFigures, SimulateRunDeps } from "./simulate.ts";

// The outputs' temporaries, made before anything is read; with --redis_uri
// the schedule, the resource CSV and the statistics JSON are made in memory.
export async function openOutputs(
  redis: RunPlan["redis"],
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

// The outputs step: the statistics JSON (or a stats-only run's figures)
// made and every output committed; returns the run's statistics.
export function commitOutputs(
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
  // Read inside the commit: a pcon timeline is matched up as its rows are written.
  const energy = () =>
    c.energy !== undefined
      ? { energy: c.energy.energy() }
      : c.timeline !== undefined
      ? { energy: c.timeline.energy() }
      : {};
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
        ...energy(),
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
      ...energy(),
    });
  });
  if (figures !== undefined) c.figures!(figures);
  return endStatistics;
}

// --redis_uri: the run made in memory, sent once it has ended.
export async function publishToRedis(
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

// The Parquet writer is loaded only for a Parquet schedule.
export async function parquetWriter() {
  const { ScheduleParquet } = await import("../io/schedule_parquet.ts");
  return (layout: ScheduleLayout) => new ScheduleParquet(layout);
}

// The options as the statistics JSON lists them: a password in --redis_uri
// is not written down (the JSON goes to Redis and to files).
export function shownOptions(o: ParsedOptions): Record<string, string | number | boolean> {
  const options = Object.fromEntries(o);
  const uri = options.redis_uri;
  if (typeof uri === "string") {
    options.redis_uri = uri.replace(/^(\w+:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
  }
  return options;
}

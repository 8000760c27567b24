// `evtsim simulate`: read the trace, feed the reducer, write the rows. No
// scheduling logic lives here. A run goes in steps (options → inputs →
// configuration → run → outputs; cli/_simulate_options.ts and the run record
// of cli/_simulate_run.ts), and the order matters for "nothing lost, nothing
// half-written": options are checked first, then every output path (against
// each other and the inputs), then the outputs' temporaries are created, and
// only then is anything read or simulated; on any failure every temporary
// is removed and old outputs stay as they were. compare's runs and a sweep's
// cells are this same command (with their own `SimulateRunDeps`).

import type { EnergyMetrics } from "../io/stats_json.ts";
import type { Statistics } from "../core/statistics.ts";
import type { Fairness, Metrics, ResourceMetrics } from "../core/metrics.ts";
import type { OutputFileSystem } from "../io/atomic_writer.ts";
import type { LoadedInput, LoadOptions } from "./load.ts";
import { parseCommandLineAsync, simulateHelp } from "./options.ts";
import type { ProgressSink } from "./progress.ts";
import { readInfileList } from "./load.ts";
import { runPlanOf, type Sources, sourcesOf } from "./_simulate_options.ts";
import { SimulateRun } from "./_simulate_run.ts";
import type { Console } from "./_console.ts";

// Re-exported where the commands and tests have always found them.
export type { Console } from "./_console.ts";
import { defaultOutfile, defaultResourceFile } from "./_output_names.ts";
export { defaultOutfile, defaultResourceFile };
export { inputsOf, type Sources, sourcesOf } from "./_simulate_options.ts";

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
  /** With a power model or a pcon trace: the stats JSON's `energy` (docs/power.md). */
  readonly energy?: EnergyMetrics;
}

/** Runs `evtsim simulate ARGS`; returns the exit code. */
export async function simulateCommand(
  args: readonly string[],
  con: Console,
  deps: SimulateRunDeps = {},
): Promise<number> {
  const parsed = await parseCommandLineAsync(args);
  if (parsed.options.get("help") === true) {
    con.out(simulateHelp());
    return 0;
  }
  const started = performance.now();
  const given = sourcesOf(parsed);
  const sources: Sources = given.list !== undefined
    ? { paths: await readInfileList(given.list), list: given.list }
    : given;
  const plan = await runPlanOf(parsed.options, parsed, sources, deps);
  const run = await SimulateRun.open(parsed, sources, plan, con, deps);
  try {
    await run.inputs();
    await run.configure();
    await run.resume();
    await run.beginOutputs();
    await run.simulate();
    await run.commit();
  } catch (e) {
    run.abort();
    throw e;
  } finally {
    await run.close();
  }
  run.summary(started);
  return 0;
}

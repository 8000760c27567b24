// `evtsim replay FILE`: re-simulate a recorded scheduling session (a
// `.replay` log) and, with --verify, check every decision against the
// recording (api/resimulation.ts does the work). Not to be confused with
// `evtsim simulate` on a trace with begin/end columns, which replays a
// recorded *schedule* without asking the scheduler anything.

import { Resimulation, type ResimulationOptions } from "../api/resimulation.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Reconfiguration } from "../core/reconfigure.ts";
import { AtomicOutputSet } from "../io/atomic_writer.ts";
import { readQueuesFile } from "../io/queues_file.ts";
import { Dumper } from "../io/replay_dump.ts";
import { LogReader, parseLog } from "../io/replay_reader.ts";
import { mismatchText } from "./_mismatch_text.ts";
import type { HeaderMessage } from "../io/replay_schema.ts";
import { optionHelp, type ParsedArgs, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import { logPolicies, type Overrides } from "./policy_module.ts";
import type { Console } from "./simulate.ts";
import { checkOutputPath, type NamedPath, optionInputs } from "./paths.ts";

/** Exit status when --verify finds a decision that differs from the recording. */
export const EXIT_MISMATCH = 3;

/** `evtsim replay`'s options. */
export const REPLAY_OPTIONS = [
  {
    name: "verify",
    kind: "flag",
    help: "compare every decision with the recorded one; print the first difference and the " +
      "count (round numbers are not compared after it), exit 3 if any",
  },
  {
    name: "output",
    kind: "string",
    short: "o",
    placeholder: "FILE",
    help: "write the re-simulation's own .replay log (same format; diff the dumps)",
  },
  {
    name: "alt_events",
    kind: "string",
    placeholder: "FILE",
    help: "what-if: take the events (and the sessions --verify compares) from FILE, " +
      "e.g. an edited copy of the log; events with seq >= the start snapshot's are replayed",
  },
  {
    name: "start_time",
    kind: "number",
    placeholder: "T",
    help: "start from the last snapshot at or before simulation time T (default: the first)",
  },
  {
    name: "speed",
    kind: "number",
    default: 0,
    min: 0,
    placeholder: "X",
    help: "pace wall time: X simulated seconds per second (0 = as fast as possible, default); " +
      "the decisions never depend on it",
  },
  {
    name: "policy_module",
    kind: "string",
    placeholder: "FILE",
    help: "load pickers and admission policies from FILE (default: the module the log names, " +
      "if its source is unchanged); needed to replay with another module",
  },
  { name: "picker", kind: "string", placeholder: "NAME", help: "re-simulate under another picker" },
  {
    name: "backfill_policy",
    kind: "string",
    short: "b",
    placeholder: "NAME",
    help: "re-simulate under another admission (backfill) policy",
  },
  {
    name: "admission",
    kind: "string",
    placeholder: "NAME",
    help: "re-simulate under another admission policy (as simulate's --admission; " +
      "the same as -b)",
  },
  {
    name: "queues",
    kind: "string",
    placeholder: "FILE",
    help: "re-simulate with these queues (YAML or JSON, as for simulate --queues)",
  },
  {
    name: "on_capacity_cut",
    kind: "enum",
    values: ["drain", "kill"],
    help: "re-simulate with running jobs beyond a capacity cut drained or killed",
  },
  {
    name: "capacity_semantics",
    kind: "enum",
    values: ["evtsim", "drevt"],
    help: "re-simulate with a job larger than the capacity held (evtsim) or blocking (drevt)",
  },
  {
    name: "on_node_failure",
    kind: "enum",
    values: ["kill", "requeue"],
    help: "re-simulate with the jobs on a failing node killed or requeued",
  },
  {
    name: "requeue_limit",
    kind: "number",
    placeholder: "N",
    help: "re-simulate with at most N requeues of a job after node failures",
  },
  {
    name: "power_cap",
    kind: "number",
    min: 0,
    placeholder: "W",
    help: "re-simulate under a constant power cap of W watts (replacing the recorded cap)",
  },
  {
    name: "interactive",
    kind: "flag",
    short: "i",
    help: "open the REPL (prompt '(sim) ') before the first event: step, break, inspect, " +
      "snapshot, go back; 'help' at the prompt lists the commands",
  },
  {
    name: "history",
    kind: "number",
    min: 0,
    placeholder: "N",
    help: "with -i: keep the positions of the last N scheduling sessions for 'back' " +
      "(default 1000; 0 = none)",
  },
  { name: "help", kind: "flag", short: "h", help: "show this help" },
] as const satisfies readonly OptionSpec[];

type ReplayOption = (typeof REPLAY_OPTIONS)[number];

// A file option's path by name (cli/paths.ts asks for its input options so).
function stringOption(parsed: ParsedArgs<ReplayOption>, name: string): string | undefined {
  const v = (parsed.options as ReadonlyMap<string, unknown>).get(name);
  return typeof v === "string" ? v : undefined;
}

/** Sessions of history the REPL keeps by default. */
export const DEFAULT_HISTORY = 1000;

function help(): string {
  return [
    "usage: evtsim replay FILE [options]",
    "",
    "Re-simulates a recorded scheduling session: FILE is a .replay log written by",
    "'evtsim simulate --record' or by Simulation.startRecording. The header and the snapshot at",
    "or before --start_time are loaded and every recorded event (job submissions, ends, cancels,",
    "updates, queue and capacity changes) is run through the scheduler again. Without --verify,",
    "--output or a what-if the re-simulated events and decisions are printed as 'evtsim dump'",
    "prints them.",
    "",
    "A what-if (--alt_events, --picker, --admission/-b or --queues, without --verify) runs the",
    "log as recorded and as changed from the same snapshot, and prints the statistics of both",
    "side by side (jobs, waits, bounded slowdown, utilization, makespan) and the first decision",
    "where they part (time, job, both decisions; round numbers are not compared).",
    "",
    "Not the same as a replay of a recorded *schedule*: 'evtsim simulate TRACE' with begin_time",
    "and end_time columns replays who ran when and never asks the scheduler; 'evtsim replay' asks",
    "the scheduler again and checks that it decides as it did.",
    "",
    "A log recorded with --policy_module names the module (absolute path and SHA-256 of its",
    "source): replay loads it from that path when the source is unchanged, and refuses a changed",
    "or missing module unless --policy_module FILE is given (then FILE's policies are used).",
    "",
    "examples:",
    "  evtsim simulate trace.csv -n 128 --record run.replay",
    "  evtsim replay run.replay --verify",
    "  evtsim replay run.replay --alt_events whatif.replay --output whatif_out.replay",
    "  diff <(evtsim dump run.replay) <(evtsim dump whatif_out.replay)",
    "  evtsim replay run.replay -i",
    "",
    "With --interactive (-i) the log is loaded and a REPL waits before the first event; its",
    "commands are read from stdin (a terminal gets line editing and history; a pipe works too):",
    "  step [N], next [N], continue, back [N], back session [N], history, quit;",
    "  break TYPE [key=value ...] (TYPE: JOB_PUSH, JOB_STATE_CHANGE, JOB_UPDATE, QUEUE_UPDATE,",
    "  BEGIN_ROUND, DECISION), info break, delete ID|all; info session|job ID|queue NAME|all|",
    "  pending|resource|summary|config; snapshot [FILE]; set speed X|output FILE|off|verify on|off;",
    "  help. An event is one instant of the log: the ends, arrivals and live events due then and",
    "  the scheduling rounds they cause. --verify, --output and --speed set the REPL's starting",
    "  'set verify', 'set output' and 'set speed'.",
    "",
    "options:",
    ...optionHelp(REPLAY_OPTIONS),
    "",
    "Exit status: 0 on success, 1 on a usage or input error, 3 when --verify finds a mismatch.",
  ].join("\n");
}

// The registry to replay `path` with: its header names the policy modules.
async function policiesOfLog(path: string, given: string | undefined, overrides: Overrides) {
  const head = LogReader.open(path, "log");
  try {
    return await logPolicies(path, head.next() as HeaderMessage, given, overrides);
  } finally {
    head.close();
  }
}

/**
 * Runs `evtsim replay ARGS`; returns the exit code. `input` replaces stdin
 * as the REPL's lines (tests).
 */
export async function replayCommand(
  args: readonly string[],
  con: Console,
  input?: AsyncIterable<string>,
): Promise<number> {
  const parsed = parseOptions(args, REPLAY_OPTIONS, { command: "replay", dialect: "plain" });
  if (parsed.options.get("help") === true) {
    con.out(help());
    return 0;
  }
  const path = logPathOf(parsed);
  const startTime = parsed.options.get("start_time");
  const speed = parsed.value("speed");
  const verify = parsed.options.get("verify") === true;
  const outputPath = parsed.options.get("output");
  const queuesPath = parsed.options.get("queues");
  // No output may be an input (cli/paths.ts): checked before anything is read.
  const inputs = [{ what: "the log", path }, ...optionInputs((n) => stringOption(parsed, n))];
  if (outputPath !== undefined) checkOutputPath("--output", outputPath, inputs);
  const queuesFile = queuesPath === undefined ? undefined : await readQueuesFile(queuesPath);
  const change = reconfigurationOf(parsed, queuesFile);

  const interactive = parsed.options.get("interactive") === true;
  const history = historyOf(parsed, interactive);

  const { source, log, alt } = await openSource(parsed, path, change, startTime);

  if (interactive) {
    const repl = { file: path, history, speed, verify, inputs, output: outputPath };
    return await runInteractive(source, log, alt, con, repl, input);
  }

  // Another event stream or policy without --verify: a what-if (cli/_replay_whatif.ts).
  const whatIf = !verify && (alt !== undefined || Object.keys(change).length > 0);
  if (whatIf && speed > 0) {
    throw new EvtsimError("usage", "--speed paces a replay; a what-if runs as fast as it can");
  }
  const outputs = new AtomicOutputSet();
  const writer = outputPath === undefined ? undefined : outputs.open(outputPath);
  // Without --verify, --output or a what-if, the re-simulation's own log is printed as `dump` prints it.
  const print = !verify && !whatIf && writer === undefined;
  let printed = "";
  const lines: string[] = [];
  try {
    const sim = new Resimulation({
      ...source,
      verify,
      ...(writer !== undefined
        ? { output: { write: (t: string) => writer.line(t.slice(0, -1)) } }
        : print
        ? { output: { write: (t: string) => void (printed += t) } }
        : {}),
    });
    const compared = whatIf ? await whatIfRun(path, source, sim) : [];
    if (!whatIf) await stepAll(sim, speed, (m) => lines.push(mismatchText(alt?.file ?? path, m)));
    // Everything read: the warnings (a torn last line) come first.
    for (const w of [...log.warnings, ...(alt?.warnings ?? [])]) con.err(w);
    if (print) {
      const dumper = new Dumper();
      for (const e of parseLog(printed, "(re-simulation)").entries) lines.push(...dumper.lines(e));
    }
    sim.close();
    outputs.commit();
    lines.push(...endLines(sim, path, compared, verify, outputPath));
    if (lines.length > 0) con.out(lines.join("\n"));
    return verify && sim.mismatches.length > 0 ? EXIT_MISMATCH : 0;
  } catch (e) {
    outputs.abort();
    throw e;
  } finally {
    log.close();
    alt?.close();
  }
}

// The one positional argument: the log.
function logPathOf(parsed: ParsedArgs<ReplayOption>): string {
  if (parsed.positional.length !== 1) {
    throw new EvtsimError(
      "usage",
      parsed.positional.length === 0
        ? "no log file given (see 'evtsim replay --help')"
        : `unexpected arguments: ${parsed.positional.slice(1).join(" ")}`,
    );
  }
  return parsed.positional[0];
}

// The log (and --alt_events) opened, with the policies the re-simulation
// runs: what it reads and changes, interactive or not.
async function openSource(
  parsed: ParsedArgs<ReplayOption>,
  path: string,
  change: Reconfiguration,
  startTime: number | undefined,
) {
  const altPath = parsed.options.get("alt_events");
  const policies = await policiesOfLog(path, parsed.options.get("policy_module"), {
    picker: change.picker !== undefined,
    admission: change.backfillPolicy !== undefined,
    queues: change.queues !== undefined,
  });
  const log = LogReader.open(path, "log");
  const alt = altPath === undefined ? undefined : LogReader.open(altPath, "events");
  const source = {
    log,
    ...(alt === undefined ? {} : { events: alt }),
    ...(startTime === undefined ? {} : { startTime }),
    ...(Object.keys(change).length === 0 ? {} : { reconfigure: change }),
    registry: policies.registry,
    policyModules: policies.modules,
  };
  return { source, log, alt };
}

// -i: the re-simulation stepped through in the REPL (cli/replay_repl.ts).
async function runInteractive(
  source: ResimulationOptions,
  log: LogReader,
  alt: LogReader | undefined,
  con: Console,
  repl: {
    readonly file: string;
    readonly history: number;
    readonly speed: number;
    readonly verify: boolean;
    readonly inputs: NamedPath[];
    readonly output: string | undefined;
  },
  input: AsyncIterable<string> | undefined,
): Promise<number> {
  try {
    const sim = new Resimulation(source);
    const { runRepl } = await import("./replay_repl.ts");
    const code = await runRepl(sim, con, {
      file: repl.file,
      history: repl.history,
      speed: repl.speed,
      verify: repl.verify,
      inputs: repl.inputs,
      ...(repl.output === undefined ? {} : { output: repl.output }),
    }, input);
    for (const w of [...log.warnings, ...(alt?.warnings ?? [])]) con.err(w);
    return code;
  } finally {
    log.close();
    alt?.close();
  }
}

// --history: how many sessions the REPL keeps, with -i only.
function historyOf(parsed: ParsedArgs<ReplayOption>, interactive: boolean): number {
  const history = parsed.options.get("history") ?? DEFAULT_HISTORY;
  if (!Number.isSafeInteger(history)) {
    throw new EvtsimError("usage", `--history must be a whole number of sessions, got ${history}`);
  }
  if (parsed.options.has("history") && !interactive) {
    throw new EvtsimError("usage", "--history needs --interactive (-i)");
  }
  return history;
}

// What a non-interactive replay ends with: what was replayed, the what-if's
// comparison, the verdict of --verify, where --output went.
function endLines(
  sim: Resimulation,
  path: string,
  compared: readonly string[],
  verify: boolean,
  outputPath: string | undefined,
): string[] {
  const out: string[] = [];
  const c = sim.counts;
  out.push(
    `replayed ${c.events} events from the snapshot at time ${sim.start.time} (seq ${sim.start.seq}, ${path}:${sim.start.line}): ${c.sessions} sessions, ${c.decisions} decisions`,
  );
  out.push(...compared);
  if (verify) {
    out.push(
      sim.mismatches.length === 0
        ? "verify: every decision matches the recording"
        : `verify: ${sim.mismatches.length} decision(s) differ from the recording (the first above; rounds not compared after it)`,
    );
  }
  if (outputPath !== undefined) out.push(`Re-simulation log written to: ${outputPath}`);
  return out;
}

// What the re-simulation changes from the recorded run: the options given.
function reconfigurationOf(
  parsed: ParsedArgs<ReplayOption>,
  queuesFile: Awaited<ReturnType<typeof readQueuesFile>> | undefined,
): Reconfiguration {
  return {
    ...(parsed.options.has("picker") ? { picker: parsed.options.get("picker") } : {}),
    ...(parsed.options.has("admission") || parsed.options.has("backfill_policy")
      ? {
        backfillPolicy: parsed.options.get("admission") ?? parsed.options.get("backfill_policy"),
      }
      : {}),
    ...(queuesFile === undefined || queuesFile.queues.length === 0
      ? {}
      : { queues: queuesFile.queues.map((e) => e.queue) }),
    ...(queuesFile?.fairshare === undefined
      ? {}
      : { pickerSettings: { fairshare: queuesFile.fairshare } }),
    ...(parsed.options.has("on_capacity_cut")
      ? { onCapacityCut: parsed.options.get("on_capacity_cut") }
      : {}),
    ...(parsed.options.has("capacity_semantics")
      ? {
        capacitySemantics: parsed.options.get("capacity_semantics"),
      }
      : {}),
    ...(parsed.options.has("on_node_failure")
      ? { onNodeFailure: parsed.options.get("on_node_failure") }
      : {}),
    ...(parsed.options.has("requeue_limit") ? { requeueLimit: requeueLimitOf(parsed) } : {}),
    ...(parsed.options.has("power_cap") ? { powerCap: parsed.options.get("power_cap") } : {}),
  };
}

// The re-simulation to its end, paced by --speed (simulated seconds per
// wall second); the first mismatch is handed on in full, the count follows.
async function stepAll(
  sim: Resimulation,
  speed: number,
  mismatch: (m: Resimulation["mismatches"][number]) => void,
): Promise<void> {
  const wallStart = performance.now();
  let reported = 0;
  for (;;) {
    if (speed > 0) {
      const t = sim.nextTime();
      if (t !== undefined) {
        const due = wallStart + ((t - sim.start.time) / speed) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    if (sim.step() === undefined) break;
    // The first mismatch in full; the count follows at the end.
    for (; reported < Math.min(1, sim.mismatches.length); reported++) {
      mismatch(sim.mismatches[reported]);
    }
  }
}

// The what-if against the log's own run from the same snapshot: the lines to print.
async function whatIfRun(
  path: string,
  source: ResimulationOptions,
  sim: Resimulation,
): Promise<string[]> {
  const { runWhatIf, whatIfLines } = await import("./_replay_whatif.ts");
  const { events: _events, reconfigure: _change, ...same } = source;
  const log = LogReader.open(path, "log");
  try {
    return whatIfLines(runWhatIf({ ...same, log }, sim));
  } finally {
    log.close();
  }
}

// `--requeue_limit N`: a whole number of requeues.
function requeueLimitOf(parsed: ParsedArgs<ReplayOption>): number {
  const n = parsed.options.get("requeue_limit");
  if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
    throw new EvtsimError(
      "usage",
      `--requeue_limit must be a whole number of requeues, got ${
        parsed.options.get("requeue_limit")
      }`,
    );
  }
  return n;
}

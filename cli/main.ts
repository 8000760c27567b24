/**
 * The `evtsim` command line: `evtsim simulate TRACE [options]` simulates a
 * DR_EVT CSV, Lassen CSV or SWF trace and writes the schedule and resource
 * CSVs. Usage, input and output errors print one line and exit 1; SIGINT and
 * SIGTERM remove the temporaries and exit 130 / 143; anything else is a bug
 * and keeps its stack trace.
 *
 * @example
 * ```ts
 * import { main } from "@evtsim/evtsim/cli";
 * const out: string[] = [];
 * const code = await main(["--version"], { out: (l) => out.push(l), err: () => {}, isTerminal: false });
 * console.assert(code === 0 && out[0].startsWith("evtsim "));
 * ```
 *
 * @module
 */

import { EvtsimError } from "../core/errors.ts";
import { ignoreRecordedPolicyFaults } from "./_policy_fault_listeners.ts";
import { abortAllOutputs } from "../io/atomic_writer.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import type { Console, SimulateDeps } from "./simulate.ts";
import { VERSION } from "./version.ts";
import { userFolder } from "./_user_folder.ts";
import { runShutdownHooks } from "./_shutdown.ts";
import { didYouMean } from "./_suggest.ts";

export type { Console, SimulateDeps };
export type { OutputFile, OutputFileSystem } from "../io/atomic_writer.ts";
export type { ProgressSink } from "./progress.ts";

const USAGE = [
  "usage: evtsim <command> [options]",
  "",
  "commands:",
  "  simulate TRACE [options]   simulate a trace, or replay a recorded schedule (begin/end",
  "                             columns); see 'evtsim help simulate'",
  "  replay LOG [options]       re-simulate a recorded session (.replay log), --verify it,",
  "                             or step through it in a REPL (-i)",
  "  dump LOG                   print a .replay log as diffable text",
  "  compare TRACE [options]    the trace under several policies, one row each; see",
  "                             'evtsim help compare'",
  "  report RUN... --out FILE   an HTML report (charts, summary) of finished runs; see",
  "                             'evtsim help report'",
  "  serve [options]            serve live scheduling sessions over HTTP/JSON and DR_EVT's",
  "                             gRPC Session stream; see 'evtsim help serve'",
  "  topo schedule|compare|simulate [flags]",
  "                             topology-aware admission as TopoQueue does it; see",
  "                             'evtsim help topo'",
  "  sweep SPEC [options]       a grid of simulate runs (policies x sizes x ...), here",
  "                             or as a Slurm job array; see 'evtsim help sweep'",
  "  sweep collect DIR          merge the results of a Slurm sweep",
  "  sweep-cell SPEC --cell INDEX --results DIR",
  "                             run one cell of a sweep (what each sweep task runs)",
  "  help [COMMAND]             show this help, or a command's help",
  "",
  "options: -h, --help   show this help;  --version   print the version",
  "",
  "example:",
  "  evtsim simulate jobs.csv -n 128 --stats_json stats.json",
].join("\n");

const COMMANDS = [
  "simulate",
  "replay",
  "dump",
  "compare",
  "report",
  "serve",
  "topo",
  "sweep",
  "sweep-cell",
];

const HELP_HELP = [
  "usage: evtsim help [COMMAND]",
  "",
  "Without COMMAND, lists the commands; with one, shows its help (the same as",
  `'evtsim COMMAND --help'). COMMAND is one of: ${COMMANDS.join(", ")}, help;`,
  "'evtsim help topo SUBCOMMAND' shows a topo subcommand's flags.",
].join("\n");

/**
 * Runs the command line `args`; returns the exit code. `deps` replaces the
 * output file system or the progress sink (tests).
 */
export async function main(
  args: readonly string[],
  con: Console,
  deps: SimulateDeps = {},
): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
        con.err(USAGE);
        return 1;
      case "-h":
      case "--help":
        con.out(USAGE);
        return 0;
      case "help":
        if (rest.length === 0) con.out(USAGE);
        else if (rest[0] === "help" && rest.length === 1) con.out(HELP_HELP);
        else if (rest[0] === "simulate" && rest.length === 1) {
          con.out((await import("./options.ts")).simulateHelp());
        } else if (rest[0] === "replay" && rest.length === 1) {
          return await (await import("./replay_command.ts")).replayCommand(["--help"], con);
        } else if (rest[0] === "dump" && rest.length === 1) {
          return (await import("./dump_command.ts")).dumpCommand(["--help"], con);
        } else if (rest[0] === "compare" && rest.length === 1) {
          con.out((await import("./compare_command.ts")).compareHelp());
        } else if (rest[0] === "report" && rest.length === 1) {
          con.out((await import("./report_command.ts")).reportHelp());
        } else if (rest[0] === "serve" && rest.length === 1) {
          return await (await import("./serve_command.ts")).serveCommand(["--help"], con);
        } else if ((rest[0] === "sweep" || rest[0] === "sweep-cell") && rest.length === 1) {
          const sweep = await import("./sweep_command.ts");
          if (rest[0] === "sweep") con.out(sweep.sweepHelp());
          else return await sweep.sweepCellCommand(["--help"], con);
        } else if (rest[0] === "topo" && rest.length <= 2) {
          return await (await import("./topo_command.ts")).topoCommand(
            rest.length === 1 ? ["--help"] : [rest[1], "--help"],
            con,
          );
        } else {
          throw new EvtsimError(
            "usage",
            `no help for '${rest.join(" ")}' (commands: ${COMMANDS.join(", ")})${
              rest.length === 1 ? didYouMean(rest[0], [...COMMANDS, "help"]) : ""
            }`,
          );
        }
        return 0;
      case "--version":
      case "version":
        con.out(`evtsim ${VERSION}`);
        return 0;
      // Loaded on demand too: start-up time is most of a short run.
      case "simulate":
        return await (await import("./simulate.ts")).simulateCommand(rest, con, deps);
      // Loaded on demand: the log codec and its schemas cost start-up time.
      case "replay":
        return await (await import("./replay_command.ts")).replayCommand(rest, con);
      case "dump":
        return (await import("./dump_command.ts")).dumpCommand(rest, con);
      case "compare":
        return await (await import("./compare_command.ts")).compareCommand(rest, con);
      // ECharts loads only for a report.
      case "report":
        return await (await import("./report_command.ts")).reportCommand(rest, con);
      // Loads hono and grpc-js: only for this command.
      case "serve":
        return await (await import("./serve_command.ts")).serveCommand(rest, con);
      // TopoQueue's commands: their YAML reader, schemas and model load only here.
      case "topo":
        return await (await import("./topo_command.ts")).topoCommand(rest, con);
      // A grid of simulate runs; the spec reader (YAML, zod) loads only for a spec.
      case "sweep":
        return await (await import("./sweep_command.ts")).sweepCommand(rest, con, deps);
      case "sweep-cell":
        return await (await import("./sweep_cell_command.ts")).sweepCellCommand(rest, con);
      default:
        throw new EvtsimError(
          "usage",
          `unknown command '${command}' (expected: ${COMMANDS.join(", ")})${
            didYouMean(command, [...COMMANDS, "help", "version"])
          }`,
        );
    }
  } catch (e) {
    if (e instanceof EvtsimError) {
      con.err(`evtsim: ${e.message}`);
      // `simulate --debug`: where a policy's own exception came from.
      if (e.kind === "policy" && command === "simulate" && rest.includes("--debug")) {
        const stack = e.cause instanceof Error ? e.cause.stack : undefined;
        for (const line of (stack ?? "").split("\n").slice(1)) con.err(line);
      }
      return 1;
    }
    if (isFsError(e)) {
      // A file-system error that no reader or writer labelled: still one line.
      con.err(`evtsim: ${describeFsError(e)}${pathOf(e)}`);
      return 1;
    }
    throw e;
  }
}

function pathOf(e: unknown): string {
  const m = /: \w+ '([^']*)'/.exec((e as Error).message);
  return m !== null ? ` (${m[1]})` : "";
}

/**
 * A console on the process's stdout and stderr. A closed stdout (`evtsim
 * ... | head -0`) or stderr loses the text but is not an error: the run's
 * files are what matters, and they are written by then.
 */
export function processConsole(): Console {
  const encoder = new TextEncoder();
  let stdoutOpen = true;
  let stderrOpen = true;
  const write = (file: typeof Deno.stdout, line: string): boolean => {
    const bytes = encoder.encode(line + "\n");
    try {
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      return true;
    } catch (e) {
      if (e instanceof Deno.errors.BrokenPipe || (e as { code?: string }).code === "EPIPE") {
        return false;
      }
      throw e;
    }
  };
  return {
    out: (line) => {
      if (stdoutOpen) stdoutOpen = write(Deno.stdout, line);
    },
    err: (line) => {
      if (stderrOpen) stderrOpen = write(Deno.stderr, line);
    },
    isTerminal: Deno.stderr.isTerminal(),
  };
}

function enterUserFolder(): void {
  try {
    const here = new URL("..", import.meta.url);
    if (here.protocol !== "file:") return;
    const to = userFolder(Deno.cwd(), Deno.env.get("INIT_CWD"), decodeURIComponent(here.pathname));
    if (to !== undefined) Deno.chdir(to);
  } catch { /* no env permission, or the folder went away: stay where we are */ }
}

if (import.meta.main) {
  enterUserFolder();
  // A signal always stops a command that computes: code that may never
  // return runs in a worker (cli/_supervise.ts), the rest on this thread
  // with an interrupt flag the engine checks and a watchdog thread started
  // once a step keeps this thread busy (cli/_watchdog.ts).
  const { runsInWorker, runsUnderWatchdog, superviseWorker } = await import("./_supervise.ts");
  if (runsInWorker(Deno.args)) await superviseWorker(Deno.args);
  let exitFor = (code: number): never => {
    runShutdownHooks();
    abortAllOutputs();
    Deno.exit(code);
  };
  if (runsUnderWatchdog(Deno.args)) {
    const watchdog = await import("./_watchdog.ts");
    // simulate's loop gives the event loop a turn every 50 ms, so its thread
    // waits for a long step (so do a sweep's cell workers: each cell is that
    // loop, and between cells they wait on stdin; a sweep itself only plans
    // and waits for them, and never needs it); the other commands have it
    // from the start.
    const arms = ["simulate", "sweep-cell", "sweep"];
    if (arms.includes(Deno.args[0])) watchdog.armWatchdog();
    else watchdog.startWatchdog();
    exitFor = watchdog.exitForSignal;
  }
  const signals: [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];
  for (const [signal, code] of signals) {
    try {
      Deno.addSignalListener(signal, () => exitFor(code));
    } catch { /* a platform without this signal (SIGTERM on Windows) */ }
  }
  ignoreRecordedPolicyFaults();
  Deno.exit(await main(Deno.args, processConsole()));
}

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
import { COMMAND_NAMES, COMMAND_TABLE, commandNamed, listingLines } from "./commands.ts";

export type { Console, SimulateDeps };
export type { OutputFile, OutputFileSystem } from "../io/atomic_writer.ts";
export type { ProgressSink } from "./progress.ts";

const USAGE = [
  "usage: evtsim <command> [options]",
  "",
  "commands:",
  ...COMMAND_TABLE.flatMap((c) => c.forms.flatMap(listingLines)),
  ...listingLines({ usage: "help [COMMAND]", summary: ["show this help, or a command's help"] }),
  "",
  "options: -h, --help   show this help;  --version   print the version",
  "",
  "example:",
  "  evtsim simulate jobs.csv -n 128 --stats_json stats.json",
].join("\n");

const HELP_HELP = [
  "usage: evtsim help [COMMAND]",
  "",
  "Without COMMAND, lists the commands; with one, shows its help (the same as",
  `'evtsim COMMAND --help'). COMMAND is one of: ${COMMAND_NAMES.join(", ")}, help;`,
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
      case "help": {
        if (rest.length === 0) {
          con.out(USAGE);
          return 0;
        }
        if (rest[0] === "help" && rest.length === 1) {
          con.out(HELP_HELP);
          return 0;
        }
        const target = commandNamed(rest[0]);
        if (target !== undefined && rest.length <= 1 + (target.helpWords ?? 0)) {
          return await target.help(con, rest.slice(1));
        }
        throw new EvtsimError(
          "usage",
          `no help for '${rest.join(" ")}' (commands: ${COMMAND_NAMES.join(", ")})${
            rest.length === 1 ? didYouMean(rest[0], [...COMMAND_NAMES, "help"]) : ""
          }`,
        );
      }
      case "--version":
      case "version":
        con.out(`evtsim ${VERSION}`);
        return 0;
      default: {
        const target = commandNamed(command);
        if (target !== undefined) return await target.run(rest, con, deps);
        throw new EvtsimError(
          "usage",
          `unknown command '${command}' (expected: ${COMMAND_NAMES.join(", ")})${
            didYouMean(command, [...COMMAND_NAMES, "help", "version"])
          }`,
        );
      }
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
    // loop, and between cells they wait on stdin); the rows that say so in
    // cli/commands.ts arm it, the other commands have it from the start.
    if (commandNamed(Deno.args[0])?.armsWatchdog === true) watchdog.armWatchdog();
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

// The `evtsim` command. Usage errors and input errors print one line and
// exit 1; anything else is a bug and keeps its stack trace.

import { EvtsimError } from "../core/errors.ts";
import { type Console, simulateCommand } from "./simulate.ts";

const USAGE = [
  "usage: evtsim <command> [options]",
  "",
  "commands:",
  "  simulate TRACE [options]   simulate (or replay) a trace; see 'evtsim simulate --help'",
  "  replay LOG [options]       re-simulate a recorded session (.replay log) and --verify it",
  "  dump LOG                   print a .replay log as diffable text",
  "",
  "options: -h, --help   show this help;  --version   print the version",
].join("\n");

/** Runs the command line `args`; returns the exit code. */
export async function main(args: readonly string[], con: Console): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
        con.err(USAGE);
        return 1;
      case "-h":
      case "--help":
      case "help":
        con.out(USAGE);
        return 0;
      case "--version":
        con.out("evtsim 0.1.0");
        return 0;
      case "simulate":
        return await simulateCommand(rest, con);
      // Loaded on demand: the log codec and its schemas cost start-up time.
      case "replay":
        return await (await import("./replay_command.ts")).replayCommand(rest, con);
      case "dump":
        return (await import("./dump_command.ts")).dumpCommand(rest, con);
      default:
        throw new EvtsimError(
          "usage",
          `unknown command '${command}' (expected: simulate, replay, dump)`,
        );
    }
  } catch (e) {
    if (e instanceof EvtsimError) {
      con.err(`evtsim: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (import.meta.main) {
  const encoder = new TextEncoder();
  const con: Console = {
    out: (line) => Deno.stdout.writeSync(encoder.encode(line + "\n")),
    err: (line) => Deno.stderr.writeSync(encoder.encode(line + "\n")),
    isTerminal: Deno.stderr.isTerminal(),
  };
  Deno.exit(await main(Deno.args, con));
}

// `evtsim dump FILE`: a `.replay` log as stable, diffable text (see
// io/replay_dump.ts), validated message by message on the way.

import { EvtsimError } from "../core/errors.ts";
import { checkInterrupt } from "../core/_interrupt.ts";
import { Dumper } from "../io/replay_dump.ts";
import { readLog } from "../io/replay_reader.ts";
import { optionHelp, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import type { Console } from "./simulate.ts";

/** `evtsim dump`'s options. */
export const DUMP_OPTIONS = [
  { name: "help", kind: "flag", short: "h", help: "show this help" },
  {
    name: "decisions",
    kind: "flag",
    help:
      "print only the decision lines (DISPATCH and PEND), without indentation: what a what-if changed",
  },
] as const satisfies readonly OptionSpec[];

function help(): string {
  return [
    "usage: evtsim dump FILE",
    "",
    "Prints a .replay log (written by 'evtsim simulate --record', by Simulation.startRecording,",
    "or by 'evtsim replay --output') as text: one line per message and one per decision. Wall-clock",
    "metadata is left out, so 'diff <(evtsim dump A) <(evtsim dump B)' shows exactly which events",
    "and decisions differ. Every message is validated; a broken file is one error line (exit 1).",
    "",
    "examples: evtsim dump run.replay | grep DISPATCH",
    "          diff <(evtsim dump --decisions A.replay) <(evtsim dump --decisions B.replay)",
    "",
    "options:",
    ...optionHelp(DUMP_OPTIONS),
  ].join("\n");
}

/** Runs `evtsim dump ARGS`; returns the exit code. */
export function dumpCommand(args: readonly string[], con: Console): number {
  const parsed = parseOptions(args, DUMP_OPTIONS, { command: "dump", dialect: "plain" });
  if (parsed.options.get("help") === true) {
    con.out(help());
    return 0;
  }
  if (parsed.positional.length !== 1) {
    throw new EvtsimError(
      "usage",
      parsed.positional.length === 0
        ? "no log file given (see 'evtsim dump --help')"
        : `unexpected arguments: ${parsed.positional.slice(1).join(" ")}`,
    );
  }
  const log = readLog(parsed.positional[0]);
  for (const w of log.warnings) con.err(w);
  // Written in chunks: one console call per line would dominate a big log.
  const dumper = new Dumper();
  const decisionsOnly = parsed.options.get("decisions") === true;
  let chunk: string[] = [];
  try {
    for (const e of log.entries) {
      if (decisionsOnly) {
        // The dumper still sees every message: appends number the jobs.
        const lines = dumper.lines(e);
        if (e.type === "session") { for (const line of lines) chunk.push(line.trimStart()); }
      } else {
        for (const line of dumper.lines(e)) chunk.push(line);
      }
      if (chunk.length >= 4096) {
        checkInterrupt();
        con.out(chunk.join("\n"));
        chunk = [];
      }
    }
    if (chunk.length > 0) con.out(chunk.join("\n"));
  } catch (e) {
    // `evtsim dump FILE | head`: the reader has seen enough.
    if (e instanceof Deno.errors.BrokenPipe) return 0;
    throw e;
  }
  return 0;
}

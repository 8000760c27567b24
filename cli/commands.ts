// The command table: every `evtsim` command once, with the lines `evtsim
// help` lists it by, its help and its handler. `cli/main.ts` reads it for
// the listing, `evtsim help COMMAND`, the dispatch and the "did you mean" of
// a mistyped command; a new command is a row here plus its own file.
//
// Every module is loaded on demand, from the row's functions: start-up time
// is most of a short run, and a command's dependencies (the log codec, hono
// and grpc-js, ECharts, the YAML reader) cost nothing to the others.

import type { Console, SimulateDeps } from "./simulate.ts";
import type { OptionSpec } from "./option_table.ts";

/** One form of a command in the `evtsim help` listing, and what it does. */
export interface CommandForm {
  /** The synopsis, e.g. `simulate TRACE [options]`. */
  readonly usage: string;
  /** The one-line summary, wrapped as the listing shows it. */
  readonly summary: readonly string[];
}

/** A row of the command table. */
export interface Command {
  /** What the user types after `evtsim`. */
  readonly name: string;
  /** Its entries in the `evtsim help` listing (a command may have several forms). */
  readonly forms: readonly CommandForm[];
  /** How many words after `evtsim help NAME` its help accepts (`topo`'s subcommands). */
  readonly helpWords?: number;
  /** Prints its help for `evtsim help NAME [words]`; returns the exit code. */
  help(con: Console, words: readonly string[]): Promise<number>;
  /** Runs it on the words after its name; returns the exit code. */
  run(args: readonly string[], con: Console, deps: SimulateDeps): Promise<number>;
  /**
   * Its options, as rows of the one option schema its parse and its help
   * read (loaded on demand); `topo`'s depend on its subcommand and are left out.
   */
  options?(): Promise<readonly OptionSpec[]>;
  /** Its loop gives the event loop turns, so the watchdog waits for a long step (cli/_watchdog.ts). */
  readonly armsWatchdog?: boolean;
}

/** The commands, in the order `evtsim help` lists them. */
export const COMMAND_TABLE: readonly Command[] = [
  {
    name: "simulate",
    options: async () => (await import("./option_table.ts")).SIMULATE_OPTIONS,
    forms: [{
      usage: "simulate TRACE [options]",
      summary: [
        "simulate a trace, or replay a recorded schedule (begin/end",
        "columns); see 'evtsim help simulate'",
      ],
    }],
    help: async (con) => {
      con.out((await import("./options.ts")).simulateHelp());
      return 0;
    },
    run: async (args, con, deps) =>
      await (await import("./simulate.ts")).simulateCommand(args, con, deps),
    armsWatchdog: true,
  },
  {
    name: "replay",
    options: async () => (await import("./replay_command.ts")).REPLAY_OPTIONS,
    forms: [{
      usage: "replay LOG [options]",
      summary: [
        "re-simulate a recorded session (.replay log), --verify it,",
        "or step through it in a REPL (-i)",
      ],
    }],
    help: async (con) => await (await import("./replay_command.ts")).replayCommand(["--help"], con),
    // The log codec and its schemas cost start-up time.
    run: async (args, con) => await (await import("./replay_command.ts")).replayCommand(args, con),
  },
  {
    name: "dump",
    options: async () => (await import("./dump_command.ts")).DUMP_OPTIONS,
    forms: [{ usage: "dump LOG", summary: ["print a .replay log as diffable text"] }],
    help: async (con) => (await import("./dump_command.ts")).dumpCommand(["--help"], con),
    run: async (args, con) => (await import("./dump_command.ts")).dumpCommand(args, con),
  },
  {
    name: "compare",
    options: async () => (await import("./compare_command.ts")).COMPARE_OPTIONS,
    forms: [{
      usage: "compare TRACE [options]",
      summary: ["the trace under several policies, one row each; see", "'evtsim help compare'"],
    }],
    help: async (con) => {
      con.out((await import("./compare_command.ts")).compareHelp());
      return 0;
    },
    run: async (args, con) =>
      await (await import("./compare_command.ts")).compareCommand(args, con),
  },
  {
    name: "report",
    options: async () => (await import("./report_command.ts")).REPORT_OPTIONS,
    forms: [{
      usage: "report RUN... --out FILE",
      summary: ["an HTML report (charts, summary) of finished runs; see", "'evtsim help report'"],
    }],
    help: async (con) => {
      con.out((await import("./report_command.ts")).reportHelp());
      return 0;
    },
    // ECharts loads only for a report.
    run: async (args, con) => await (await import("./report_command.ts")).reportCommand(args, con),
  },
  {
    name: "serve",
    options: async () => (await import("./serve_command.ts")).SERVE_OPTIONS,
    forms: [{
      usage: "serve [options]",
      summary: [
        "serve live scheduling sessions over HTTP/JSON and DR_EVT's",
        "gRPC Session stream; see 'evtsim help serve'",
      ],
    }],
    help: async (con) => await (await import("./serve_command.ts")).serveCommand(["--help"], con),
    // Loads hono and grpc-js: only for this command.
    run: async (args, con) => await (await import("./serve_command.ts")).serveCommand(args, con),
  },
  {
    name: "topo",
    forms: [{
      usage: "topo schedule|compare|simulate [flags]",
      summary: ["topology-aware admission as TopoQueue does it; see", "'evtsim help topo'"],
    }],
    helpWords: 1,
    help: async (con, words) =>
      await (await import("./topo_command.ts")).topoCommand(
        words.length === 0 ? ["--help"] : [words[0], "--help"],
        con,
      ),
    // TopoQueue's commands: their YAML reader, schemas and model load only here.
    run: async (args, con) => await (await import("./topo_command.ts")).topoCommand(args, con),
  },
  {
    name: "sweep",
    options: async () => (await import("./sweep_command.ts")).SWEEP_OPTIONS,
    forms: [
      {
        usage: "sweep SPEC [options]",
        summary: [
          "a grid of simulate runs (policies x sizes x ...), here",
          "or as a Slurm job array; see 'evtsim help sweep'",
        ],
      },
      { usage: "sweep collect DIR", summary: ["merge the results of a Slurm sweep"] },
    ],
    help: async (con) => {
      con.out((await import("./sweep_command.ts")).sweepHelp());
      return 0;
    },
    // A grid of simulate runs; the spec reader (YAML, zod) loads only for a spec.
    run: async (args, con, deps) =>
      await (await import("./sweep_command.ts")).sweepCommand(args, con, deps),
    // Armed rather than started: a sweep only plans and waits for its cell
    // workers (each cell is simulate's loop), and never needs it.
    armsWatchdog: true,
  },
  {
    name: "sweep-cell",
    options: async () => (await import("./sweep_cell_command.ts")).CELL_OPTIONS,
    forms: [{
      usage: "sweep-cell SPEC --cell INDEX --results DIR",
      summary: ["run one cell of a sweep (what each sweep task runs)"],
    }],
    help: async (con) =>
      await (await import("./sweep_command.ts")).sweepCellCommand(["--help"], con),
    run: async (args, con) =>
      await (await import("./sweep_cell_command.ts")).sweepCellCommand(args, con),
    armsWatchdog: true,
  },
];

/** The command named `name`, or undefined. */
export function commandNamed(name: string): Command | undefined {
  return COMMAND_TABLE.find((c) => c.name === name);
}

/** The command names, in table order. */
export const COMMAND_NAMES: readonly string[] = COMMAND_TABLE.map((c) => c.name);

// The synopsis column is 27 characters wide after a 2-space indent; a longer
// synopsis gets a line of its own and its summary starts below it.
const SYNOPSIS_WIDTH = 27;

/** A form's lines in the `evtsim help` listing. */
export function listingLines(form: CommandForm): string[] {
  const indent = " ".repeat(2 + SYNOPSIS_WIDTH);
  const lines: string[] = [];
  let rest = form.summary;
  if (form.usage.length + 2 <= SYNOPSIS_WIDTH) {
    lines.push(`  ${form.usage.padEnd(SYNOPSIS_WIDTH)}${rest[0]}`);
    rest = rest.slice(1);
  } else {
    lines.push(`  ${form.usage}`);
  }
  for (const line of rest) lines.push(indent + line);
  return lines;
}

// `evtsim sweep-cell SPEC (--cell INDEX | --stdin) --results DIR`: one cell
// of a sweep (a Slurm array task), or the cells a local worker is handed on
// stdin (cli/_sweep_worker.ts). Apart from cli/sweep_command.ts so that a
// worker loads neither the sweep's planning nor, on its usual command line, the option parser.

import { EvtsimError } from "../core/errors.ts";
import type { OptionSpec } from "./option_table.ts";
import type { Console } from "./simulate.ts";
import { absoluteDir, sweepOf } from "./_sweep_results.ts";
import type { Cell } from "./_sweep_model.ts";

/** `evtsim sweep-cell`'s options. */
export const CELL_OPTIONS = [
  {
    name: "cell",
    kind: "string",
    placeholder: "INDEX",
    help: "the cell's index (its place in the spec's order)",
  },
  { name: "results", kind: "string", placeholder: "DIR", help: "the sweep's results folder" },
  {
    name: "stdin",
    kind: "flag",
    help: "instead of --cell: read cell indices from stdin, one a line, and run them one\n" +
      "        after another in this process (each trace parsed once), printing 'ok INDEX'\n" +
      "        or 'failed INDEX' as each ends (what the local executor's workers run); a\n" +
      "        line 'INDEX TAG' is answered 'TAG ok INDEX'",
  },
  { name: "help", kind: "flag", short: "h", help: "show this help" },
] as const satisfies readonly OptionSpec[];

/** Runs `evtsim sweep-cell SPEC --cell INDEX --results DIR`; returns the exit code. */
export async function sweepCellCommand(args: readonly string[], con: Console): Promise<number> {
  const [spec, stdin, resultsFlag, folder] = args;
  if (
    args.length === 4 && stdin === "--stdin" && resultsFlag === "--results" &&
    !spec.startsWith("-") && !folder.startsWith("-")
  ) {
    // What the local executor starts its workers with (cli/_sweep_local.ts),
    // read as the parser reads it without loading it: every module a
    // worker loads is start-up time of each of its cells' first.
    return await cellsFromStdin(absoluteDir(spec), absoluteDir(folder), con);
  }
  const { optionHelp, parseOptions } = await import("./option_parser.ts");
  const a = parseOptions(args, CELL_OPTIONS, { command: "sweep-cell", dialect: "plain" });
  if (a.options.get("help") === true) {
    con.out(
      [
        "usage: evtsim sweep-cell SPEC --cell INDEX --results DIR",
        "       evtsim sweep-cell SPEC --stdin --results DIR",
        "",
        "Runs one cell of a sweep and writes DIR/cells/ID.json (what a Slurm array task runs for",
        "each cell; the local executor's workers run many cells each with --stdin); see",
        "'evtsim help sweep'.",
        "",
        "options:",
        ...optionHelp(CELL_OPTIONS),
      ].join("\n"),
    );
    return 0;
  }
  const raw = a.options.get("cell");
  const results = a.options.get("results");
  const fromStdin = a.options.get("stdin") === true;
  if (
    a.positional.length !== 1 || (raw === undefined) === !fromStdin || results === undefined
  ) {
    throw new EvtsimError(
      "usage",
      "usage: evtsim sweep-cell SPEC (--cell INDEX | --stdin) --results DIR",
    );
  }
  const dir = absoluteDir(results);
  const specPath = absoluteDir(a.positional[0]);
  if (fromStdin) return await cellsFromStdin(specPath, dir, con);
  const sweep = await sweepOf(specPath, dir);
  const { cellOfArg, runCell } = await import("./_sweep_cells.ts");
  const cell: Cell = cellOfArg(sweep, raw!);
  const r = await runCell(sweep, cell, dir, con);
  if (r.status === "failed") {
    con.err(`evtsim: sweep-cell: cell ${cell.index} (${cell.id}) failed: ${r.error}`);
    return 1;
  }
  con.out(
    `cell ${cell.index} (${cell.id}) ok in ${r.wall_seconds} s: ${results}/cells/${cell.id}.json`,
  );
  return 0;
}

// The local executor starts its workers while it plans the sweep: the
// modules load now, the spec and the folder's record are read once the
// first cell comes (cli/_sweep_local.ts).
async function cellsFromStdin(specPath: string, dir: string, con: Console): Promise<number> {
  const { runCellsFromStdin } = await import("./_sweep_worker.ts");
  return await runCellsFromStdin(() => sweepOf(specPath, dir), dir, con);
}

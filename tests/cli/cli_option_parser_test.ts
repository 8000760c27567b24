// The one option parser (cli/option_parser.ts): every command's options are
// rows of one schema, read by one function, with the conventions every
// command keeps (both spellings, short letters and clusters, "did you mean",
// one usage line) and each command's wording of a refused value.

import { assertEquals, assertThrows } from "../_assert.ts";
import { EvtsimError } from "../../core/errors.ts";
import { optionHelp, parseOptions } from "../../cli/option_parser.ts";
import type { OptionSpec } from "../../cli/option_table.ts";
import { runCli } from "../_cli.ts";
import { parseCommandLine } from "../../cli/options.ts";

const TABLE = [
  { name: "port", kind: "number", min: 0, placeholder: "N", help: "HTTP port" },
  { name: "jobs", short: "j", kind: "int", min: 1, placeholder: "N", help: "workers" },
  { name: "executor", kind: "enum", values: ["local", "slurm"], help: "where" },
  { name: "out", short: "o", kind: "string", placeholder: "FILE", help: "the file" },
  { name: "dry_run", short: "d", kind: "flag", help: "print only" },
] as const satisfies readonly OptionSpec[];

const plain = { command: "demo", dialect: "plain" } as const;
const HELP = { name: "help", short: "h", kind: "flag", help: "show this help" } as const;

function usageError(f: () => unknown): string {
  const e = assertThrows(f);
  assertEquals(e instanceof EvtsimError && e.kind, "usage");
  return e.message;
}

Deno.test("one parse: both spellings, attached values, clusters, typed values", () => {
  const p = parseOptions(
    ["spec.yaml", "--dry-run", "-j4", "--executor=slurm", "-do", "x.html", "--port", "8080"],
    TABLE,
    plain,
  );
  const port: number | undefined = p.options.get("port");
  const executor: "local" | "slurm" | undefined = p.options.get("executor");
  assertEquals([port, executor, p.options.get("jobs")], [8080, "slurm", 4]);
  assertEquals([p.options.get("dry_run"), p.options.get("out")], [true, "x.html"]);
  assertEquals(p.positional, ["spec.yaml"]);
  assertEquals(parseOptions(["--", "--port"], TABLE, plain).positional, ["--port"]);
});

Deno.test("the other commands' wording of a refused value, and of a bad command line", () => {
  assertEquals(
    usageError(() => parseOptions(["--port", "x"], TABLE, plain)),
    "--port expects a number, got 'x'",
  );
  assertEquals(
    usageError(() => parseOptions(["--port=-1"], TABLE, plain)),
    "--port must be >= 0, got -1",
  );
  assertEquals(
    usageError(() => parseOptions(["-j", "1.5"], TABLE, plain)),
    "--jobs expects an integer, got 1.5",
  );
  assertEquals(
    usageError(() => parseOptions(["--executor", "cloud"], TABLE, plain)),
    "--executor expects one of local, slurm, got 'cloud'",
  );
  assertEquals(
    usageError(() => parseOptions(["--prot", "1"], TABLE, plain)),
    "unknown option '--prot'; did you mean '--port'? (see 'evtsim demo --help')",
  );
  assertEquals(
    usageError(() => parseOptions(["--out"], TABLE, plain)),
    "option '--out' needs a value (see 'evtsim demo --help')",
  );
  assertEquals(
    usageError(() => parseOptions(["--port", "-1"], TABLE, plain)),
    "option '--port' has a value starting with '-': write --port=VALUE (see 'evtsim demo --help')",
  );
  assertEquals(
    usageError(() => parseOptions(["--dry_run=yes"], TABLE, plain)),
    "option '--dry_run' takes no value (see 'evtsim demo --help')",
  );
  // simulate's wording (DR_EVT's): the option as typed, a negative value
  // taken, the help named only for an unknown option.
  const drevt = { command: "demo", dialect: "drevt" } as const;
  assertEquals(parseOptions(["--port", "-0"], TABLE, drevt).options.get("port"), -0);
  assertEquals(
    usageError(() => parseOptions(["-j", "0"], TABLE, drevt)),
    "-j: must be >= 1, got 0",
  );
  assertEquals(
    usageError(() => parseOptions(["--out"], TABLE, drevt)),
    "option '--out' needs a value",
  );
});

Deno.test("Go's flag grammar (topo): one dash or two, stop at a word or -h, Go's messages", () => {
  const go = { command: "topo schedule", dialect: "go" } as const;
  const p = parseOptions(["-out", "a", "--port=1", "x", "--out", "b"], TABLE, go);
  assertEquals([p.options.get("out"), p.options.get("port"), p.positional], ["a", 1, [
    "x",
    "--out",
    "b",
  ]]);
  assertEquals(parseOptions(["-h", "-bogus"], [...TABLE, HELP], go).options.get("help"), true);
  assertEquals(
    usageError(() => parseOptions(["-bogus"], TABLE, go)),
    "topo schedule: flag provided but not defined: -bogus",
  );
  assertEquals(
    usageError(() => parseOptions(["---out"], TABLE, go)),
    "topo schedule: bad flag syntax: ---out",
  );
  assertEquals(
    usageError(() => parseOptions(["-out"], TABLE, go)),
    "topo schedule: flag needs an argument: -out",
  );
});

Deno.test("a row's own phrase for what its value must be", () => {
  const rows = [
    { name: "jobs", kind: "int", min: 1, expects: "a positive integer", help: "" },
  ] as const satisfies readonly OptionSpec[];
  assertEquals(
    usageError(() => parseOptions(["--jobs", "0"], rows, plain)),
    "--jobs expects a positive integer, got '0'",
  );
  assertEquals(
    usageError(() => parseOptions(["--jobs=x"], rows, { command: "compare", dialect: "drevt" })),
    "--jobs expects a positive integer, got 'x'",
  );
});

Deno.test("a row's default is the value of an option not given", () => {
  const rows = [
    { name: "format", kind: "enum", values: ["csv", "parquet"], default: "csv", help: "" },
    { name: "port", kind: "number", default: 8787, help: "" },
  ] as const satisfies readonly OptionSpec[];
  const none = parseOptions([], rows, plain);
  const format: "csv" | "parquet" = none.value("format");
  assertEquals([format, none.value("port"), none.options.has("port")], ["csv", 8787, false]);
  const given = parseOptions(["--format", "parquet", "--port=0"], rows, plain);
  assertEquals([given.value("format"), given.value("port")], ["parquet", 0]);
});

Deno.test("the help lines come from the rows", () => {
  assertEquals(optionHelp(TABLE.slice(3)), [
    "  -o, --out FILE",
    "        the file",
    "  -d, --dry_run",
    "        print only",
  ]);
  assertEquals(optionHelp([TABLE[2]]), ["      --executor local|slurm", "        where"]);
});

Deno.test("every command reads its command line with the one parser", async () => {
  for (const file of Deno.readDirSync(new URL("../../cli/", import.meta.url))) {
    if (!file.name.endsWith(".ts")) continue;
    const text = Deno.readTextFileSync(new URL(`../../cli/${file.name}`, import.meta.url));
    assertEquals(/\bparseArgs\b/.test(text), false, `${file.name} uses node:util parseArgs`);
  }
  // The same conventions on commands that had another parser: kebab-case,
  // "did you mean", one line.
  const serve = await runCli(["serve", "--max-sesions", "3"]);
  const sweep = await runCli(["sweep", "spec.yaml", "--max-parallel=0"]);
  assertEquals([serve.code, serve.err, sweep.code, sweep.err], [
    1,
    ["evtsim: unknown option '--max-sesions'; did you mean '--max_sessions'? (see 'evtsim serve --help')"],
    1,
    ["evtsim: --max_parallel must be >= 1, got 0"],
  ]);
});

Deno.test("simulate's options are read by their typed names", () => {
  const p = parseCommandLine(["-n", "8", "-b", "none"]);
  const nodes: number | undefined = p.options.get("total_nodes");
  const backfill: "easy" | "conservative" | "none" | undefined = p.options.get("backfill_policy");
  assertEquals([nodes, backfill], [8, "none"]);
  // @ts-expect-error: a name simulate has no option of does not compile
  assertEquals(p.options.get("total_node"), undefined);
});

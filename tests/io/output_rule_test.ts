// One rule for every command (issue 32 item 2): no output may be any input.
// A property over a table of (command, input, output option) covering every
// command that writes files and every output option: the output is named as
// the input itself, through `..`, a relative path, a symbolic link or a hard
// link; each run must be refused with one line, leave the input byte-identical
// and leave nothing behind.

import fc from "fast-check";
import { replayCommand } from "../../cli/replay_command.ts";
import { runCli } from "../_cli.ts";
import { assert } from "../_assert.ts";

const PARAMS = { seed: 3202, numRuns: 120 };

const TRACE = Deno.readTextFileSync(new URL("../../examples/demo_trace.csv", import.meta.url))
  .split("\n").slice(0, 41).join("\n") + "\n";

/** Files of a case folder; the ones an input slot points at. */
interface Fixture {
  readonly dir: string;
  readonly log: string;
}

// Real files where a command reads them before the check (a config file, an
// --infile_list, the REPL's log); anything else is refused before it is read,
// so its bytes are the property's random ones.
async function fixture(root: string): Promise<Fixture> {
  const dir = `${root}/base`;
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(`${dir}/t.csv`, TRACE);
  Deno.writeTextFileSync(`${dir}/list.txt`, `${dir}/t.csv\n`);
  Deno.writeTextFileSync(`${dir}/cfg.yaml`, "total_nodes: 128\n");
  Deno.writeTextFileSync(`${dir}/q.yaml`, "queues:\n  - name: pbatch\n");
  const r = await runCli([
    "simulate",
    `${dir}/t.csv`,
    "-n",
    "128",
    "-o",
    `${dir}/run.csv`,
    "--record",
    `${dir}/log.replay`,
    "--no_progress",
  ]);
  assert(r.code === 0, r.err.join("\n"));
  Deno.copyFileSync(`${dir}/log.replay`, `${dir}/alt.replay`);
  return { dir, log: `${dir}/log.replay` };
}

/** One row: a command, which of its inputs the output names, and the output option. */
interface Row {
  readonly command: string;
  /** File name of the input in the case folder. */
  readonly input: string;
  /** Whether the input's bytes must stay a valid file of its kind (read before the check). */
  readonly real?: boolean;
  readonly output: string;
  /** The command line (or REPL lines) with `out` as the output. */
  readonly args: (d: string, out: string) => string[];
  /** REPL lines, for the REPL's own output commands. */
  readonly repl?: (out: string) => string[];
}

const SIM_INPUTS: [string, (d: string) => string[], boolean?][] = [
  ["t.csv", (d) => [`${d}/t.csv`], true],
  ["list.txt", (d) => ["--infile_list", `${d}/list.txt`], true],
  ["cap.csv", (d) => [`${d}/t.csv`, "--capacity_schedule", `${d}/cap.csv`]],
  ["q.yaml", (d) => [`${d}/t.csv`, "--queues", `${d}/q.yaml`]],
  ["pol.ts", (d) => [`${d}/t.csv`, "--policy_module", `${d}/pol.ts`]],
  ["cfg.yaml", (d) => [`${d}/t.csv`, "-c", `${d}/cfg.yaml`], true],
  ["snap.replay", (d) => [`${d}/t.csv`, "--from_snapshot", `${d}/snap.replay`]],
];
const SIM_OUTPUTS = [
  "--outfile",
  "--resource_trace",
  "--submission_stats",
  "--stats_json",
  "--decisions",
  "--record",
  "--report",
];

const ROWS: Row[] = [
  // simulate: every input against every output option.
  ...SIM_INPUTS.flatMap(([input, args, real]) =>
    SIM_OUTPUTS.map((output): Row => ({
      command: "simulate",
      input,
      real,
      output,
      args: (d, out) => [
        "simulate",
        ...args(d),
        "-n",
        "128",
        ...(output === "--outfile" ? [] : ["-o", `${d}/new.csv`]),
        output,
        out,
        "--no_progress",
      ],
    }))
  ),
  // a trace read from the --infile_list, not named on the command line.
  ...SIM_OUTPUTS.map((output): Row => ({
    command: "simulate",
    input: "t.csv",
    real: true,
    output: `${output} (trace of the list)`,
    args: (d, out) => [
      "simulate",
      "--infile_list",
      `${d}/list.txt`,
      "-n",
      "128",
      ...(output === "--outfile" ? [] : ["-o", `${d}/new.csv`]),
      output,
      out,
    ],
  })),
  // replay: the log, the what-if events and the queues file.
  ...[
    ["log.replay", (d: string) => [`${d}/log.replay`]],
    ["alt.replay", (d: string) => [`${d}/log.replay`, "--alt_events", `${d}/alt.replay`]],
    ["q.yaml", (d: string) => [`${d}/log.replay`, "--queues", `${d}/q.yaml`]],
  ].flatMap(([input, args]) => [
    {
      command: "replay",
      input: input as string,
      output: "--output",
      args: (
        d: string,
        out: string,
      ) => ["replay", ...(args as (d: string) => string[])(d), "-o", out],
    },
    {
      command: "replay -i",
      input: input as string,
      output: "--output",
      args: (d: string, out: string) => [
        "replay",
        ...(args as (d: string) => string[])(d),
        "-i",
        "-o",
        out,
      ],
    },
    ...(["snapshot", "set output"] as const).map((what): Row => ({
      command: "replay -i",
      input: input as string,
      real: true,
      output: what,
      args: (d) => ["replay", ...(args as (d: string) => string[])(d), "-i"],
      repl: (out) => [`${what} ${out}`, "quit"],
    })),
  ]),
  // compare: the trace and simulate's input options.
  ...SIM_INPUTS.filter(([input]) => input !== "list.txt").map(([input, args, real]): Row => ({
    command: "compare",
    input,
    real,
    output: "--report",
    args: (d, out) => ["compare", ...args(d), "-n", "128", "--report", out],
  })),
  // report: a run's schedule and its resource file.
  ...["run.csv", "run_resources.csv"].map((input): Row => ({
    command: "report",
    input,
    output: "--out",
    args: (d, out) => ["report", `${d}/run.csv`, "--out", out],
  })),
];

/** How the output names the input. */
type Alias = "same" | "dotdot" | "relative" | "symlink" | "hardlink";
const ALIASES: Alias[] = ["same", "dotdot", "relative", "symlink", "hardlink"];

function aliasOf(d: string, name: string, how: Alias): string {
  switch (how) {
    case "same":
      return `${d}/${name}`;
    case "dotdot":
      return `${d}/sub/../${name}`;
    case "relative":
      return `${"../".repeat(Deno.cwd().split("/").length - 1)}${d.slice(1)}/${name}`;
    case "symlink":
      Deno.symlinkSync(`${d}/${name}`, `${d}/link-${name}`);
      return `${d}/link-${name}`;
    case "hardlink":
      Deno.linkSync(`${d}/${name}`, `${d}/hard-${name}`);
      return `${d}/hard-${name}`;
  }
}

function listing(d: string): string[] {
  return [...Deno.readDirSync(d)].map((e) => e.name).sort();
}

Deno.test("no output of any command may be one of its inputs (property over every command and output option)", async () => {
  const root = await Deno.makeTempDir({ prefix: "evtsim-output-rule-" });
  try {
    const base = await fixture(root);
    let k = 0;
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(ROWS.length - 1),
        fc.constantFrom(...ALIASES),
        fc.uint8Array({ minLength: 0, maxLength: 64 }),
        async (r, how, bytes) => {
          const row = ROWS[r];
          seen.add(r);
          const d = `${root}/case${k++}`;
          Deno.mkdirSync(`${d}/sub`, { recursive: true });
          for (const e of Deno.readDirSync(base.dir)) {
            Deno.copyFileSync(`${base.dir}/${e.name}`, `${d}/${e.name}`);
          }
          Deno.writeTextFileSync(`${d}/list.txt`, `${d}/t.csv\n`);
          if (row.real !== true) Deno.writeFileSync(`${d}/${row.input}`, bytes);
          const before = Deno.readFileSync(`${d}/${row.input}`);
          const out = aliasOf(d, row.input, how);
          const files = listing(d);
          const what = `${row.command} ${row.input} ${row.output} (${how})`;
          let code: number;
          let lines: string[];
          if (row.repl !== undefined) {
            const printed: string[] = [];
            const con = {
              out: (l: string) => printed.push(l),
              err: (l: string) => printed.push(l),
              isTerminal: false,
            };
            code = await replayCommand(
              row.args(d, out).slice(1),
              con,
              (async function* () {
                yield* row.repl!(out);
              })(),
            );
            lines = printed.filter((l) => l.startsWith("error:"));
          } else {
            const got = await runCli(row.args(d, out));
            code = got.code;
            lines = got.err.filter((l) => l.trim() !== "");
          }
          assert(row.repl !== undefined ? code === 0 : code === 1, `${what}: exit ${code}`);
          assert(lines.length === 1, `${what}: expected one line, got:\n${lines.join("\n")}`);
          assert(
            /is (the|a|an) .*refusing to overwrite an input/.test(lines[0]),
            `${what}: ${lines[0]}`,
          );
          const after = Deno.readFileSync(`${d}/${row.input}`);
          assert(
            after.length === before.length && after.every((b, i) => b === before[i]),
            `${what}: the input changed`,
          );
          assert(
            JSON.stringify(listing(d)) === JSON.stringify(files),
            `${what}: files left behind: ${listing(d).filter((f) => !files.includes(f))}`,
          );
          Deno.removeSync(d, { recursive: true });
        },
      ),
      PARAMS,
    );
    // Every row once besides the random ones, so no command or option is left out.
    for (const [r, row] of ROWS.entries()) {
      if (seen.has(r)) continue;
      const d = `${root}/row${r}`;
      Deno.mkdirSync(`${d}/sub`, { recursive: true });
      for (const e of Deno.readDirSync(base.dir)) {
        Deno.copyFileSync(`${base.dir}/${e.name}`, `${d}/${e.name}`);
      }
      Deno.writeTextFileSync(`${d}/list.txt`, `${d}/t.csv\n`);
      if (row.real !== true) Deno.writeTextFileSync(`${d}/${row.input}`, "x\n");
      const before = Deno.readTextFileSync(`${d}/${row.input}`);
      const out = `${d}/${row.input}`;
      let refused: string[];
      if (row.repl !== undefined) {
        const printed: string[] = [];
        await replayCommand(
          row.args(d, out).slice(1),
          {
            out: (l) => printed.push(l),
            err: (l) => printed.push(l),
            isTerminal: false,
          },
          (async function* () {
            yield* row.repl!(out);
          })(),
        );
        refused = printed.filter((l) => /refusing to overwrite an input/.test(l));
      } else {
        const got = await runCli(row.args(d, out));
        refused = got.code === 1 ? got.err.filter((l) => /refusing to overwrite/.test(l)) : [];
      }
      assert(refused.length === 1, `${row.command} ${row.input} ${row.output}: not refused`);
      assert(
        Deno.readTextFileSync(`${d}/${row.input}`) === before,
        `${row.command}: input changed`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("sweep: no file it writes into --results may be its spec, a trace or an option's file", async () => {
  const d = await Deno.makeTempDir({ prefix: "evtsim-output-rule-sweep-" });
  try {
    const cases: [string, string, string][] = [
      // [input the output would overwrite, spec text, spec file name]
      ["results.csv", "traces: [results.csv]\n", "s.yaml"],
      ["timings.csv", "traces: [t.csv]\noptions:\n  queues: timings.csv\n", "s.yaml"],
      ["results.json", "traces: [t.csv]\noptions:\n  capacity_schedule: results.json\n", "s.yaml"],
      ["spec.yaml", "traces: [t.csv]\n", "spec.yaml"],
      ["sweep.json", "traces: [t.csv]\n", "sweep.json"],
    ];
    for (const [k, [input, spec, specName]] of cases.entries()) {
      const c = `${d}/case${k}`;
      Deno.mkdirSync(c);
      Deno.writeTextFileSync(`${c}/t.csv`, TRACE);
      Deno.writeTextFileSync(`${c}/${input}`, input === specName ? spec : "precious\n");
      if (input !== specName) Deno.writeTextFileSync(`${c}/${specName}`, spec);
      const before = listing(c);
      const text = Deno.readTextFileSync(`${c}/${input}`);
      const r = await runCli(["sweep", `${c}/${specName}`, "--results", c, "--no_progress"]);
      assert(r.code === 1, `${input}: exit ${r.code}: ${r.err.join("\n")}`);
      assert(
        r.err.length === 1 && /refusing to overwrite an input/.test(r.err[0]),
        r.err.join("\n"),
      );
      assert(r.err[0].includes(`${c}/${input}`), r.err[0]);
      assert(Deno.readTextFileSync(`${c}/${input}`) === text, `${input} changed`);
      assert(JSON.stringify(listing(c)) === JSON.stringify(before), `${input}: files written`);
    }
  } finally {
    await Deno.remove(d, { recursive: true });
  }
});

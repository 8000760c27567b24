// The command line as a DR_EVT user types it (issue 8, items 7 and 11):
// getopt-style attached values and bundled flags, DR_EVT's checks on the
// compatibility options, -c/--config files with DR_EVT's precedence, the
// help, the version and the task list.

import { parseCommandLine, parseCommandLineAsync } from "../../cli/options.ts";
import { progressText } from "../../cli/progress.ts";
import { Progress } from "../../cli/progress.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli, runCliProcess } from "../_cli.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-opts-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  "0,70,200,200\n10,45,300,300\n20,20,50,50\n";

function parseError(args: string[]): string {
  try {
    parseCommandLine(args);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

Deno.test("getopt style: attached values, bundled flags, a value after a bundle", () => {
  const p = parseCommandLine(["jobs.csv", "-n128", "-Mv", "-bnone", "-Mn64", "-vs", "7"]);
  assertEquals(p.positional, ["jobs.csv"]);
  assertEquals(p.options.get("total_nodes"), 64);
  assertEquals(p.options.get("msec_output"), true);
  assertEquals(p.options.get("verbose"), true);
  assertEquals(p.options.get("backfill_policy"), "none");
  assertEquals(p.options.get("seed"), 7);
  assertEquals(parseCommandLine(["-s", "-5"]).options.get("seed"), -5);
  assertEquals(parseCommandLine(["--total-nodes=12"]).options.get("total_nodes"), 12);
  assertEquals(
    parseError(["-Mx"]),
    "unknown option '-x' in '-Mx' (see 'evtsim simulate --help')",
  );
  assertEquals(parseError(["-Mn"]), "option '-n' needs a value");
  assertEquals(parseError(["--msec_output=1"]), "option '--msec_output' takes no value");
});

Deno.test("-n128 -Mv writes what --total_nodes 128 --msec_output --verbose writes", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/jobs.csv`, TRACE);
    const a = await runCli(["simulate", `${d}/jobs.csv`, "-n128", "-Mv", "-o", `${d}/a.csv`]);
    const b = await runCli([
      "simulate",
      `${d}/jobs.csv`,
      "--total_nodes",
      "128",
      "--msec_output",
      "--verbose",
      "-o",
      `${d}/b.csv`,
    ]);
    assertEquals(a.code, 0, a.err.join("\n"));
    assertEquals(b.code, 0, b.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${d}/a.csv`), Deno.readTextFileSync(`${d}/b.csv`));
    assert(a.out.includes("------ Sim params ------"));
    assert(Deno.readTextFileSync(`${d}/a.csv`).includes("0.000,0.000,200.000"));
  });
});

Deno.test("compatibility options are checked as DR_EVT checks them", () => {
  const bad: [string[], string][] = [
    [["-Q", "3"], "-Q: must be a power of 2 from 4 to 256, got 3"],
    [["-Q2"], "-Q: must be a power of 2 from 4 to 256, got 2"],
    [["--block_size", "512"], "--block_size: must be a power of 2 from 4 to 256, got 512"],
    [["-S", "0"], "-S: must be > 0, got 0"],
    [["--run_time_scale=-1"], "--run_time_scale: must be > 0, got -1"],
    [["-V", "-0.5"], "-V: must be >= 0, got -0.5"],
    [["-A", "-1"], "-A: must be >= 0, got -1"],
    [["--num_max_candidates", "0"], "--num_max_candidates: must be >= 1, got 0"],
    [["-m", "0"], "-m: must be > 0 and <= 1, got 0"],
    [["-m", "1.5"], "-m: must be > 0 and <= 1, got 1.5"],
    [["-K", "-1"], "-K: must be >= 0, got -1"],
    [["-H", "-2"], "-H: must be >= 0, got -2"],
    [["-j", "-1"], "-j: must be >= 0, got -1"],
    [["--job_flush_interval", "-1"], "--job_flush_interval: must be >= 0, got -1"],
    [["-n", "0"], "-n: must be >= 1, got 0"],
    [["-n", "abc"], "-n: expects an integer, got 'abc'"],
    [["-q", "heap"], "-q: unknown value 'heap' (expected circular, deque, multimap, block)"],
    [["-G", "wait"], "-G: unknown value 'wait' (expected abort, grow)"],
    [["-T", "unix"], "-T: unknown value 'unix' (expected epoch, iso)"],
    [["--trace_type", "power"], "--trace_type: unknown value 'power' (expected standard, pcon)"],
  ];
  for (const [args, message] of bad) assertEquals(parseError(args), message, args.join(" "));
  const good = parseCommandLine([
    "-Q",
    "4",
    "-Q256",
    "-S",
    "0.5",
    "-V",
    "0",
    "-A",
    "0",
    "--num_max_candidates",
    "1",
    "-m",
    "1",
    "-q",
    "block",
    "-G",
    "abort",
    "--circular_capacity",
    "16",
  ]);
  assertEquals(good.options.get("block_size"), 256);
  assertEquals(good.options.get("wait_queue_capacity"), 16);
});

Deno.test("bad option values exit 1 with one line through the command", async () => {
  for (const args of [["-Q", "3"], ["-S", "0"], ["--trace_type", "power"], ["-Mz"]]) {
    const r = await runCli(["simulate", "x.csv", ...args]);
    assertEquals(r.code, 1);
    assertEquals(r.err.length, 1);
    assert(r.err[0].startsWith("evtsim: "), r.err[0]);
  }
});

Deno.test("--config: options before it are overridden by it, options after it win", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/run.yaml`,
      "# DR_EVT Simulation_Params\ntotal_nodes: 64\nbackfill_policy: none\nseed: 3\nverbose: true\n",
    );
    Deno.writeTextFileSync(
      `${d}/run.json`,
      '{"simulation_params": {"total_nodes": 32, "duration_scale": 0.5}}',
    );
    const p = await parseCommandLineAsync([
      "-n",
      "8",
      "-b",
      "easy",
      "-c",
      `${d}/run.yaml`,
      "-b",
      "conservative",
    ]);
    assertEquals(p.options.get("total_nodes"), 64);
    assertEquals(p.options.get("backfill_policy"), "conservative");
    assertEquals(p.options.get("seed"), 3);
    assertEquals(p.options.get("verbose"), true);
    assertEquals(p.configFiles, [`${d}/run.yaml`]);
    const q = await parseCommandLineAsync([
      "--config",
      `${d}/run.yaml`,
      "--config",
      `${d}/run.json`,
    ]);
    assertEquals(q.options.get("total_nodes"), 32);
    assertEquals(q.options.get("run_time_scale"), 0.5);
    assertEquals(q.options.get("backfill_policy"), "none");
  });
});

Deno.test("--config: infile from the file, the command line's trace beats it, relative paths are the user's", async () => {
  await withDir(async (d) => {
    Deno.mkdirSync(`${d}/data`);
    Deno.writeTextFileSync(`${d}/data/a.csv`, TRACE);
    Deno.writeTextFileSync(`${d}/data/b.csv`, TRACE.replace("0,70,200,200", "0,10,200,200"));
    Deno.writeTextFileSync(
      `${d}/run.yaml`,
      "infile: data/a.csv\noutfile: out.csv\ntotal_nodes: 100\nrun_time_mode: limit\n",
    );
    const fromConfig = await runCliProcess(["simulate", "-c", "run.yaml"], { cwd: d });
    assertEquals(fromConfig.code, 0, fromConfig.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${d}/out.csv`).split("\n")[1], "0,0,200,70,0,200");
    const positional = await runCli([
      "simulate",
      `${d}/data/b.csv`,
      "-c",
      `${d}/run.yaml`,
      "-o",
      `${d}/p.csv`,
    ]);
    assertEquals(positional.code, 0, positional.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${d}/p.csv`).split("\n")[1], "0,0,200,10,0,200");
  });
});

Deno.test("--config errors: one line naming the file and the field, exit 1, no output", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/jobs.csv`, TRACE);
    const cases: [string, string, string][] = [
      [
        "bad1.yaml",
        "total_nodes: many\n",
        `${d}/bad1.yaml: total_nodes: expected an integer, got "many"`,
      ],
      [
        "bad2.yaml",
        "block_size: 3\n",
        `${d}/bad2.yaml: block_size: must be a power of 2 from 4 to 256, got 3`,
      ],
      ["bad3.json", '{"total_node": 5}', `${d}/bad3.json: total_node: unknown field`],
      [
        "bad4.yaml",
        "backfill_policy: greedy\n",
        `${d}/bad4.yaml: backfill_policy: unknown value 'greedy'`,
      ],
      [
        "bad5.yaml",
        "seed: 9007199254740993\n",
        `${d}/bad5.yaml: seed: 9007199254740993 cannot be represented exactly`,
      ],
      ["bad6.yaml", "total_nodes: [1\n", `${d}/bad6.yaml:2: not valid YAML or JSON`],
      ["bad7.yaml", "- 1\n- 2\n", `${d}/bad7.yaml: expected a mapping`],
      ["bad8.yaml", "progress: true\n", `${d}/bad8.yaml: progress: unknown field`],
    ];
    for (const [name, text, start] of cases) {
      Deno.writeTextFileSync(`${d}/${name}`, text);
      const r = name === "bad1.yaml"
        ? await runCliProcess(["simulate", `${d}/jobs.csv`, "-c", `${d}/${name}`])
        : await runCli(["simulate", `${d}/jobs.csv`, "-c", `${d}/${name}`]);
      assertEquals(r.code, 1, name);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${start}`), `${r.err[0]}\nexpected: ${start}`);
    }
    const missing = await runCli(["simulate", `${d}/jobs.csv`, "-c", `${d}/nope.yaml`]);
    assertEquals(missing.err, [`evtsim: ${d}/nope.yaml: cannot read: no such file or folder`]);
    assertEquals(
      [...Deno.readDirSync(d)].map((e) => e.name).filter((n) => n.includes("_sim")),
      [],
    );
  });
});

Deno.test("help: 'evtsim help simulate' = 'simulate --help', with placeholders and examples", async () => {
  const a = await runCli(["help", "simulate"]);
  const b = await runCli(["simulate", "--help"]);
  assertEquals(a.code, 0);
  assertEquals(a.out, b.out);
  const text = a.out.join("\n");
  for (
    const s of [
      "-n, --total_nodes N",
      "-o, --outfile FILE",
      "-t, --max_time T",
      "-c, --config FILE",
    ]
  ) {
    assert(text.includes(s), s);
  }
  assert(text.includes("Examples:\n  evtsim simulate jobs.csv -n 128"), text);
  const top = await runCli(["--help"]);
  assert(top.out.join("\n").includes("example:\n  evtsim simulate"), top.out.join("\n"));
  const unknown = await runCli(["help", "bogus"]);
  assertEquals(unknown.code, 1);
});

Deno.test("--version is deno.json's version", async () => {
  const version = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).version;
  const r = await runCliProcess(["--version"]);
  assertEquals(r.code, 0);
  assertEquals(r.out, [`evtsim ${version}`]);
});

Deno.test("every deno.json task has a description; install puts evtsim on the PATH", () => {
  const tasks = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks;
  for (
    const [name, t] of Object.entries(tasks) as [
      string,
      { description?: string; command?: string },
    ][]
  ) {
    assert(typeof t === "object" && t.description && t.command, `task ${name}`);
  }
  assert(tasks.install.command.startsWith("deno install -g"), tasks.install.command);
  assert(tasks.install.command.includes("-n evtsim"), tasks.install.command);
});

Deno.test("progress line: cut to the terminal width, with the rate and an ETA", () => {
  for (const columns of [20, 40, 60, 80, 200]) {
    const line = progressText("simulating", 12_345, 100_000, 3, columns);
    assert(line.length <= columns - 1, `${columns}: ${line}`);
  }
  const wide = progressText("simulating", 25_000, 100_000, 10, 120);
  assert(wide.includes("[#######"), wide);
  assert(wide.includes("25.0% 25000/100000 jobs, 2500/s, ETA 30s"), wide);
  const written: string[] = [];
  const p = new Progress("simulating", 1000, true, {
    write: (t) => written.push(t),
    columns: () => 30,
  });
  p.update(10);
  p.update(1000);
  p.done();
  assert(written.length === 3 && written[2] === "\n", JSON.stringify(written));
  assert(
    written.slice(0, 2).every((t) => t.startsWith("\r") && t.length <= 30),
    JSON.stringify(written),
  );
  const off = new Progress("simulating", 1000, false, {
    write: (t) => written.push(t),
    columns: () => 30,
  });
  off.update(5);
  off.done();
  assertEquals(written.length, 3);
});

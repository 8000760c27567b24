// EASY against `conservative_profile` on one generated trace, through the
// `evtsim` command (issue 16's performance line: conservative backfilling
// with a profile and compression within 3x of EASY's time on heavy_100k).
// Each policy is one whole run, `simulate TRACE -n NODES --run_time_mode
// actual`, timed from process start to exit; a run that exceeds the timeout
// is killed and shown as "> T s", with the ratio as a lower bound.
//
// usage: deno run -A bench/policies.ts [--jobs 100000] [--timeout 600]
//          [--trace FILE --nodes N] [--keep]

import { intArg, numberArg, parseScriptArgs } from "./_args.ts";
import { measure } from "./_measure.ts";
import { formatTable } from "./_util.ts";
import { generateTrace, traceToCsv } from "./gen_trace.ts";

const USAGE = `usage: deno run -A bench/policies.ts [options]

Times EASY and conservative_profile on heavy_100k (deno task gen 8 100000 1024
1.5 --ties) through the evtsim command, and prints both and their ratio.

options:
  --jobs N        the first N jobs of heavy_100k's generator (default 100000)
  --trace FILE    use this trace instead (with --nodes)
  --nodes N       machine size for --trace (default 1024)
  --timeout S     kill a run after S seconds (default 600)
  --keep          keep the temporary folder
  -h, --help      show this help`;

const REPO_ROOT = new URL("..", import.meta.url).pathname;

const POLICIES: readonly { name: string; args: readonly string[] }[] = [
  { name: "EASY", args: ["--backfill_policy", "easy"] },
  { name: "conservative_profile", args: ["--admission", "conservative_profile"] },
];

async function main(args: readonly string[]): Promise<number> {
  const { values } = parseScriptArgs(args, {
    jobs: { type: "string", default: "100000" },
    trace: { type: "string" },
    nodes: { type: "string", default: "1024" },
    timeout: { type: "string", default: "600" },
    keep: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const jobs = intArg("--jobs", values.jobs, 1)!;
  const nodes = intArg("--nodes", values.nodes, 1)!;
  const timeout = numberArg("--timeout", values.timeout, 1)!;
  const dir = await Deno.makeTempDir({ prefix: "evtsim_policies_" });
  try {
    const given = values.trace !== undefined;
    const machine = given ? nodes : 1024;
    let trace = values.trace;
    let label = trace ?? "";
    if (trace === undefined) {
      trace = `${dir}/heavy.csv`;
      label = jobs === 100000 ? "heavy_100k" : `heavy_100k (first ${jobs} jobs)`;
      const all = generateTrace({ seed: 8, jobs: 100000, nodes: 1024, load: 1.5, ties: true });
      await Deno.writeTextFile(trace, traceToCsv(all.slice(0, jobs)));
    } else trace = await Deno.realPath(trace);
    const seconds: number[] = [];
    const rows: string[][] = [];
    for (const p of POLICIES) {
      const argv = [
        Deno.execPath(),
        "run",
        "-A",
        "--v8-flags=--max-semi-space-size=16",
        "cli/main.ts",
        "simulate",
        trace,
        "--total_nodes",
        String(machine),
        "--run_time_mode",
        "actual",
        ...p.args,
        "--outfile",
        `${dir}/${p.name}.csv`,
      ];
      const m = await measure(argv, REPO_ROOT, timeout);
      if (!m.timedOut && m.code !== 0) {
        console.error(`${p.name}: exit ${m.code}\n${m.stderr}`);
        return 1;
      }
      seconds.push(m.timedOut ? Infinity : m.seconds);
      rows.push([p.name, m.timedOut ? `> ${timeout} s` : `${m.seconds.toFixed(2)} s`]);
    }
    const ratio = seconds[1] / seconds[0];
    rows[0].push("1.00x");
    rows[1].push(
      Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : `> ${(timeout / seconds[0]).toFixed(0)}x`,
    );
    console.log(`${label}, ${machine} nodes, actual run times`);
    console.log(formatTable(["policy", "wall", "÷ EASY"], rows));
    return 0;
  } finally {
    if (values.keep === true) console.log(`kept ${dir}`);
    else await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (e) {
    console.error(`policies: ${(e as Error).message}`);
    Deno.exit(1);
  }
}

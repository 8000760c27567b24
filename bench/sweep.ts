// `evtsim sweep` with its local executor: an 8-cell sweep of the KTH SP2 log
// (4 policies x 2 run-time modes) run with --jobs 1 and then --jobs 2, each
// timed from process start to exit, with the speed-up; the two results.csv
// must be the same bytes. Issue 17's line: --jobs 2 at least 1.6x faster
// than --jobs 1 on a 2-core machine.
//
// usage: deno run -A bench/sweep.ts [--data DIR] [--jobs A,B] [--keep]

import { parseScriptArgs } from "./_args.ts";
import { formatTable } from "./_util.ts";

const USAGE = `usage: deno run -A bench/sweep.ts [options]

Runs an 8-cell sweep of KTH-SP2-1996-2.1-cln.swf.gz (easy, conservative,
none, sjf+easy x actual, limit run times) through the evtsim command with
--jobs 1 and --jobs 2, and prints both wall times and the speed-up.

options:
  --data DIR      SWF logs folder (default ../shared/data/swf from the repo root)
  --jobs A,B      the two --jobs values to compare (default 1,2)
  --keep          keep the temporary folder
  -h, --help      show this help`;

const REPO_ROOT = new URL("..", import.meta.url).pathname;
const KTH = "KTH-SP2-1996-2.1-cln.swf.gz";

async function main(args: readonly string[]): Promise<number> {
  const { values } = parseScriptArgs(args, {
    data: { type: "string" },
    jobs: { type: "string", default: "1,2" },
    keep: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const jobs = values.jobs.split(",").map(Number);
  if (jobs.length !== 2 || !jobs.every((j) => Number.isInteger(j) && j >= 1)) {
    throw new Error(`--jobs expects two positive integers like 1,2, got '${values.jobs}'`);
  }
  const log = await Deno.realPath(`${values.data ?? `${REPO_ROOT}../shared/data/swf`}/${KTH}`);
  const dir = await Deno.makeTempDir({ prefix: "evtsim_sweep_bench_" });
  try {
    const spec = `${dir}/kth.yaml`;
    await Deno.writeTextFile(
      spec,
      [
        `traces: [${JSON.stringify(log)}]`,
        "policies: [easy, conservative, none, sjf+easy]",
        "run_time_modes: [actual, limit]",
        "",
      ].join("\n"),
    );
    const seconds: number[] = [];
    for (const n of jobs) {
      const t0 = performance.now();
      const r = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "-A",
          "--v8-flags=--max-semi-space-size=16",
          "--config",
          `${REPO_ROOT}deno.json`,
          `${REPO_ROOT}cli/main.ts`,
          "sweep",
          spec,
          "--results",
          `${dir}/jobs${n}`,
          "--jobs",
          String(n),
          "--no_progress",
        ],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      seconds.push((performance.now() - t0) / 1000);
      if (r.code !== 0) {
        throw new Error(`sweep --jobs ${n} failed:\n${new TextDecoder().decode(r.stderr)}`);
      }
    }
    const [a, b] = await Promise.all(
      jobs.map((n) => Deno.readTextFile(`${dir}/jobs${n}/results.csv`)),
    );
    if (a !== b) throw new Error("the two sweeps' results.csv differ");
    console.log(`KTH SP2 (28k jobs), 8 cells, ${navigator.hardwareConcurrency} cores`);
    console.log(
      formatTable(
        ["--jobs", "wall s", "s per cell"],
        jobs.map((n, i) => [String(n), seconds[i].toFixed(2), (seconds[i] / 8).toFixed(2)]),
      ),
    );
    console.log(
      `speed-up --jobs ${jobs[1]} over --jobs ${jobs[0]}: ${
        (seconds[0] / seconds[1]).toFixed(2)
      }x` +
        " (results.csv identical)",
    );
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
    console.error(`bench/sweep.ts: ${(e as Error).message}`);
    Deno.exit(1);
  }
}

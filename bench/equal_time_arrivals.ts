// Peak memory of a batch of equal-time arrivals against the same jobs spread
// out (issue 18, item 16): writes two traces of N jobs (sizes 1..64 nodes,
// limits 10..1000 s, run = limit / 2, 128 nodes): all submitted at 0, and 1000
// per second (the wait queue reaches N in both), runs `evtsim simulate -b
// easy` on each under `/usr/bin/time -v` and prints the maximum resident set.
//
// usage: deno run -A bench/equal_time_arrivals.ts [--jobs 200000] [--seed 1]

import { parseArgs } from "node:util";
import { formatTable } from "./_util.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { jobs: { type: "string", default: "200000" }, seed: { type: "string", default: "1" } },
});
const n = Number(flags.jobs);
let s = Number(flags.seed) >>> 0 || 1;
const rand = (lo: number, hi: number) => {
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  return lo + ((s >>> 0) % (hi - lo + 1));
};

const dir = await Deno.makeTempDir({ prefix: "evtsim-equal-time-" });
const root = new URL("../", import.meta.url).pathname;
try {
  const jobs = Array.from({ length: n }, () => [rand(1, 64), rand(10, 1000)]);
  const rows: string[][] = [];
  for (
    const [name, submit] of [["equal", () => 0], [
      "spread",
      (i: number) => Math.floor(i / 1000),
    ]] as const
  ) {
    const path = `${dir}/${name}.csv`;
    const lines = ["job_submit_time,num_nodes,time_limit,actual_run_time"];
    jobs.forEach(([nodes, limit], i) => lines.push(`${submit(i)},${nodes},${limit},${limit >> 1}`));
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
    const out = await new Deno.Command("/usr/bin/time", {
      args: [
        "-v",
        Deno.execPath(),
        "run",
        "-A",
        "--v8-flags=--max-semi-space-size=16",
        `${root}cli/main.ts`,
        "simulate",
        path,
        "-n",
        "128",
        "-b",
        "easy",
        "-o",
        `${dir}/${name}_sim.csv`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err)?.[1];
    const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)/.exec(err)?.[1];
    rows.push([name, String(n), rss ? `${Math.round(Number(rss) / 1024)} MiB` : "?", wall ?? "?"]);
  }
  console.log(formatTable(["arrivals", "jobs", "peak RSS", "wall"], rows));
} finally {
  await Deno.remove(dir, { recursive: true });
}

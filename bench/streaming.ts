// Streaming benchmarks for the bounded job store:
//
//   deno task bench:streaming             memory: 200k vs 2M jobs, batches of 1,000,
//                                          job-store capacity 10,000; throughput:
//                                          streaming vs batch on 200k EASY jobs
//   deno task bench:streaming --child N   one memory run of N jobs (used internally)
//
// Each memory run is its own process, so its peak RSS is its own. Rows go to
// counting sinks: what is measured is the simulator's memory, not an output
// buffer.

import { initialState, Simulation, statistics, step } from "../mod.ts";
import type { JobSpec } from "../mod.ts";
import { generateTrace } from "./gen_trace.ts";
import { intArg, parseScriptArgs } from "./_args.ts";

const NODES = 1024;
const LOAD = 0.9;
const BATCH = 1000;
const CAPACITY = 10_000;

/** Jobs in batches of `BATCH`, generated lazily so the trace itself is never held whole. */
function* batches(total: number, seed: number): Generator<JobSpec[]> {
  let offset = 0;
  for (let done = 0, k = 0; done < total; k++) {
    const n = Math.min(BATCH, total - done);
    const jobs = generateTrace({ seed: seed * 100_003 + k, jobs: n, nodes: NODES, load: LOAD });
    const shifted = jobs.map((j) => ({ ...j, submitTime: j.submitTime + offset }));
    offset = shifted[shifted.length - 1].submitTime;
    done += n;
    yield shifted;
  }
}

interface StreamResult {
  readonly seconds: number;
  readonly peakRss: number;
  readonly jobRows: number;
  readonly averageWait: number;
}

function stream(total: number, capacity: number): StreamResult {
  let jobRows = 0;
  let peakRss = Deno.memoryUsage().rss;
  const sim = new Simulation(
    {
      totalNodes: NODES,
      backfillPolicy: "easy",
      jobStoreCapacity: capacity,
      jobStoreOverflow: "grow",
    },
    { onJobRow: () => jobRows++, onResourceRow: () => {}, onNotice: () => {} },
  );
  const t0 = performance.now();
  let k = 0;
  for (const batch of batches(total, 1)) {
    if (batch[0].submitTime > sim.currentTime) sim.runUntilExclusive(batch[0].submitTime);
    sim.appendJobs(batch);
    if (++k % 20 === 0) peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }
  const out = sim.finish();
  const seconds = (performance.now() - t0) / 1000;
  peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  return { seconds, peakRss, jobRows, averageWait: out.statistics.averageWait };
}

function batch(jobs: JobSpec[]): { seconds: number; averageWait: number } {
  const t0 = performance.now();
  let s = initialState({ totalNodes: NODES, backfillPolicy: "easy" });
  s = step(s, { kind: "appendJobs", jobs }).state;
  s = step(s, { kind: "runToCompletion" }).state;
  s = step(s, { kind: "finish" }).state;
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, averageWait: statistics(s).averageWait };
}

async function child(n: number): Promise<StreamResult> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      new URL(import.meta.url).pathname,
      "--child",
      String(n),
    ],
    stdout: "piped",
    stderr: "inherit",
  });
  const out = await cmd.output();
  if (out.code !== 0) throw new Error(`child run of ${n} jobs failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const mib = (b: number) => (b / (1 << 20)).toFixed(1);

if (import.meta.main) {
  const { values } = parseScriptArgs(Deno.args, { child: { type: "string" } });
  const childJobs = intArg("--child", values.child, 1);
  if (childJobs !== undefined) {
    console.log(JSON.stringify(stream(childJobs, CAPACITY)));
  } else {
    console.log(
      `Memory: EASY, ${NODES} nodes, load ${LOAD}, batches of ${BATCH}, job-store capacity ${CAPACITY}`,
    );
    const small = await child(200_000);
    const large = await child(2_000_000);
    console.log("jobs       seconds   jobs/s    peak RSS MiB  rows");
    for (const [n, r] of [[200_000, small], [2_000_000, large]] as const) {
      console.log(
        `${String(n).padEnd(10)} ${r.seconds.toFixed(2).padEnd(9)} ${
          String(Math.round(n / r.seconds)).padEnd(9)
        } ${mib(r.peakRss).padEnd(13)} ${r.jobRows}`,
      );
    }
    console.log(
      `peak RSS ratio 2M / 200k: ${(large.peakRss / small.peakRss).toFixed(2)} (bound: 2)`,
    );

    console.log("\nThroughput: 200k EASY jobs, streaming (batches of 1,000) vs batch (one append)");
    const all: JobSpec[] = [];
    for (const b of batches(200_000, 1)) all.push(...b);
    const b = batch(all);
    const s = stream(200_000, CAPACITY);
    console.log(
      `batch:     ${b.seconds.toFixed(2)} s, ${
        Math.round(200_000 / b.seconds)
      } jobs/s, average wait ${b.averageWait.toFixed(1)}`,
    );
    console.log(
      `streaming: ${s.seconds.toFixed(2)} s, ${
        Math.round(200_000 / s.seconds)
      } jobs/s, average wait ${s.averageWait.toFixed(1)}`,
    );
    console.log(`streaming / batch time: ${(s.seconds / b.seconds).toFixed(2)} (bound: 1.5)`);
  }
}

// The conservative family on a 3-resource machine against whole nodes
// (issue 28 item 3): one generated trace run twice per policy, on 64 whole
// nodes and on a topology cluster of 64 nodes of 32 cpu, 128 mem and 4 gpu
// (racks of 16), each job's nodes becoming replicas of 24 cpu and 96 mem
// (or, for about 30% of them, 8 cpu, 32 mem and 1–4 gpu). Run times are
// 20–100% of the limits. Prints wall time, jobs run, peak queue and mean
// wait per run. Wall clock on a shared machine: compare figures of one run.
//
// usage: deno run -A bench/conservative_resources.ts [jobs=3000]
//          [policies=conservative_profile,conservative] [mean gap=100 s]

import { type JobSpec, Simulation, topologyCluster } from "../mod.ts";

if (import.meta.main) main();

function main(): void {
  const jobs = Number(Deno.args[0] ?? 3000);
  const policies = (Deno.args[1] ?? "conservative_profile,conservative").split(",");
  const gap = 2 * Number(Deno.args[2] ?? 100);
  const NODES = 64;

  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const whole: JobSpec[] = [];
  const multi: JobSpec[] = [];
  let t = 0;
  for (let i = 0; i < jobs; i++) {
    t += Math.floor(random() * gap);
    const n = 1 + Math.floor(random() * random() * 16);
    const limit = 100 + Math.floor(random() * 5000);
    const run = Math.max(1, Math.floor(limit * (0.2 + 0.8 * random())));
    whole.push({ submitTime: t, numNodes: n, timeLimit: limit, actualRunTime: run });
    const gpu = random() < 0.3 ? 1 + Math.floor(random() * 4) : 0;
    multi.push({
      submitTime: t,
      numNodes: 0,
      timeLimit: limit,
      actualRunTime: run,
      demand: {
        replicas: n,
        perReplica: gpu > 0 ? { cpu: 8, mem: 32, gpu } : { cpu: 24, mem: 96 },
      },
    });
  }

  const machine = () =>
    topologyCluster(Array.from({ length: NODES }, (_, i) => ({
      name: `n${String(i).padStart(3, "0")}`,
      topology: { rack: `r${i >> 4}` },
      capacity: { cpu: 32, mem: 128, gpu: 4 },
    })));

  for (const policy of policies) {
    for (const kind of ["whole nodes", "3 resources"]) {
      const started = performance.now();
      const sim = new Simulation({
        totalNodes: NODES,
        backfillPolicy: policy as "conservative",
        ...(kind === "whole nodes" ? {} : { resourceModel: machine() }),
      });
      sim.appendJobs(kind === "whole nodes" ? whole : multi);
      const out = sim.finish();
      const ms = performance.now() - started;
      const wait = out.jobs.reduce((s, r) => s + r.beginTime - r.submitTime, 0) / out.jobs.length;
      console.log(
        `${policy}, ${kind}: ${jobs} jobs, ${out.jobs.length} ran, ${ms.toFixed(0)} ms, ` +
          `peak queue ${out.statistics.peakQueueLength}, mean wait ${wait.toFixed(0)} s`,
      );
    }
  }
}

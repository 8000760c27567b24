// The library front of per-resource utilization (issue 28, m-fronts): a
// `Simulation` on examples/gpu_machine.yaml's nodes (machineNodes,
// topologyCluster), its DISPATCH and job rows given to the exported
// ResourceUseCollector, and its job rows to computeMetrics and machineMetrics, give what
// `simulate --machine --stats_json` writes (`resources`, `metrics`).

import { ROOT, runCli } from "../_cli.ts";
import { assertEquals } from "../_assert.ts";
import {
  computeMetrics,
  machineMetrics,
  machineNodes,
  ResourceUseCollector,
  Simulation,
  topologyCluster,
} from "../../mod.ts";
import { readTrace } from "../../io/mod.ts";
import { readMachine } from "../../io/machine_file.ts";
import { csvDemands, machineInput } from "../../io/_machine_demands.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

Deno.test("library: ResourceUseCollector and computeMetrics over a Simulation on a machine equal simulate --machine's stats JSON", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-library-resources-" });
  try {
    const sim = await runCli([
      "simulate",
      TRACE,
      "--machine",
      MACHINE,
      "--admission",
      "conservative_profile",
      "--bsld_tau",
      "60",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/stats.json`,
    ]);
    assertEquals(sim.code, 0, sim.err.join("\n"));
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/stats.json`));
    const machine = await readMachine(MACHINE);
    const nodes = machineNodes(machine);
    // The trace's demand columns read by simulate's rules.
    const trace = await readTrace(TRACE, { demand: csvDemands(machineInput(machine)) });
    const run = new Simulation({
      totalNodes: nodes.length,
      resourceModel: topologyCluster(nodes),
      backfillPolicy: "conservative_profile",
      decisions: "heads",
    });
    run.appendJobs(trace.jobs);
    const out = run.finish();
    const use = new ResourceUseCollector(topologyCluster(nodes).nodes ?? []);
    use.decisions(out.decisions);
    for (const r of out.jobs) use.add(r);
    const resources = use.metrics({ bsldTau: 60 });
    assertEquals(resources, stats.resources);
    const users = new Map(trace.jobs.map((j, i) => [i, j.user]));
    // On a machine utilization counts node equivalents (machineMetrics).
    const metrics = machineMetrics(
      computeMetrics(
        out.jobs.map((r) => ({ ...r, user: users.get(r.jobId) })),
        out.statistics.totalNodes,
        { bsldTau: 60 },
      ),
      resources,
    );
    assertEquals(metrics, stats.metrics);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

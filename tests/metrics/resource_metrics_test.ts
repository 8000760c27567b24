// Utilization per resource and partition (issue 28 item 7, --stats_json):
// what each job held (its DISPATCH allocation × units per replica) over the
// metric set's span, checked against a plain sum on random topology runs,
// and written into the statistics JSON by the run's outputs.

import fc from "fast-check";
import { initialState } from "../../api/initial_state.ts";
import { RunOutputs } from "../../cli/outputs.ts";
import { computeMetrics, ResourceUseCollector } from "../../core/metrics.ts";
import { step } from "../../core/step.ts";
import type { DecisionRow } from "../../core/decisions.ts";
import type { JobRow, JobSpec } from "../../core/types.ts";
import { statsJsonText } from "../../io/stats_json.ts";
import { greedyBackfillAdmission } from "../../schedulers/topology_admission.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbCpuGpuJobs, cpuGpuSpec } from "../_arbitraries.ts";

const PARAMS = { seed: 1728, numRuns: 150 };

const arbMachine = fc.array(
  fc.record({
    cpu: fc.integer({ min: 1, max: 16 }),
    gpu: fc.integer({ min: 0, max: 4 }),
    partition: fc.constantFrom("cpu", "gpu", undefined),
  }),
  { minLength: 1, maxLength: 6 },
).map((nodes) =>
  nodes.map((n, i) => ({
    name: `n${String(i + 1).padStart(2, "0")}`,
    capacity: { cpu: n.cpu, gpu: n.gpu },
    ...(n.partition !== undefined ? { topology: { partition: n.partition } } : {}),
  }))
);

const arbJobs = arbCpuGpuJobs({ maxSubmit: 50, maxRun: 30, maxLength: 25 });

Deno.test("per-resource utilization equals a plain sum over the jobs' allocations (property)", () => {
  fc.assert(
    fc.property(arbMachine, arbJobs, (nodes, jobs) => {
      const resourceModel = topologyCluster(nodes);
      const specs: JobSpec[] = jobs.map(cpuGpuSpec);
      let s = initialState({
        totalNodes: nodes.length,
        resourceModel,
        admission: greedyBackfillAdmission,
        decisions: "heads",
      });
      const rows: JobRow[] = [];
      const decisions: DecisionRow[] = [];
      for (
        const input of [{ kind: "appendJobs", jobs: specs }, { kind: "runToCompletion" }, {
          kind: "finish",
        }] as const
      ) {
        const r = step(s, input);
        s = r.state;
        rows.push(...r.rows.jobs);
        decisions.push(...r.rows.decisions);
      }
      const c = new ResourceUseCollector(resourceModel.nodes!);
      c.decisions(decisions);
      for (const r of rows) c.add(r);
      const m = c.metrics();
      // The reference: arrays and loops over the rows and the nodes.
      const first = Math.min(...rows.map((r) => r.submitTime));
      const last = Math.max(...rows.map((r) => r.endTime));
      const byId = new Map(decisions.filter((d) => d.type === "DISPATCH").map((d) => [d.jobId, d]));
      for (const res of ["cpu", "gpu"]) {
        for (const part of [undefined, "cpu", "gpu"]) {
          const inPart = (name: string) =>
            part === undefined || nodes.find((n) => n.name === name)?.topology?.partition === part;
          let capacity = 0;
          for (const n of nodes) if (inPart(n.name)) capacity += n.capacity[res as "cpu" | "gpu"];
          let used = 0;
          for (const r of rows) {
            const d = byId.get(r.jobId);
            if (d === undefined || d.type !== "DISPATCH") continue;
            const j = jobs[r.jobId];
            for (const a of d.allocation!) {
              if (inPart(a.nodeName)) {
                used += a.replicas * (res === "cpu" ? j.cpu : j.gpu) * (r.endTime - r.beginTime);
              }
            }
          }
          const figures = part === undefined ? m.by_resource[res] : m.by_partition?.[part]?.[res];
          if (part !== undefined && !nodes.some((n) => n.topology?.partition === part)) {
            assertEquals(figures, undefined);
            continue;
          }
          assertEquals(figures?.capacity, capacity, `${res} ${part}`);
          assertEquals(figures?.used_unit_s, used, `${res} ${part}`);
          const expected = capacity > 0 && last > first ? used / (capacity * (last - first)) : null;
          assertEquals(figures?.utilization, expected);
          if (expected !== null) assert(expected <= 1 + 1e-12, `${res} ${part} over capacity`);
        }
      }
      // The span is the metric set's: with equal capacity the two agree.
      assertEquals(computeMetrics(rows, 1).makespan_s, rows.length > 0 ? last - first : null);
    }),
    PARAMS,
  );
});

Deno.test("the statistics JSON of a run on a resource model gets resources; without one it has none", () => {
  const files = new Map<string, string>();
  const fs = {
    create(path: string) {
      files.set(path, "");
      const dec = new TextDecoder();
      return {
        write: (b: Uint8Array) => (files.set(path, files.get(path)! + dec.decode(b)), b.length),
        sync() {},
        close() {},
      };
    },
    rename(from: string, to: string) {
      files.set(to, files.get(from)!);
      files.delete(from);
    },
    remove: (path: string) => void files.delete(path),
    link: (from: string, to: string) => void files.set(to, files.get(from)!),
    exists: (path: string) => files.has(path) || path === "/" || path === "/out",
    mkdir() {},
  };
  const resourceModel = topologyCluster([
    { name: "g1", capacity: { cpu: 8, gpu: 4 }, topology: { partition: "gpu" } },
    { name: "c1", capacity: { cpu: 8 }, topology: { partition: "cpu" } },
  ]);
  for (const model of [resourceModel, undefined]) {
    const out = new RunOutputs({
      schedule: "/out/s.csv",
      resources: "/out/r.csv",
      statsJson: "/out/j.json",
    }, fs);
    out.begin({ format: "csv", totalNodes: 2, version: "0", resourceModel: model }, () => {});
    out.write({
      jobs: [],
      resources: [],
      notices: [],
      decisions: [{
        type: "DISPATCH",
        time: 0,
        round: 1,
        jobId: 0,
        numNodes: 1,
        backfill: false,
        allocation: [{ nodeName: "g1", replicas: 2 }],
        perReplica: { cpu: 2, gpu: 2 },
      }],
    });
    out.write({
      jobs: [{
        jobId: 0,
        submitTime: 0,
        beginTime: 0,
        endTime: 50,
        numNodes: 0,
        timeLimit: 50,
        queue: undefined,
      }],
      resources: [],
      notices: [],
      decisions: [],
    });
    out.commit(() => statsJsonText({ resources: out.resourceMetrics({}) } as never));
    const doc = JSON.parse(files.get("/out/j.json")!);
    if (model === undefined) {
      assertEquals(doc, {});
      continue;
    }
    assertEquals(doc.resources.by_resource, {
      cpu: { capacity: 16, used_unit_s: 200, utilization: 0.25 },
      gpu: { capacity: 4, used_unit_s: 200, utilization: 1 },
    });
    assertEquals(doc.resources.by_partition.cpu.cpu, {
      capacity: 8,
      used_unit_s: 0,
      utilization: 0,
    });
    assertEquals(doc.resources.by_partition.gpu.cpu.utilization, 0.5);
  }
});

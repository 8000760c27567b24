// `--resource_columns per_resource` (issue 28 item 7): a free/used pair per
// resource type after DR_EVT's columns. On a resource model each row's
// pairs sum to the machine's capacity and hold what the running jobs hold;
// on a whole-node machine the one pair is nodes; the default is unchanged.

import fc from "fast-check";
import { initialState } from "../../api/initial_state.ts";
import { RunOutputs } from "../../cli/outputs.ts";
import { step } from "../../core/step.ts";
import type { JobSpec, StepRows } from "../../core/types.ts";
import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { greedyBackfillAdmission } from "../../schedulers/topology_admission.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { arbCpuGpuJobs, cpuGpuSpec } from "../_arbitraries.ts";

const PARAMS = { seed: 2807, numRuns: 120 };

/** An in-memory file system for RunOutputs (one folder, /out). */
function memoryFs(files: Map<string, string>) {
  const dec = new TextDecoder();
  return {
    create(path: string) {
      files.set(path, "");
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
}

const arbRun = fc.record({
  nodes: fc.array(
    fc.record({ cpu: fc.integer({ min: 1, max: 16 }), gpu: fc.integer({ min: 0, max: 4 }) }),
    { minLength: 1, maxLength: 5 },
  ),
  jobs: arbCpuGpuJobs({ maxSubmit: 40, maxRun: 20, maxLength: 20 }),
});

Deno.test("per_resource on a resource model: every row's pairs sum to capacity and hold what runs (property)", () => {
  fc.assert(
    fc.property(arbRun, ({ nodes, jobs }) => {
      const machine = nodes.map((n, i) => ({
        name: `n${i + 1}`,
        capacity: { cpu: n.cpu, gpu: n.gpu },
      }));
      const resourceModel = topologyCluster(machine);
      const specs: JobSpec[] = jobs.map(cpuGpuSpec);
      const files = new Map<string, string>();
      const out = new RunOutputs(
        { schedule: "/out/s.csv", resources: "/out/r.csv" },
        memoryFs(files),
      );
      out.begin({
        format: "csv",
        totalNodes: machine.length,
        version: "0",
        resourceModel,
        resourceColumns: "per_resource",
      }, () => {});
      let s = initialState({
        totalNodes: machine.length,
        resourceModel,
        admission: greedyBackfillAdmission,
        decisions: "heads",
      });
      const all: StepRows[] = [];
      for (
        const input of [{ kind: "appendJobs", jobs: specs }, { kind: "runToCompletion" }, {
          kind: "finish",
        }] as const
      ) {
        const r = step(s, input);
        s = r.state;
        out.write(r.rows);
        all.push(r.rows);
      }
      out.commit(() => "");
      const [head, ...lines] = files.get("/out/r.csv")!.trim().split("\n");
      assertEquals(head, "time,free_nodes,allocated_nodes,cpu_free,cpu_used,gpu_free,gpu_used");
      const cpu = machine.reduce((a, n) => a + n.capacity.cpu, 0);
      const gpu = machine.reduce((a, n) => a + n.capacity.gpu, 0);
      const rows = all.flatMap((r) => r.jobs);
      assertEquals(lines.length, all.flatMap((r) => r.resources).length);
      for (const line of lines) {
        const [t, , , cf, cu, gf, gu] = line.split(",").map(Number);
        assertEquals([cf + cu, gf + gu], [cpu, gpu], line);
        // The reference: what the jobs running after every event at t hold.
        let c = 0, g = 0;
        for (const r of rows) {
          if (r.beginTime <= t && t < r.endTime) {
            const j = jobs[r.jobId];
            c += j.replicas * j.cpu;
            g += j.replicas * j.gpu;
          }
        }
        assertEquals([cu, gu], [c, g], line);
        assert(cu <= cpu && gu <= gpu, line);
      }
    }),
    PARAMS,
  );
});

Deno.test("--resource_columns per_resource on a whole-node machine adds nodes_free,nodes_used; the default is DR_EVT's", async () => {
  const d = await Deno.makeTempDir({ prefix: "evtsim-rescol-" });
  try {
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      traceToCsv(generateTrace({ seed: 5, jobs: 150, nodes: 32, load: 1.2, ties: true })),
    );
    const plain = await runCli(["simulate", `${d}/t.csv`, "-n", "32", "-o", `${d}/p.csv`]);
    const wide = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "32",
      "-o",
      `${d}/w.csv`,
      "--resource_columns",
      "per_resource",
      "--report",
      `${d}/w.html`,
    ]);
    assertEquals([plain.code, wide.code], [0, 0], wide.err.join("\n"));
    const p = Deno.readTextFileSync(`${d}/p_resources.csv`).trim().split("\n");
    const w = Deno.readTextFileSync(`${d}/w_resources.csv`).trim().split("\n");
    assertEquals(p[0], "time,free_nodes,allocated_nodes");
    assertEquals(w[0], "time,free_nodes,allocated_nodes,nodes_free,nodes_used");
    assertEquals(w.length, p.length);
    for (let i = 1; i < p.length; i++) {
      const [, free, used] = p[i].split(",");
      assertEquals(w[i], `${p[i]},${free},${used}`);
      assertEquals(Number(free) + Number(used), 32);
    }
    assertEquals(Deno.readTextFileSync(`${d}/p.csv`), Deno.readTextFileSync(`${d}/w.csv`));
    assert(Deno.statSync(`${d}/w.html`).size > 0);
  } finally {
    await Deno.remove(d, { recursive: true });
  }
});

// The extended schedule's `nodes` column (issue 28 item 7): the nodes each
// job ran on, in Slurm hostlist form. Whole-node runs name them with the
// tracker (no node runs two jobs at once), resource-model runs with the
// DISPATCH rows' allocations; without --extended_output nothing changes.

import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { NodesColumn } from "../../cli/_nodes_column.ts";
import { initialState } from "../../api/initial_state.ts";
import { step } from "../../core/step.ts";
import type { JobRow } from "../../core/types.ts";
import { expandHostlist } from "../../io/hostlist.ts";
import { strictFifoAdmission } from "../../schedulers/topology_admission.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-nodes-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The CSV's fields, quoted ones (hostlists of several ranges) included. */
function fields(line: string): string[] {
  return [...line.matchAll(/"((?:[^"]|"")*)"|([^,]*)/g)]
    .filter((m) => m.index === 0 || line[m.index - 1] === ",")
    .map((m) => m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]);
}

Deno.test("--extended_output nodes: every job on num_nodes nodes of its own, none shared while it runs", async () => {
  await withDir(async (d) => {
    for (
      const [seed, policy] of [[3, "easy"], [4, "conservative"], [5, "none"], [6, "easy"]] as const
    ) {
      Deno.writeTextFileSync(
        `${d}/t.csv`,
        traceToCsv(generateTrace({ seed, jobs: 300, nodes: 16, load: 1.4, ties: true })),
      );
      const r = await runCli([
        "simulate",
        `${d}/t.csv`,
        "-n",
        "16",
        "-b",
        policy,
        "-o",
        `${d}/e.csv`,
        "--extended_output",
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const [head, ...lines] = Deno.readTextFileSync(`${d}/e.csv`).trim().split("\n");
      const col = head.split(",");
      const [b, e, n, at] = ["begin_time", "end_time", "num_nodes", "nodes"].map((c) =>
        col.indexOf(c)
      );
      assertEquals(at, col.length - 1);
      const held = new Map<string, [number, number][]>();
      for (const line of lines) {
        const f = fields(line);
        const names = expandHostlist(f[at]);
        assertEquals(new Set(names).size, Number(f[n]), line);
        for (const name of names) {
          assert(/^n0(0[1-9]|1[0-6])$/.test(name), `${line}: ${name} is one of n001-n016`);
          const list = held.get(name) ?? [];
          list.push([Number(f[b]), Number(f[e])]);
          held.set(name, list);
        }
      }
      for (const [name, list] of held) {
        list.sort((x, y) => x[0] - y[0]);
        for (let i = 1; i < list.length; i++) {
          assert(
            list[i][0] >= list[i - 1][1] || list[i][0] === list[i][1] ||
              list[i - 1][0] === list[i - 1][1],
            `seed ${seed}: ${name} runs [${list[i - 1]}] and [${list[i]}] at once`,
          );
        }
      }
    }
  });
});

Deno.test("nodes column: a resource model's run names the nodes of each DISPATCH allocation", () => {
  const node = (name: string, rack: string) => ({
    name,
    topology: { rack },
    capacity: { cpu: 8, gpu: 2 },
  });
  const resourceModel = topologyCluster([node("a01", "ra"), node("a02", "ra"), node("b01", "rb")]);
  const job = (submitTime: number, replicas: number) => ({
    submitTime,
    numNodes: 0,
    timeLimit: 10,
    demand: { replicas, perReplica: { cpu: 4, gpu: 1 }, topologyKey: "rack" },
  });
  let s = initialState({
    totalNodes: 3,
    resourceModel,
    admission: strictFifoAdmission,
    decisions: true,
  });
  s = step(s, { kind: "appendJobs", jobs: [job(0, 3), job(0, 2), job(5, 4)] }).state;
  const column = new NodesColumn(3);
  const rows: JobRow[] = [];
  for (const input of [{ kind: "runToCompletion" }, { kind: "finish" }] as const) {
    const r = step(s, input);
    s = r.state;
    column.decisions(r.rows.decisions);
    rows.push(...r.rows.jobs);
  }
  const extra = { wait: 0, boundedSlowdown: 1, traceJobId: "", user: "" };
  for (const r of rows) column.add(r, extra);
  const seen: string[] = [];
  column.finish((r, e) => seen.push(`${r.jobId}@${r.beginTime}:${e.nodes}`));
  // Job 0's 3 replicas fill rack a (2 per node); job 1 takes b01; job 2 waits for rack a.
  assertEquals(seen, ["0@0:a[01-02]", "1@0:b01", "2@10:a[01-02]"]);
});

Deno.test("nodes column: without --extended_output the schedule and resources are DR_EVT's, byte for byte", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      traceToCsv(generateTrace({ seed: 9, jobs: 200, nodes: 32, load: 1.2, ties: true })),
    );
    const plain = await runCli(["simulate", `${d}/t.csv`, "-n", "32", "-o", `${d}/p.csv`]);
    const ext = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "32",
      "-o",
      `${d}/e.csv`,
      "--extended_output",
    ]);
    assertEquals([plain.code, ext.code], [0, 0]);
    const p = Deno.readTextFileSync(`${d}/p.csv`).trim().split("\n");
    const e = Deno.readTextFileSync(`${d}/e.csv`).trim().split("\n");
    assert(!p[0].split(",").includes("nodes"), p[0]);
    for (let i = 0; i < p.length; i++) assert(e[i].startsWith(p[i] + ","), e[i]);
    assertEquals(
      Deno.readTextFileSync(`${d}/p_resources.csv`),
      Deno.readTextFileSync(`${d}/e_resources.csv`),
    );
  });
});

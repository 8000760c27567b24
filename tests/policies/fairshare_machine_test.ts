// The `fairshare` picker on a machine (issue 28): a job placed by a resource
// model holds no share of the node-count pool (numNodes 0), so it is charged
// in node equivalents instead: its replicas × one replica's dominant share of
// a node (Slurm's TRES billing with PriorityFlags=MAX_TRES), a whole-node
// replica counting 1. A user who ran big GPU jobs then ranks behind a light
// user, as on whole nodes.

import {
  fairsharePicker,
  type FairshareState,
  type JobRecord,
  topologyCluster,
} from "../../mod.ts";
import { runCli } from "../_cli.ts";
import { assertEquals } from "../_assert.ts";

const HOUR = 3600;

function machineJob(id: number, user: string, perReplica: Record<string, number>): JobRecord {
  return {
    id,
    submitTime: 0,
    numNodes: 0,
    timeLimit: HOUR,
    runTime: HOUR,
    queue: undefined,
    priority: 0,
    user,
    beginTime: 0,
    endTime: HOUR,
    rejected: false,
    hidden: false,
    demand: { replicas: 2, perReplica },
  };
}

Deno.test("fairshare on a machine: a job is charged its replicas × dominant share of a node (whole-node replica: 1)", () => {
  const nodes = topologyCluster([
    { name: "cpu1", capacity: { cores: 64, node: 1_000_000 } },
    { name: "gpu1", capacity: { cores: 32, gpus: 4, node: 1_000_000 } },
  ]).nodes!;
  const init = (): FairshareState =>
    fairsharePicker.init({
      queues: [],
      searchByLimit: false,
      pickerNamed: () => fairsharePicker,
      totalNodes: 2,
      nodes,
      settings: { halfLife: HOUR },
    });
  const charged = (perReplica: Record<string, number>): number => {
    const s = fairsharePicker.onJobEnd!(init(), machineJob(0, "u", perReplica));
    // One hour at half-life one hour: (H / ln 2)·(1 − 1/2) per node equivalent.
    return s.usage[0].value / (HOUR / Math.LN2 / 2);
  };
  const close = (a: number, b: number) => assertEquals(Math.abs(a - b) < 1e-9, true, `${a} ≠ ${b}`);
  // 8 of 32 cores and 1 of 4 GPUs on the GPU node: a quarter node a replica, 2 replicas.
  close(charged({ node: 1, cores: 8, gpus: 1 }), 0.5);
  // 16 cores: a quarter of the 64-core node (where its share is least), a half of the GPU node.
  close(charged({ node: 1, cores: 16 }), 0.5);
  // A whole-node replica counts one node.
  close(charged({ node: 1_000_000 }), 2);
});

Deno.test("cli: fairshare on a machine: a user who ran big GPU jobs ranks behind a light user", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/m.yaml`,
      "groups:\n  - name: gpu\n    count: 2\n    resources: { cores: 32, gpus: 4 }\n",
    );
    // heavy's GPU job holds both nodes' GPUs until 1000; then heavy's and light's
    // equal jobs wait, heavy's submitted first.
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,gpus,user\n" +
        "0,2,1000,1000,8,4,heavy\n" +
        "10,2,100,100,8,4,heavy\n" +
        "20,2,100,100,8,4,light\n",
    );
    await Deno.writeTextFile(
      `${dir}/q.yaml`,
      "fairshare:\n  half_life: 3600\n  max_age: 3600\n  weights: { fairshare: 1000, age: 100 }\n",
    );
    for (const b of ["none", "easy"]) {
      const r = await runCli([
        "simulate",
        `${dir}/t.csv`,
        "--machine",
        `${dir}/m.yaml`,
        "-p",
        "fairshare",
        "-b",
        b,
        "--queues",
        `${dir}/q.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const begins = (await Deno.readTextFile(`${dir}/o.csv`)).trim().split("\n").slice(1)
        .map((l) => l.split(","));
      // light's job (submitted at 20) starts at 1000, before heavy's second (submitted at 10).
      assertEquals(begins.map((f) => `${f[0]}@${f[1]}`), ["0@0", "10@1100", "20@1000"], b);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

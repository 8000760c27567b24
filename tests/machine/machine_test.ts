// The machine description (--machine) and job demands on it: the file
// reader, the demand rules of each trace format, and `simulate --machine`
// end to end on the GPU and Slurm examples. The property on random machines
// is machine_properties_test.ts.
// The one-line errors are rows of tests/_fault_rows_m-machine.ts.

import { LOAD_DEFAULTS } from "../_trace_jobs.ts";
import {
  type JobSpec,
  type Machine,
  machineNodes,
  type ResourceDemand,
  WHOLE_NODE,
} from "../../mod.ts";
import { parseMachine } from "../../io/machine_file.ts";
import { parseTrace } from "../../io/trace_csv.ts";
import { csvDemands, machineInput } from "../../io/_machine_demands.ts";
import { loadInput, type LoadOptions } from "../../cli/load.ts";
import { readSacct } from "../../io/sacct.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

const GPU_MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const GPU_TRACE = `${ROOT}examples/gpu_trace.csv`;

const SMALL = [
  "default_partition: cpu",
  "groups:",
  "  - name: cpu",
  "    count: 2",
  "    resources: { cores: 8, memory: 16G }",
  "    partitions: [cpu]",
  "  - name: gpu",
  "    prefix: g",
  "    count: 2",
  "    resources: { cores: 8, memory: 16384, gpus: 4 }",
  "    partitions: [gpu, cpu]",
  '    labels: { rack: "r{i/1}" }',
  "",
].join("\n");

Deno.test("machine file: groups, node names, memory units, label expansion, overlapping pools", () => {
  const m = parseMachine(SMALL, "m.yaml");
  assertEquals(m.defaultPartition, "cpu");
  const nodes = machineNodes(m);
  assertEquals(nodes.map((n) => n.name), ["cpu001", "cpu002", "g001", "g002"]);
  assertEquals(nodes[0].capacity, {
    cores: 8,
    memory: 16384,
    node: WHOLE_NODE,
    "partition/cpu": WHOLE_NODE,
  });
  assertEquals(nodes[3].partitions, ["gpu", "cpu"]);
  assertEquals(nodes.map((n) => n.topology.rack ?? "-"), ["-", "-", "r0", "r1"]);
  // JSON is read as YAML.
  const j = parseMachine(
    JSON.stringify({ groups: [{ count: 1, resources: { memory: "1T" } }] }),
    "m.json",
  );
  assertEquals(j.groups[0].resources.memory, 1024 * 1024);
  assertEquals(machineNodes(j)[0].name, "group0001");
});

function readCsv(text: string, m: Machine): JobSpec[] {
  return parseTrace(text, { file: "t.csv", demand: csvDemands(machineInput(m)) }).jobs;
}

Deno.test("CSV demands: per-node units, whole nodes, partitions and the default", () => {
  const m = parseMachine(SMALL, "m.yaml");
  const jobs = readCsv(
    "job_submit_time,num_nodes,time_limit,num_cores,memory,gpus,partition\n" +
      "0,2,60,4,2G,,\n" + // default partition cpu
      "1,1,60,,,2,gpu\n" + // GPUs only
      "2,3,60,,,,\n" + // whole nodes
      "3,1,60,, ,,gpu\n", // empty values: a whole node
    m,
  );
  const d = (i: number) => jobs[i].demand as ResourceDemand;
  assertEquals(jobs.map((j) => j.numNodes), [0, 0, 0, 0]);
  assertEquals(d(0), {
    replicas: 2,
    perReplica: { node: 1, cores: 4, memory: 2048, "partition/cpu": 1 },
  });
  assertEquals(d(1), { replicas: 1, perReplica: { node: 1, gpus: 2, "partition/gpu": 1 } });
  assertEquals(d(2), { replicas: 3, perReplica: { node: WHOLE_NODE, "partition/cpu": 1 } });
  assertEquals(d(3), { replicas: 1, perReplica: { node: WHOLE_NODE, "partition/gpu": 1 } });
  // A topology level: every replica in one rack.
  const racked = readCsv(
    "job_submit_time,num_nodes,time_limit,gpus,partition,topology\n0,2,60,1,gpu,rack\n",
    m,
  );
  assertEquals(racked[0].demand?.topologyKey, "rack");
  // Without a default partition, a job naming none may use every node.
  const all = readCsv(
    "job_submit_time,num_nodes,time_limit\n0,4,60\n",
    parseMachine(SMALL.replace("default_partition: cpu\n", ""), "m.yaml"),
  );
  assertEquals(all[0].demand, { replicas: 4, perReplica: { node: WHOLE_NODE } });
});

const LOAD: LoadOptions = { ...LOAD_DEFAULTS, format: "swf" };

Deno.test("SWF demands: requested processors (else allocated) of 1 core, requested memory per processor", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.swf`,
      "1 0 0 60 4 -1 -1 2 60 2048 1 1 1 -1 -1 -1 -1 -1\n" +
        "2 5 0 60 3 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    const m = machineInput(parseMachine(SMALL, "m.yaml"));
    const t = await loadInput(`${dir}/t.swf`, { ...LOAD, machine: m });
    assertEquals(t.jobs.map((j) => j.demand), [
      { replicas: 2, perReplica: { node: 1, cores: 1, memory: 2, "partition/cpu": 1 } },
      { replicas: 3, perReplica: { node: 1, cores: 1, "partition/cpu": 1 } },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sacct demands: NNodes replicas, NCPUS and gres/gpu split over the nodes, ReqMem per node or per CPU", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.psv`,
      "JobID|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|Partition\n" +
        "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|01:00:00|2|8|4Gn|cpu=8,gres/gpu=4,node=2|gpu\n" +
        "2|2026-01-01T00:01:00|2026-01-01T00:01:00|2026-01-01T00:10:00|01:00:00|1|4|1000Mc||\n" +
        "3|2026-01-01T00:02:00|2026-01-01T00:02:00|2026-01-01T00:10:00|01:00:00|2||||cpu\n",
    );
    const m = machineInput(parseMachine(SMALL, "m.yaml"));
    const t = await loadInput(`${dir}/t.psv`, { ...LOAD, format: "sacct", machine: m });
    assertEquals(t.jobs.map((j) => j.demand), [
      {
        replicas: 2,
        perReplica: { node: 1, cores: 4, memory: 4096, gpus: 2, "partition/gpu": 1 },
      },
      { replicas: 1, perReplica: { node: 1, cores: 4, memory: 4000, "partition/cpu": 1 } },
      { replicas: 2, perReplica: { node: WHOLE_NODE, "partition/cpu": 1 } },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// --- end to end ------------------------------------------------------------

Deno.test("simulate --machine: the GPU example end to end (admission none, stats JSON, decisions)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    const r = await runCli([
      "simulate",
      GPU_TRACE,
      "--machine",
      GPU_MACHINE,
      "--admission",
      "none",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
      "--decisions",
      `${dir}/d.jsonl`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/s.json`));
    assertEquals(stats.statistics.jobsCompleted ?? stats.statistics.completedJobs, 10);
    assertEquals(stats.config.totalNodes, 14);
    assertEquals(stats.config.machine.groups.map((g: { name: string }) => g.name), [
      "cpu",
      "gpu",
      "bigmem",
    ]);
    assert(!("resourceModel" in stats.config), "the model is not in the stats JSON");
    const dispatches = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l)).filter((d) => d.type === "DISPATCH");
    assertEquals(dispatches.length, 10);
    // GPU-partition jobs (1, 3, 5, 8) only on gpu nodes; the others never on them.
    for (const d of dispatches) {
      const gpuJob = [1, 3, 5, 8].includes(d.jobId);
      for (const a of d.allocation) {
        assertEquals(a.nodeName.startsWith("gpu"), gpuJob, `job ${d.jobId} on ${a.nodeName}`);
      }
    }
    // Job 9 asks for 1536G on one node: only a bigmem node has it.
    assertEquals(
      dispatches.find((d) => d.jobId === 9).allocation[0].nodeName.slice(0, 6),
      "bigmem",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("-n N ignores demand columns: the schedule is byte-identical to the trace without them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    const text = await Deno.readTextFile(GPU_TRACE);
    const plain = text.split("\n").map((l) => l.split(",").slice(0, 4).join(",")).join("\n");
    await Deno.writeTextFile(`${dir}/plain.csv`, plain);
    for (const [name, trace] of [["a", GPU_TRACE], ["b", `${dir}/plain.csv`]]) {
      const r = await runCli(["simulate", trace, "-n", "14", "-o", `${dir}/${name}.csv`]);
      assertEquals(r.code, 0, r.err.join("\n"));
    }
    for (const suffix of [".csv", "_resources.csv"]) {
      assertEquals(
        await Deno.readTextFile(`${dir}/a${suffix}`),
        await Deno.readTextFile(`${dir}/b${suffix}`),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate --machine refuses what it cannot do yet, in one line", async () => {
  for (
    const [extra, expected] of [
      [["-n", "8"], /--machine cannot be used with -n\/--total_nodes/],
    ] as const
  ) {
    const r = await runCli([
      "simulate",
      GPU_TRACE,
      "--machine",
      GPU_MACHINE,
      "-b",
      "none",
      ...extra,
    ]);
    assertEquals(r.code, 1);
    assertEquals(r.err.length, 1);
    assert(expected.test(r.err[0]), r.err[0]);
  }
});

Deno.test("--queues binds a queue to a partition: its jobs naming none run on that partition's nodes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    await Deno.writeTextFile(`${dir}/m.yaml`, SMALL);
    await Deno.writeTextFile(
      `${dir}/q.yaml`,
      "queues:\n  - name: train\n    partition: gpu\n  - name: batch\n",
    );
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,num_cores,queue\n0,2,60,1,train\n0,2,60,1,batch\n",
    );
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "--machine",
      `${dir}/m.yaml`,
      "--queues",
      `${dir}/q.yaml`,
      "-b",
      "none",
      "-o",
      `${dir}/s.csv`,
      "--decisions",
      `${dir}/d.jsonl`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const nodes = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l)).filter((d) => d.type === "DISPATCH")
      .map((d) => `${d.jobId}:${d.allocation.map((a: { nodeName: string }) => a.nodeName)}`);
    // The train job on gpu nodes; the batch job in the default partition (cpu: cpu and g nodes).
    assert(/^0:g00[12]$/.test(nodes[0]), nodes[0]);
    assertEquals(nodes.length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate --machine reads the Slurm example's demands (NCPUS, ReqMem, gres/gpu, Partition) and runs every job", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    const r = await runCli([
      "simulate",
      `${ROOT}examples/slurm_sacct.psv`,
      "--machine",
      GPU_MACHINE,
      "-b",
      "none",
      "-o",
      `${dir}/s.csv`,
      "--decisions",
      `${dir}/d.jsonl`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = (await Deno.readTextFile(`${dir}/s.csv`)).trim().split("\n").slice(1);
    assertEquals(rows.length, 130);
    const dispatches = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l)).filter((d) => d.type === "DISPATCH");
    // The gpu partition's jobs run on gpu nodes only, the cpu partition's never on them.
    const queueOf = (await readSacct(`${ROOT}examples/slurm_sacct.psv`)).jobs.map((j) => j.queue);
    for (const d of dispatches) {
      for (const a of d.allocation) {
        assertEquals(a.nodeName.startsWith("gpu"), queueOf[d.jobId] === "gpu", `job ${d.jobId}`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare --machine runs every policy that places by demands on the same machine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-" });
  try {
    const r = await runCli([
      "compare",
      GPU_TRACE,
      "--machine",
      GPU_MACHINE,
      "--policies",
      "none,sjf+none",
      "--json",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = JSON.parse(r.out.join("\n"));
    assertEquals(rows.map((x: { policy: string }) => x.policy), ["none", "sjf+none"]);
    assertEquals(rows.map((x: { jobs: number }) => x.jobs), [10, 10]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate --machine runs every built-in backfilling policy on the GPU example: every job starts, none before its submit time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-easy-" });
  try {
    const jobs = Deno.readTextFileSync(GPU_TRACE).trim().split("\n").length - 1;
    for (const admission of ["easy", "easy_extra", "conservative", "conservative_profile"]) {
      const r = await runCli([
        "simulate",
        GPU_TRACE,
        "--machine",
        GPU_MACHINE,
        "--admission",
        admission,
        "-o",
        `${dir}/${admission}.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const rows = Deno.readTextFileSync(`${dir}/${admission}.csv`).trim().split("\n").slice(1)
        .map((l) => l.split(",").map(Number));
      assertEquals(rows.length, jobs);
      for (const [submit, begin, end] of rows) {
        assert(begin >= submit && end >= begin, `${submit},${begin},${end}`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a machine run's per-resource outputs: no bookkeeping units, whole-node jobs hold their nodes, never over capacity", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-resources-" });
  try {
    const r = await runCli([
      "simulate",
      GPU_TRACE,
      "--machine",
      GPU_MACHINE,
      "--admission",
      "easy",
      "-o",
      `${dir}/s.csv`,
      "--extended_output",
      "--resource_columns",
      "per_resource",
      "--stats_json",
      `${dir}/s.json`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const [header, ...rows] = Deno.readTextFileSync(`${dir}/s_resources.csv`).trim().split("\n");
    assertEquals(
      header,
      "time,free_nodes,allocated_nodes,cores_free,cores_used,gpus_free,gpus_used,memory_free,memory_used",
    );
    const capacity = { cores: 8 * 64 + 4 * 32 + 2 * 64, gpus: 16 };
    let sawWholeNodes = false;
    for (const row of rows) {
      const [time, , , coresFree, coresUsed, gpusFree, gpusUsed] = row.split(",").map(Number);
      assertEquals(coresFree + coresUsed, capacity.cores);
      assertEquals(gpusFree + gpusUsed, capacity.gpus);
      assert(coresUsed <= capacity.cores && gpusUsed <= capacity.gpus, row);
      // carol's 4 whole nodes (from t=60, 64 cores each) on top of 80 cores of demands.
      if (time === 60) sawWholeNodes ||= coresUsed === 80 + 4 * 64;
    }
    assert(sawWholeNodes, "the whole-node job's cores are not counted");
    const stats = JSON.parse(Deno.readTextFileSync(`${dir}/s.json`));
    assertEquals(Object.keys(stats.resources.by_resource), ["cores", "gpus", "memory"]);
    assertEquals(Object.keys(stats.resources.by_partition), ["cpu", "gpu"]);
    assert(stats.resources.by_resource.cores.used_unit_s > 0);
    const nodes = Deno.readTextFileSync(`${dir}/s.csv`).trim().split("\n")[3];
    assert(nodes.endsWith(`"bigmem002,cpu[001-003]"`), nodes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

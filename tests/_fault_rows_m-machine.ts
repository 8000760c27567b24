// Fault catalogue rows of the machine description (--machine) and job
// demands on it (CSV, SWF, sacct): each a one-line error naming the file,
// the line and the field, exit 1.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, cliProcess } from "./_input_faults.ts";

const MACHINE = [
  "default_partition: cpu",
  "groups:",
  "  - name: cpu",
  "    count: 2",
  "    resources: { cores: 8, memory: 16G }",
  "    partitions: [cpu]",
  "  - name: gpu",
  "    count: 2",
  "    resources: { cores: 8, memory: 16G, gpus: 4 }",
  "    partitions: [gpu]",
  "",
].join("\n");

const HEADER = "job_submit_time,num_nodes,time_limit,num_cores,memory,gpus,partition";

// simulate TRACE --machine M -b none, with the machine and the trace written to `dir`.
async function run(
  dir: string,
  machine: string,
  trace: string,
  name = "t.csv",
  process = false,
) {
  await Deno.writeTextFile(`${dir}/m.yaml`, machine);
  await Deno.writeTextFile(`${dir}/${name}`, trace);
  const args = [
    "simulate",
    `${dir}/${name}`,
    "--machine",
    `${dir}/m.yaml`,
    "-b",
    "none",
    "-o",
    `${dir}/out.csv`,
  ];
  return process ? cliProcess(args) : cli(args);
}

const csv = (row: string) => `${HEADER}\n0,1,60,1,1G,,\n${row}\n`;

/** The machine file and job demands (issue 28 items 1, 2, 4). */
export const MACHINE_ROWS: FaultRow[] = [
  {
    surface: "process",
    input: "--machine: a group's count is 0",
    run: (dir) =>
      run(dir, MACHINE.replace("count: 2", "count: 0"), csv("0,1,60,,,,"), "t.csv", true),
    expected: /m\.yaml:4: groups\.0\.count: expected a positive integer$/,
  },
  {
    surface: "in-process",
    input: "--machine: an unknown field in a group",
    run: (dir) =>
      run(dir, MACHINE.replace("    count: 2\n", "    count: 2\n    cuont: 3\n"), csv("")),
    expected: /m\.yaml:5: groups\.0\.cuont: unknown field$/,
  },
  {
    surface: "in-process",
    input: "--machine: memory that is not a size",
    run: (dir) => run(dir, MACHINE.replace("memory: 16G }", "memory: lots }"), csv("")),
    expected: /m\.yaml:5: groups\.0\.resources\.memory: expected MiB or a size like 256G/,
  },
  {
    surface: "in-process",
    input: "--machine: a default partition no group has",
    run: (dir) =>
      run(dir, MACHINE.replace("default_partition: cpu", "default_partition: big"), csv("")),
    expected:
      /m\.yaml:1: default_partition: expected one of the groups' partitions \(cpu, gpu\), got 'big'$/,
  },
  {
    surface: "in-process",
    input: "--machine: the reserved resource name node",
    run: (dir) => run(dir, MACHINE.replace("{ cores: 8, memory: 16G }", "{ node: 1 }"), csv("")),
    expected: /m\.yaml:5: groups\.0\.resources\.node: node is a reserved resource name$/,
  },
  {
    surface: "in-process",
    input: "--machine: two groups with the same node names",
    run: (dir) => run(dir, MACHINE.replace("name: gpu", "name: cpu"), csv("")),
    expected: /m\.yaml:7: groups\.1\.name: node names cpuNNN are already those of group 0$/,
  },
  {
    surface: "process",
    input: "CSV demand: more GPUs per node than any node of the partition has",
    run: (dir) => run(dir, MACHINE, csv("5,1,60,4,,8,gpu"), "t.csv", true),
    expected: /t\.csv:3: gpus: 8 per node, but no node of partition gpu has more than 4$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: GPUs in a partition without GPUs",
    run: (dir) => run(dir, MACHINE, csv("5,1,60,4,,1,cpu")),
    expected: /t\.csv:3: gpus: 1 per node, but no node of partition cpu has more than 0$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: a negative core count",
    run: (dir) => run(dir, MACHINE, csv("5,1,60,-4,,,")),
    expected: /t\.csv:3: num_cores: expected a non-negative integer, got '-4'$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: memory that is not a number",
    run: (dir) => run(dir, MACHINE, csv("5,1,60,4,much,,")),
    expected:
      /t\.csv:3: memory: expected a non-negative integer of MiB or a size like 4G, got 'much'$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: an unknown partition",
    run: (dir) => run(dir, MACHINE, csv("5,1,60,4,,,debug")),
    expected: /t\.csv:3: partition: expected a partition of the machine \(cpu, gpu\), got 'debug'$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: cores and memory that fit no node together (overlapping pools)",
    run: (dir) =>
      run(
        dir,
        MACHINE.replace(
          "{ cores: 8, memory: 16G, gpus: 4 }\n    partitions: [gpu]",
          "{ cores: 32, memory: 4G, gpus: 4 }\n    partitions: [gpu, cpu]",
        ),
        csv("5,1,60,16,8G,,"),
      ),
    expected:
      /t\.csv:3: num_cores: no node of partition cpu has all of cores=16, memory=8192 at once$/,
  },
  {
    surface: "in-process",
    input: "SWF demand: more requested memory per processor than a node has",
    run: (dir) =>
      run(dir, MACHINE, "1 0 0 60 1 -1 -1 1 60 99999999 1 1 1 -1 -1 -1 -1 -1\n", "t.swf"),
    expected:
      /t\.swf:1: field 10 \(requested memory\): 97657 per node, but no node of partition cpu has more than 16384$/,
  },
  {
    surface: "in-process",
    input: "sacct demand: an unknown Partition",
    run: (dir) =>
      run(
        dir,
        MACHINE,
        "JobID|Submit|Start|End|Timelimit|NNodes|NCPUS|Partition\n" +
          "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|01:00:00|1|4|debug\n",
        "t.psv",
      ),
    expected: /t\.psv:2: Partition: expected a partition of the machine \(cpu, gpu\), got 'debug'$/,
  },
  {
    surface: "in-process",
    input: "--queues binds a queue to a partition the machine does not have",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/q.yaml`, "queues:\n  - name: a\n    partition: big\n");
      await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE);
      await Deno.writeTextFile(`${dir}/t.csv`, csv(""));
      return cli([
        "simulate",
        `${dir}/t.csv`,
        "--machine",
        `${dir}/m.yaml`,
        "--queues",
        `${dir}/q.yaml`,
        "-b",
        "none",
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected:
      /q\.yaml:3: queue 0 \(a\): partition: expected a partition of the machine \(cpu, gpu\), got 'big'$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: a partition other than the one its queue is bound to",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/q.yaml`, "queues:\n  - name: a\n    partition: gpu\n");
      await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE);
      await Deno.writeTextFile(
        `${dir}/t.csv`,
        "job_submit_time,num_nodes,time_limit,partition,queue\n0,1,60,cpu,a\n",
      );
      return cli([
        "simulate",
        `${dir}/t.csv`,
        "--machine",
        `${dir}/m.yaml`,
        "--queues",
        `${dir}/q.yaml`,
        "-b",
        "none",
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected:
      /t\.csv:2: partition: expected partition gpu \(queue a's, --queues\) or none, got 'cpu'$/,
  },
  {
    surface: "in-process",
    input: "CSV demand: a topology level no node is labelled with",
    run: (dir) =>
      run(
        dir,
        MACHINE,
        "job_submit_time,num_nodes,time_limit,topology\n0,1,60,switch\n",
      ),
    expected:
      /t\.csv:2: topology: expected a topology level of the machine's labels \(none\), got 'switch'$/,
  },
  {
    surface: "in-process",
    input: "--machine with a replay trace (begin_time, end_time)",
    run: (dir) =>
      run(
        dir,
        MACHINE,
        "job_submit_time,begin_time,end_time,num_nodes,time_limit\n0,0,10,1,60\n",
      ),
    expected:
      /t\.csv: is a replay trace \(begin_time and end_time columns\); --machine takes simulation traces only$/,
  },
  {
    surface: "in-process",
    input: "--queues binds a queue to a partition but no --machine is given",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/q.yaml`, "queues:\n  - name: a\n    partition: gpu\n");
      await Deno.writeTextFile(`${dir}/t.csv`, "job_submit_time,num_nodes,time_limit\n0,1,60\n");
      return cli([
        "simulate",
        `${dir}/t.csv`,
        "-n",
        "4",
        "--queues",
        `${dir}/q.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected:
      /q\.yaml:3: queue 0 \(a\): partition: binds a queue to a partition of --machine, which is not given$/,
  },
  {
    surface: "in-process",
    input: "--machine: a group without resources",
    run: (dir) =>
      run(dir, MACHINE.replace("    resources: { cores: 8, memory: 16G }\n", ""), csv("")),
    expected: /m\.yaml:3: groups\.0\.resources: required$/,
  },
];

// `evtsim topo`: seed 004's scenario (examples/topo/) pinned whole, text and
// JSON, against the checked-in expected outputs — the comparison text is the
// seed's own, copied from it — and the command line's flags and messages.

import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli, runCliProcess } from "../_cli.ts";

const DIR = `${ROOT}examples/topo/`;
const CLUSTER = ["--cluster", `${DIR}cluster.yaml`];
const JOBS = ["--jobs", `${DIR}jobs.yaml`];
const TIMED = ["--jobs", `${DIR}timed-jobs.yaml`];

async function output(args: string[]): Promise<string> {
  const r = await runCli(["topo", ...args]);
  assertEquals(r.err, []);
  assertEquals(r.code, 0);
  return r.out.join("\n") + "\n";
}

const expected = (name: string) => Deno.readTextFileSync(`${DIR}expected/${name}`);

const PINNED: [string, string[]][] = [
  ["compare.txt", ["compare", ...CLUSTER, ...JOBS]],
  ["compare.json", ["compare", ...CLUSTER, ...JOBS, "--output", "json"]],
  ["schedule-strict-fifo.txt", ["schedule", ...CLUSTER, ...JOBS]],
  ["schedule-backfill.json", [
    "schedule",
    ...CLUSTER,
    ...JOBS,
    "--policy",
    "backfill",
    "--output",
    "json",
  ]],
  ["simulate-all.txt", ["simulate", ...CLUSTER, ...TIMED, "--policy", "all"]],
  ["simulate-all.json", ["simulate", ...CLUSTER, ...TIMED, "--policy", "all", "--output", "json"]],
];

for (const [file, args] of PINNED) {
  Deno.test(`topo: examples/topo/expected/${file} is what 'evtsim topo ${args[0]}' prints`, async () => {
    assertEquals(await output(args), expected(file));
  });
}

Deno.test("topo compare: seed 004's summary lines and per-job reasons", async () => {
  const lines = (await output(["compare", ...CLUSTER, ...JOBS])).split("\n");
  const cells = (l: string) => l.trim().split(/\s{2,}/);
  assertEquals(cells(lines[1]), ["backfill", "2", "1", "8/16", "0"]);
  assertEquals(cells(lines[2]), ["strict-fifo", "1", "2", "4/16", "1"]);
  assertEquals(lines[4], "POLICY backfill (CPU 32/128, GPU 8/16)");
  assertEquals(lines[10], "POLICY strict-fifo (CPU 16/128, GPU 4/16)");
  assertEquals(cells(lines[8]).slice(0, 4), ["batch", "admitted", "rack-a", "node-a2=4"]);
  assertEquals(
    cells(lines[14]).at(-1),
    "head_of_line_blocked: head_of_line_blocked_by=train-xl",
  );
  assert(lines[13].endsWith(
    'topology_fragmented: requested 10 replicas in one "rack" domain; 12 slots are available cluster-wide, but the largest domain "rack-b" has 8',
  ));
});

Deno.test("topo simulate --policy all: seed 004's metrics (completed, makespan, total/average/max wait)", async () => {
  const r = JSON.parse(
    await output(["simulate", ...CLUSTER, ...TIMED, "--policy", "all", "--output", "json"]),
  );
  const m = (
    p: { [k: string]: unknown },
  ) => [
    p.policy,
    p.completedJobCount,
    p.makespanTicks,
    p.totalQueueDelayTicks,
    p.maximumQueueDelayTicks,
  ];
  assertEquals(r.policies.map(m), [["backfill", 3, 12, 7, 7], ["strict-fifo", 3, 14, 17, 10]]);
  const text = (await output(["simulate", ...CLUSTER, ...TIMED, "--policy", "all"])).split("\n");
  assertEquals(text[1].split(/\s+/), ["backfill", "3", "0", "12", "2.33", "7"]);
  assertEquals(text[2].split(/\s+/), ["strict-fifo", "3", "0", "14", "5.67", "10"]);
});

Deno.test("topo simulate: one policy prints its own block; the default policy is strict-fifo", async () => {
  const all = expected("simulate-all.txt").split("\n");
  const start = all.findLastIndex((l) => l.startsWith("POLICY ") && l.includes("START"));
  assertEquals(await output(["simulate", ...CLUSTER, ...TIMED]), all.slice(start).join("\n"));
});

/** A test given a `write(name, text)` into a fresh folder, removed after it. */
function inFolder(
  test: (write: (name: string, text: string) => Promise<string>) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-topo-" });
    try {
      await test(async (name, text) => {
        await Deno.writeTextFile(`${dir}/${name}`, text);
        return `${dir}/${name}`;
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
}

Deno.test(
  "topo simulate: jobs that can never start end unscheduled with their reasons",
  inFolder(async (write) => {
    const cluster = await write(
      "c.yaml",
      "nodes:\n  - {name: n1, topology: {rack: r1}, capacity: {cpu: 8, gpu: 0}}\n  - {name: n2, topology: {rack: r2}, capacity: {cpu: 8, gpu: 0}}\n",
    );
    const jobs = await write(
      "j.yaml",
      [
        "jobs:",
        "  - {name: ok, replicas: 1, resourcesPerReplica: {cpu: 8}, arrivalTick: 0, durationTicks: 5}",
        "  - {name: wide, replicas: 3, resourcesPerReplica: {cpu: 4}, requiredTopology: rack, arrivalTick: 1, durationTicks: 5}",
        "  - {name: huge, replicas: 5, resourcesPerReplica: {cpu: 4}, arrivalTick: 1, durationTicks: 5}",
        "  - {name: late, replicas: 1, resourcesPerReplica: {cpu: 4}, arrivalTick: 3, durationTicks: 1}",
        "",
      ].join("\n"),
    );
    const reasons = async (policy: string) => {
      const r = JSON.parse(
        await output([
          "simulate",
          "--cluster",
          cluster,
          "--jobs",
          jobs,
          "--policy",
          policy,
          "--output",
          "json",
        ]),
      );
      return [
        r.completedJobCount,
        r.unscheduledJobCount,
        r.endTick,
        ...r.jobs.map((j: { status: string; reason?: { message: string } }) =>
          `${j.status} ${j.reason?.message ?? "-"}`
        ),
      ];
    };
    assertEquals(await reasons("backfill"), [
      2,
      2,
      5,
      "completed -",
      'unscheduled requested 3 replicas in one "rack" domain; 4 slots are available cluster-wide, but the largest domain "r1" has 2',
      "unscheduled requested 5 replicas, but only 4 cluster-wide replica slots are available",
      "completed -",
    ]);
    assertEquals(await reasons("strict-fifo"), [
      1,
      3,
      5,
      "completed -",
      'unscheduled requested 3 replicas in one "rack" domain; 4 slots are available cluster-wide, but the largest domain "r1" has 2',
      "unscheduled head_of_line_blocked_by=wide",
      "unscheduled head_of_line_blocked_by=wide",
    ]);
  }),
);

Deno.test("topo: flags as Go's flag package reads them", async () => {
  const ok = await runCli([
    "topo",
    "schedule",
    `-cluster=${DIR}cluster.yaml`,
    "-jobs",
    `${DIR}jobs.yaml`,
    "--policy=backfill",
  ]);
  assertEquals(ok.code, 0);
  assert(ok.out.join("\n").split("\n")[1].startsWith("backfill "), ok.out[0]);
  const last = await runCli([
    "topo",
    "schedule",
    ...CLUSTER,
    ...JOBS,
    "--policy",
    "backfill",
    "--policy",
    "strict-fifo",
  ]);
  assert(last.out.join("\n").split("\n")[1].startsWith("strict-fifo "), last.out[0]);
});

const USAGE_ERRORS: [string[], string][] = [
  [["schedule", ...JOBS], "evtsim: topo schedule: --cluster is required"],
  [["compare", ...CLUSTER], "evtsim: topo compare: --jobs is required"],
  [
    ["schedule", ...CLUSTER, ...JOBS, "--policy", "all"],
    'evtsim: topo schedule: unsupported policy "all" (supported: strict-fifo, backfill)',
  ],
  [
    ["simulate", ...CLUSTER, ...TIMED, "--policy", "fifo"],
    'evtsim: topo simulate: unsupported policy "fifo" (supported: strict-fifo, backfill, all)',
  ],
  [
    ["compare", ...CLUSTER, ...JOBS, "--output", "yaml"],
    'evtsim: topo compare: unsupported output "yaml" (supported: text, json)',
  ],
  [
    ["compare", ...CLUSTER, ...JOBS, "--policy", "backfill"],
    "evtsim: topo compare: flag provided but not defined: -policy",
  ],
  [
    ["schedule", ...CLUSTER, ...JOBS, "extra", "more"],
    "evtsim: topo schedule: unexpected positional arguments: [extra more]",
  ],
  [["schedule", ...CLUSTER, "--jobs"], "evtsim: topo schedule: flag needs an argument: -jobs"],
  [["schedule", "---cluster", "x"], "evtsim: topo schedule: bad flag syntax: ---cluster"],
  [
    ["schedule", "--cluster", `${DIR}missing.yaml`, ...JOBS],
    `evtsim: read cluster file "${DIR}missing.yaml": no such file or folder`,
  ],
  [["bogus"], 'evtsim: topo: unknown command "bogus"'],
  [[], "evtsim: topo: a command is required"],
];

for (const [args, message] of USAGE_ERRORS) {
  Deno.test(`topo: '${args.slice(0, 1).join(" ") || "(none)"}' error: ${message.slice(0, 60)}`, async () => {
    const r = await runCli(["topo", ...args]);
    assertEquals(r.code, 1);
    assertEquals(r.err.at(-1), message);
    assertEquals(r.out, []);
  });
}

Deno.test("topo: help on stdout; usage on stderr without a command", async () => {
  for (const args of [["topo", "--help"], ["topo", "help"], ["help", "topo"]]) {
    const r = await runCli(args);
    assertEquals(r.code, 0);
    assert(r.out[0].startsWith("usage: evtsim topo <schedule|compare|simulate>"), r.out[0]);
  }
  for (const cmd of ["schedule", "compare", "simulate"]) {
    for (const args of [["topo", cmd, "-h"], ["help", "topo", cmd]]) {
      const r = await runCli(args);
      assertEquals(r.code, 0);
      assert(r.out[0].startsWith(`usage: evtsim topo ${cmd} --cluster FILE --jobs FILE`), r.out[0]);
    }
  }
  const none = await runCli(["topo"]);
  assert(none.err[0].startsWith("usage: evtsim topo"), none.err[0]);
  const main = await runCli(["help"]);
  assert(
    main.out.some((l) => l.includes("topo schedule|compare|simulate")),
    "evtsim help lists topo",
  );
});

Deno.test(
  "topo: as a process, an input error is one line on stderr and exit 1",
  inFolder(async (write) => {
    const jobs = await write("j.yaml", "jobs:\n  - name: a\n    replicas: 0\n");
    const r = await runCliProcess(["topo", "compare", ...CLUSTER, "--jobs", jobs]);
    assertEquals(r.code, 1);
    assertEquals(r.err, [
      `evtsim: validate jobs file "${jobs}": job "a": replicas must be greater than zero, got 0`,
    ]);
    assertEquals(r.out, []);
  }),
);

Deno.test("topo: 'evtsim simulate' does not load the topo code at start-up", async () => {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", `${ROOT}cli/main.ts`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const graph = JSON.parse(new TextDecoder().decode(r.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const bySpec = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const walk = (spec: string) => {
    if (seen.has(spec)) return;
    seen.add(spec);
    for (const d of bySpec.get(spec)?.dependencies ?? []) {
      if (!d.isDynamic && d.code?.specifier !== undefined) walk(d.code.specifier);
    }
  };
  walk(new URL(`file://${ROOT}cli/main.ts`).href);
  const loaded = [...seen].filter((s) => /topo|yaml|zod/.test(s));
  assertEquals(loaded, []);
});

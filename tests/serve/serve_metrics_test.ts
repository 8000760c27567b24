// serve's metric options and resource columns (issue 28, m-fronts): a
// session's finish reply, over HTTP and over gRPC, equals `simulate
// --stats_json` for the same jobs and options (--bsld_tau, --measure_window,
// --trim, --resource_columns per_resource, capacity changes), whether the
// options are the server's defaults or the session's own; and gRPC jobs
// carry demands on a --machine server (examples/gpu_machine.yaml), read by
// the HTTP front's decoder, with the same rows and metrics as HTTP and as
// `simulate --machine`.

import { cliCommand, recordProcessRun, ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, HttpClient, seeded, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { Session } from "../../api/service/sessions.ts";
import { machineInput } from "../../io/_machine_demands.ts";
import { httpJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// deno-lint-ignore no-explicit-any
type Json = any;

/** A small seeded whole-node trace (8 nodes), with users for the breakdowns. */
function wholeNodeTrace(): { csv: string; jobs: Json[] } {
  const r = seeded(28);
  const jobs: Json[] = [];
  let t = 0;
  for (let i = 0; i < 40; i++) {
    t += Math.floor(r() * 120);
    const limit = 60 + Math.floor(r() * 900);
    jobs.push({
      submitTime: t,
      numNodes: 1 + Math.floor(r() * 6),
      timeLimit: limit,
      actualRunTime: 1 + Math.floor(r() * limit),
      user: `u${Math.floor(r() * 4)}`,
    });
  }
  const csv = "job_submit_time,num_nodes,time_limit,actual_run_time,user\n" +
    jobs.map((j) => `${j.submitTime},${j.numNodes},${j.timeLimit},${j.actualRunTime},${j.user}`)
      .join("\n") +
    "\n";
  return { csv, jobs };
}

/** An HTTP job as gRPC's JobAppendData (the proto's own names). */
function grpcJob(j: Json): Json {
  return {
    submit_time: j.submitTime,
    num_nodes: j.numNodes,
    limit_time: j.timeLimit,
    actual_run_time: j.actualRunTime,
    ...(j.user !== undefined ? { user: j.user } : {}),
    ...(j.numCores !== undefined ? { num_cores: j.numCores } : {}),
    ...(j.memory !== undefined ? { memory: j.memory } : {}),
    ...(j.gpus !== undefined ? { gpus: j.gpus } : {}),
    ...(j.partition !== undefined ? { partition: j.partition } : {}),
    ...(j.resources !== undefined ? { resources: j.resources } : {}),
  };
}

/** Runs `simulate` with `args`; its schedule, resource CSV and stats JSON. */
async function simulate(dir: string, args: string[]) {
  const r = await runCli([
    "simulate",
    ...args,
    "-o",
    `${dir}/s.csv`,
    "-R",
    `${dir}/r.csv`,
    "--stats_json",
    `${dir}/stats.json`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const csv = async (f: string) => {
    const [head, ...rows] = (await Deno.readTextFile(f)).trim().split("\n");
    return { head: head.split(","), rows: rows.map((l) => l.split(",").map(Number)) };
  };
  return {
    schedule: await csv(`${dir}/s.csv`),
    resources: await csv(`${dir}/r.csv`),
    stats: JSON.parse(await Deno.readTextFile(`${dir}/stats.json`)),
  };
}

/** Job rows as simulate's schedule columns (submit, begin, end, nodes), sorted. */
function times(rows: Json[]): number[][] {
  return rows.map((r) => [r.submitTime, r.beginTime, r.endTime, r.numNodes]).sort((a, b) =>
    a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]
  );
}

/** The resource rows as the resource CSV's columns of `head`. */
function resourceColumns(rows: Json[], head: string[]): number[][] {
  const key: Record<string, string> = {
    time: "time",
    free_nodes: "freeNodes",
    allocated_nodes: "allocatedNodes",
  };
  return rows.map((r) => head.map((h) => r[key[h] ?? h]));
}

/** Creates an HTTP session, appends `jobs` and finishes it. */
async function httpRun(api: HttpClient, params: Json, jobs: Json[], capacity?: Json) {
  const { sessionId } = await api.ok("POST", "/sessions", params);
  await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs });
  if (capacity !== undefined) await api.ok("POST", `/sessions/${sessionId}/capacity`, capacity);
  return await api.ok("POST", `/sessions/${sessionId}/finish`, {});
}

/** DR_EVT's two steps over gRPC: append the jobs (stored), then submit each. */
async function grpcAppend(g: GrpcSession, jobs: Json[]): Promise<void> {
  const { job_idx } = await g.ok({ append_jobs: { requests: jobs.map(grpcJob) } });
  for (let i = 0; i < jobs.length; i++) {
    await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submitTime } });
  }
}

Deno.test("serve metric options: HTTP and gRPC finish replies equal simulate --stats_json (session's own and server defaults)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-metrics-" });
  try {
    const { csv, jobs } = wholeNodeTrace();
    await Deno.writeTextFile(`${dir}/t.csv`, csv);
    await Deno.writeTextFile(`${dir}/cap.csv`, "time,capacity\n900,6\n");
    const sim = await simulate(dir, [
      `${dir}/t.csv`,
      "-n",
      "8",
      "--trim",
      "0.1,2",
      "--bsld_tau",
      "30",
      "--resource_columns",
      "per_resource",
      "--capacity_schedule",
      `${dir}/cap.csv`,
    ]);
    assert(sim.stats.metrics.jobs_excluded > 0, JSON.stringify(sim.stats.metrics));
    assertEquals(sim.stats.metrics.bsld_tau_s, 30);
    const capacity = { capacity: 6, time: 900 };
    const own = { trim: [0.1, 2], bsldTau: 30, resourceColumns: "per_resource" };
    const check = (out: Json, what: string) => {
      assertEquals(
        times(out.jobs),
        times(sim.schedule.rows.map(([s, b, e, n]) => ({
          submitTime: s,
          beginTime: b,
          endTime: e,
          numNodes: n,
        }))),
        what,
      );
      assertEquals(out.metrics, sim.stats.metrics, what);
      assertEquals(out.breakdowns, sim.stats.breakdowns, what);
      assertEquals(out.fairness, sim.stats.fairness, what);
      assertEquals(sim.resources.head.slice(3), ["nodes_free", "nodes_used"]);
      assertEquals(resourceColumns(out.resources, sim.resources.head), sim.resources.rows, what);
    };
    await withServer({}, async (server, api) => {
      check(await httpRun(api, { totalNodes: 8, ...own }, jobs, capacity), "HTTP, own options");
      // gRPC: the same options in InitRequest, the metrics in the finish reply.
      const g = new GrpcSession(server.grpcPort!);
      try {
        await g.ok({
          init: {
            total_nodes: 8,
            session_name: "metrics",
            trim: "0.1,2",
            bsld_tau: 30,
            resource_columns: "per_resource",
          },
        });
        await grpcAppend(g, jobs);
        const done = await g.ok({ finish_simulation: {} });
        const m = JSON.parse(done.metrics_json);
        // No capacity change over gRPC (DR_EVT's protocol has none): compare to HTTP's.
        const http = await httpRun(api, { totalNodes: 8, ...own }, jobs);
        assertEquals(m, {
          metrics: http.metrics,
          breakdowns: http.breakdowns,
          fairness: http.fairness,
        });
        assertEquals(m.metrics.bsld_tau_s, 30);
        assertEquals(done.resource_metrics_json, "");
      } finally {
        await g.close();
      }
    });
    // The server's defaults (serve --trim 0.1,2 --bsld_tau 30 --resource_columns per_resource).
    await withServer({
      grpcPort: undefined,
      metricDefaults: { trim: [0.1, 2], bsldTau: 30, resourceColumns: "per_resource" },
    }, async (_server, api) => {
      check(await httpRun(api, { totalNodes: 8 }, jobs, capacity), "HTTP, server defaults");
      // A session's own window replaces the server's trim; its tau wins.
      const out = await httpRun(api, {
        totalNodes: 8,
        measureWindow: [0, 1000],
        bsldTau: 10,
        resourceColumns: "drevt",
      }, jobs);
      assertEquals(out.metrics.bsld_tau_s, 10);
      assertEquals(
        out.metrics.jobs + out.metrics.jobs_excluded,
        jobs.length,
        JSON.stringify(out.metrics),
      );
      assertEquals(out.metrics.jobs, jobs.filter((j) => j.submitTime < 1000).length);
      assertEquals(Object.keys(out.resources[0]).sort(), ["allocatedNodes", "freeNodes", "time"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --machine over gRPC: jobs with demands give HTTP's and simulate --machine's rows and metrics", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-grpc-machine-" });
  try {
    const sim = await simulate(dir, [
      TRACE,
      "--machine",
      MACHINE,
      "-b",
      "easy",
      "--resource_columns",
      "per_resource",
      "--bsld_tau",
      "60",
    ]);
    const jobs = httpJobs(await Deno.readTextFile(TRACE));
    const expected = times(sim.schedule.rows.map(([s, b, e, n]) => ({
      submitTime: s,
      beginTime: b,
      endTime: e,
      numNodes: n,
    })));
    assert(sim.resources.head.includes("gpus_used"), sim.resources.head.join(","));
    const machine = await readMachine(MACHINE);
    await withServer({ machine }, async (server, api) => {
      const params = { backfillPolicy: "easy", bsldTau: 60, resourceColumns: "per_resource" };
      const http = await httpRun(api, params, jobs);
      assertEquals(times(http.jobs), expected);
      assertEquals(http.metrics, sim.stats.metrics);
      assertEquals(http.resourceMetrics, sim.stats.resources);
      assertEquals(resourceColumns(http.resources, sim.resources.head), sim.resources.rows);
      const init = {
        session_name: "gpu",
        backfill_policy: "easy",
        bsld_tau: 60,
        resource_columns: "per_resource",
      };
      // Jobs appended over gRPC, the rows read over HTTP (the session's id works on both).
      const a = new GrpcSession(server.grpcPort!);
      try {
        const { session_id } = await a.ok({ init });
        await grpcAppend(a, jobs);
        const out = await api.ok("POST", `/sessions/${session_id}/finish`, {});
        assertEquals(times(out.jobs), expected);
        assertEquals(out.decisions, http.decisions);
        assertEquals(out.resources, http.resources);
        assertEquals(out.resourceMetrics, sim.stats.resources);
      } finally {
        await a.close();
      }
      // All over gRPC: the finish reply's metrics and per-resource utilization.
      const b = new GrpcSession(server.grpcPort!);
      try {
        await b.ok({ init });
        await grpcAppend(b, jobs);
        const done = await b.ok({ finish_simulation: {} });
        assertEquals(JSON.parse(done.metrics_json).metrics, sim.stats.metrics);
        assertEquals(JSON.parse(done.resource_metrics_json), sim.stats.resources);
      } finally {
        await b.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: bad metric options and gRPC demands are one-line error replies; the server serves on", async () => {
  const machine = await readMachine(MACHINE);
  await withServer({ machine }, async (server, api) => {
    for (
      const [params, message] of [
        [{ bsldTau: 0 }, /^bsld_tau must be a number of seconds > 0, got 0$/],
        [{ measureWindow: [5, 1] }, /^measure_window must be START:END with START < END/],
        [{ trim: [0.1, 0.1], measureWindow: [0, 5] }, /^give measure_window or trim, not both$/],
        [{ trim: [1.5, 0] }, /warmup/],
      ] as const
    ) {
      const r = await api.send("POST", "/sessions", params);
      assertEquals(r.status, 400, JSON.stringify(params));
      assert(message.test(r.body.error), `${JSON.stringify(params)}: ${r.body.error}`);
      assert(!r.body.error.includes("\n"), r.body.error);
    }
    const bad = await api.send("POST", "/sessions", { resourceColumns: "csv" });
    assertEquals(bad.status, 400);
    // A live node count on a machine would change nothing the jobs are placed on: refused.
    const { sessionId } = await api.ok("POST", "/sessions", {});
    const cut = await api.send("POST", `/sessions/${sessionId}/capacity`, { capacity: 2 });
    assertEquals(cut.status, 400, JSON.stringify(cut.body));
    assert(/^capacity: a live change of the node count does not apply/.test(cut.body.error));
    const g = new GrpcSession(server.grpcPort!);
    try {
      for (
        const [init, message] of [
          [{ bsld_tau: -1 }, /^bsld_tau must be a number of seconds > 0, got -1$/],
          [{ trim: "lots" }, /^trim: expected WARMUP,COOLDOWN/],
          [{ measure_window: "9:1" }, /^measure_window: expected START:END/],
          [{ trim: "1,1", measure_window: "0:5" }, /^give measure_window or trim, not both$/],
          [{ resource_columns: "csv" }, /^resource_columns must be drevt or per_resource/],
        ] as const
      ) {
        const r = await g.request({ init: { session_name: "x", ...init } });
        assertEquals(r.response, "error", JSON.stringify(init));
        assert(message.test(r.error.message), `${JSON.stringify(init)}: ${r.error.message}`);
      }
      await g.ok({ init: { session_name: "x" } });
      const ok = { submit_time: 0, num_nodes: 1, limit_time: 60 };
      for (
        const [job, message] of [
          [{ memory: "lots" }, /^job 1: memory: expected a non-negative integer of MiB or a size/],
          [{ partition: "nope" }, /^job 1: partition: /],
          [{ gpus: 8, partition: "gpu" }, /^job 1: gpus: 8 per node, but no node of partition gpu/],
          [{ topology: "nope" }, /^job 1: topology: /],
          // The proto's field names, not the HTTP front's.
          [{ num_cores: -2 }, /^job 1: num_cores: /],
        ] as const
      ) {
        const r = await g.request({ append_jobs: { requests: [ok, { ...ok, ...job }] } });
        assertEquals(r.response, "error", JSON.stringify(job));
        assert(message.test(r.error.message), `${JSON.stringify(job)}: ${r.error.message}`);
        assert(!r.error.message.includes("\n"), r.error.message);
      }
      // All or nothing, and the stream serves on.
      assertEquals((await g.ok({ get_trace_size: {} })).trace_size, "0");
      const { job_idx } = await g.ok({
        append_job: { ...ok, num_cores: 8, gpus: 2, partition: "gpu" },
      });
      assertEquals(job_idx, 0);
    } finally {
      await g.close();
    }
    assertEquals((await api.ok("GET", "/health")).ok, true);
  });
});

Deno.test("serve per_resource: a session finished again (its reply was cut) sends the same resource rows", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-pairs-" });
  try {
    for (const machine of [undefined, await readMachine(MACHINE)]) {
      const spillDir = `${dir}/${machine === undefined ? "nodes" : "machine"}`;
      await Deno.mkdir(spillDir);
      const s = new Session(
        { spillDir, ...(machine === undefined ? {} : { machine: machineInput(machine) }) },
        "0".repeat(32),
        { ...(machine === undefined ? { totalNodes: 8 } : {}), resourceColumns: "per_resource" },
      );
      s.append(
        machine === undefined ? wholeNodeTrace().jobs : httpJobs(await Deno.readTextFile(TRACE)),
      );
      const first = s.finish();
      const rows = s.page("resources", 0, first.counts.resources);
      const again = s.finish();
      assertEquals(again.counts, first.counts);
      assertEquals(s.page("resources", 0, again.counts.resources), rows);
      assert(rows.includes(machine === undefined ? '"nodes_free"' : '"gpus_free"'), rows);
      s.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A CSV line's fields (a quoted field may hold commas). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (const m of line.matchAll(re)) {
    out.push(m[1].startsWith('"') ? m[1].slice(1, -1).replaceAll('""', '"') : m[1]);
    if (m[2] === "") break;
  }
  return out;
}

Deno.test("serve extendedOutput: job rows' waitTime, boundedSlowdown and nodes are simulate --extended_output's (whole nodes, a machine)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-extended-" });
  try {
    const { csv, jobs: wholeJobs } = wholeNodeTrace();
    await Deno.writeTextFile(`${dir}/t.csv`, csv);
    const machine = await readMachine(MACHINE);
    for (
      const [args, jobs, params, options] of [
        [[`${dir}/t.csv`, "-n", "8"], wholeJobs, { totalNodes: 8 }, {}],
        [
          ["examples/gpu_trace.csv", "--machine", MACHINE].map((a) =>
            a.startsWith("examples/") ? `${ROOT}${a}` : a
          ),
          httpJobs(await Deno.readTextFile(TRACE)),
          {},
          { machine },
        ],
      ] as const
    ) {
      const r = await runCli([
        "simulate",
        ...args,
        "--extended_output",
        "-o",
        `${dir}/x.csv`,
        "-R",
        `${dir}/xr.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const [head, ...lines] = (await Deno.readTextFile(`${dir}/x.csv`)).trim().split("\n");
      const col = (name: string) => head.split(",").indexOf(name);
      const expected = lines.map(csvFields).map((f) => [
        Number(f[col("job_id")]),
        Number(f[col("wait_time")]),
        Number(f[col("bounded_slowdown")]),
        f[col("nodes")],
      ]).sort((a, b) => (a[0] as number) - (b[0] as number));
      assert(expected.some((e) => e[3] !== ""), JSON.stringify(expected));
      await withServer({ grpcPort: undefined, ...options }, async (_s, api) => {
        const out = await httpRun(api, { ...params, extendedOutput: true }, [...jobs]);
        const got = out.jobs.map((j: Json) => [
          j.jobId,
          j.waitTime,
          Number(j.boundedSlowdown.toFixed(6)),
          j.nodes,
        ]).sort((a: number[], b: number[]) => a[0] - b[0]);
        assertEquals(got, expected);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --machine: a named resource (resources: { fpga }) over HTTP and gRPC is the CSV column's demand", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-named-" });
  try {
    await Deno.writeTextFile(
      `${dir}/m.yaml`,
      "groups:\n  - name: f\n    count: 2\n    resources: { cores: 16, fpga: 2 }\n",
    );
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,fpga\n" +
        "0,1,100,100,4,2\n0,1,100,100,4,1\n0,1,100,50,4,1\n5,1,100,10,4,2\n",
    );
    const sim = await simulate(dir, [`${dir}/t.csv`, "--machine", `${dir}/m.yaml`]);
    const expected = times(sim.schedule.rows.map(([s, b, e, n]) => ({
      submitTime: s,
      beginTime: b,
      endTime: e,
      numNodes: n,
    })));
    // The fpga demand makes the 4th job wait (cores alone would not).
    assert(expected.some(([s, b]) => b > s), JSON.stringify(expected));
    const jobs = [[0, 2, 100], [0, 1, 100], [0, 1, 50], [5, 2, 10]].map(([t, fpga, run]) => ({
      submitTime: t,
      numNodes: 1,
      timeLimit: 100,
      actualRunTime: run,
      numCores: 4,
      resources: { fpga },
    }));
    const machine = await readMachine(`${dir}/m.yaml`);
    await withServer({ machine }, async (server, api) => {
      const http = await httpRun(api, {}, jobs);
      assertEquals(times(http.jobs), expected);
      assertEquals(http.resourceMetrics, sim.stats.resources);
      const g = new GrpcSession(server.grpcPort!);
      try {
        const { session_id } = await g.ok({ init: { session_name: "fpga" } });
        await grpcAppend(g, jobs);
        const out = await api.ok("POST", `/sessions/${session_id}/finish`, {});
        assertEquals(times(out.jobs), expected);
      } finally {
        await g.close();
      }
      const { sessionId } = await api.ok("POST", "/sessions", {});
      const ok = { submitTime: 0, numNodes: 1, timeLimit: 60 };
      for (
        const [resources, message] of [
          [{ gpus: 1 }, /^job 0: resources\.gpus: give it as gpus$/],
          [
            { tpu: 1 },
            /^job 0: resources\.tpu: the machine has no resource tpu \(it has cores, fpga\)$/,
          ],
          [{ fpga: 1.5 }, /^job 0: resources\.fpga: expected a non-negative integer, got '1\.5'$/],
          [{ fpga: 3 }, /^job 0: resources\.fpga: /],
        ] as const
      ) {
        const r = await api.send("POST", `/sessions/${sessionId}/jobs`, {
          jobs: [{ ...ok, resources }],
        });
        assertEquals(r.status, 400, JSON.stringify(resources));
        assert(message.test(r.body.error), `${JSON.stringify(resources)}: ${r.body.error}`);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --machine: a session's queue bound to a partition sends its jobs there, as simulate --queues with partition:", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-queues-" });
  try {
    await Deno.writeTextFile(
      `${dir}/q.yaml`,
      "queues:\n  - name: gq\n    partition: gpu\n  - name: cq\n",
    );
    const rows = [[0, "gq", 2, 4], [0, "gq", 1, 2], [10, "cq", 3, 0], [20, "gq", 2, 4]];
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,queue,gpus\n" +
        rows.map(([t, q, n, g]) => `${t},${n},600,500,${q},${g === 0 ? "" : g}`).join("\n") +
        "\n",
    );
    const sim = await simulate(dir, [
      `${dir}/t.csv`,
      "--machine",
      MACHINE,
      "--queues",
      `${dir}/q.yaml`,
    ]);
    const expected = times(sim.schedule.rows.map(([s, b, e, n]) => ({
      submitTime: s,
      beginTime: b,
      endTime: e,
      numNodes: n,
    })));
    // Four GPU nodes: the third gq job waits for the first.
    assert(expected.some(([s, b]) => b > s), JSON.stringify(expected));
    const jobs = rows.map(([t, q, n, g]) => ({
      submitTime: t,
      numNodes: n,
      timeLimit: 600,
      actualRunTime: 500,
      queue: q,
      ...(g === 0 ? {} : { gpus: g }),
    }));
    const queues = [{ name: "gq", partition: "gpu" }, { name: "cq" }];
    await withServer(
      { grpcPort: undefined, machine: await readMachine(MACHINE) },
      async (_s, api) => {
        const out = await httpRun(api, { queues }, jobs);
        assertEquals(times(out.jobs), expected);
        assertEquals(out.resourceMetrics, sim.stats.resources);
        const bad = await api.send("POST", "/sessions", {
          queues: [{ name: "gq", partition: "tpu" }],
        });
        assertEquals(bad.status, 400);
        assertEquals(
          bad.body.error,
          "queues[0] (gq): partition: expected a partition of the machine (cpu, gpu), got 'tpu'",
        );
      },
    );
    await withServer({ grpcPort: undefined }, async (_s, api) => {
      const r = await api.send("POST", "/sessions", { totalNodes: 4, queues });
      assertEquals(r.status, 400);
      assert(/^queues\[0\] \(gq\): partition: binds a queue to a partition of --machine/.test(
        r.body.error,
      ));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --bsld_tau --trim --resource_columns --extended_output: a real server's sessions get them as defaults", async () => {
  const argv = cliCommand([
    "serve",
    "--port",
    "0",
    "--grpc_port",
    "off",
    "--spare_workers",
    "0",
    "--bsld_tau",
    "30",
    "--trim",
    "1,1",
    "--resource_columns",
    "per_resource",
    "--extended_output",
  ]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/^HTTP: .*\n/m.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    reader.releaseLock();
    const url = /^HTTP: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(seen)?.[1];
    assert(url !== undefined, seen);
    const { jobs } = wholeNodeTrace();
    const out = await httpRun(new HttpClient(url), { totalNodes: 8 }, jobs);
    assertEquals([out.metrics.bsld_tau_s, out.metrics.jobs_excluded], [30, 2]);
    assertEquals(out.resources[0].nodes_free, 8);
    assert(out.jobs.every((j: Json) => typeof j.nodes === "string"), JSON.stringify(out.jobs[0]));
  } finally {
    child.kill("SIGTERM");
    await child.status;
    const err = new TextDecoder().decode(
      new Uint8Array(await new Response(child.stderr).arrayBuffer()),
    );
    await child.stdout.cancel().catch(() => {});
    recordProcessRun(["serve"], err);
  }
});

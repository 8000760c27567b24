// `evtsim serve --policy_module FILE` (issue 27 item 1): a picker and an
// admission policy of the user's own, in a folder outside the repository,
// named by an HTTP session (CreateSession picker / admission) and by a gRPC
// session (InitRequest picker / admission, evtsim's fields 100+); each
// schedule equals `evtsim simulate` with the same module.

import { assert, assertEquals } from "../_assert.ts";
import { cliCommand, recordProcessRun, ROOT, runCli } from "../_cli.ts";
import { GrpcSession, HttpClient, seeded } from "../_service_helpers.ts";

const MODULE = `import { orderedPicker } from "${ROOT}mod.ts";

// Largest first: the picker offers the widest waiting job first.
export const pickers = [orderedPicker({
  name: "largest_first",
  compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id,
})];

// First fit: start every offered job that fits now, in the picker's order (no reservations).
export const admissions = [{
  name: "first_fit",
  runSession(s) {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes <= s.free) s.dispatch(job, false);
      else s.pend(job, { code: "insufficient_nodes", message: \`needs \${job.numNodes}\` });
    }
  },
}];
`;

interface Job {
  submitTime: number;
  numNodes: number;
  timeLimit: number;
  actualRunTime: number;
}

function jobs(n: number): Job[] {
  const rnd = seeded(27);
  let t = 0;
  return Array.from({ length: n }, () => {
    t += Math.floor(rnd() * 30);
    const timeLimit = 20 + Math.floor(rnd() * 400);
    return {
      submitTime: t,
      numNodes: 1 + Math.floor(rnd() * 8),
      timeLimit,
      actualRunTime: 1 + Math.floor(rnd() * timeLimit),
    };
  });
}

/** Starts `evtsim serve` as a process; returns its HTTP base and gRPC port. */
async function serve(args: string[]) {
  const argv = cliCommand(["serve", ...args]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (seen.split("\n").length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  reader.releaseLock();
  const http = /^HTTP: (http:\/\/\S+)$/m.exec(seen)?.[1];
  const grpc = /^gRPC: \S+:(\d+)$/m.exec(seen)?.[1];
  return { child, http, grpcPort: grpc === undefined ? undefined : Number(grpc), seen };
}

Deno.test("serve --policy_module: HTTP and gRPC sessions with a picker and an admission of your own equal simulate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-module-" });
  const module = `${dir}/my_policies.ts`;
  await Deno.writeTextFile(module, MODULE);
  const trace = jobs(60);
  await Deno.writeTextFile(
    `${dir}/trace.csv`,
    "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
      trace.map((j) => `${j.submitTime},${j.numNodes},${j.timeLimit},${j.actualRunTime}`).join(
        "\n",
      ) + "\n",
  );
  const sim = await runCli([
    "simulate",
    `${dir}/trace.csv`,
    "-n",
    "8",
    "--policy_module",
    module,
    "--picker",
    "largest_first",
    "--admission",
    "first_fit",
    "-o",
    `${dir}/sim.csv`,
  ]);
  assertEquals(sim.code, 0, sim.err.join("\n"));
  const expected = (await Deno.readTextFile(`${dir}/sim.csv`)).trim().split("\n").slice(1)
    .map((l) => l.split(",").slice(0, 3).map(Number));
  // The module changes the schedule (else the test would prove nothing).
  const plain = await runCli(["simulate", `${dir}/trace.csv`, "-n", "8", "-o", `${dir}/p.csv`]);
  assertEquals(plain.code, 0);
  assert((await Deno.readTextFile(`${dir}/p.csv`)) !== (await Deno.readTextFile(`${dir}/sim.csv`)));

  const server = await serve(["--port", "0", "--grpc_port", "0", "--policy_module", module]);
  try {
    assert(server.http !== undefined && server.grpcPort !== undefined, server.seen);
    const api = new HttpClient(server.http);
    const schedule = (rows: { submitTime: number; beginTime: number; endTime: number }[]) =>
      rows.map((r) => [r.submitTime, r.beginTime, r.endTime]);
    // HTTP: CreateSession names both.
    const { sessionId } = await api.ok("POST", "/sessions", {
      totalNodes: 8,
      picker: "largest_first",
      admission: "first_fit",
    });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs: trace });
    assertEquals(
      schedule((await api.ok("POST", `/sessions/${sessionId}/finish`, {})).jobs),
      expected,
    );
    // gRPC: InitRequest names both; DR_EVT's append then submit. (The run time is the
    // limit's over gRPC, whose job message has no run time: simulate that too.)
    const g = new GrpcSession(server.grpcPort);
    try {
      const init = await g.ok({
        init: {
          total_nodes: 8,
          session_name: "mine",
          picker: "largest_first",
          admission: "first_fit",
          run_time_mode: "limit",
        },
      });
      const ids = (await g.ok({
        append_jobs: {
          requests: trace.map((j) => ({
            submit_time: j.submitTime,
            num_nodes: j.numNodes,
            limit_time: j.timeLimit,
          })),
        },
      })).job_idx as number[];
      for (const id of ids) {
        await g.ok({ submit_job: { job_idx: id, submit_time: trace[id].submitTime } });
      }
      await g.ok({ advance_to: { target_time: 1e9 } });
      // The schedule itself over HTTP (the gRPC session is an ordinary session).
      const out = await api.ok("POST", `/sessions/${init.session_id}/finish`, {});
      const limitSim = await runCli([
        "simulate",
        `${dir}/trace.csv`,
        "-n",
        "8",
        "--policy_module",
        module,
        "--picker",
        "largest_first",
        "--admission",
        "first_fit",
        "--run_time_mode",
        "limit",
        "-o",
        `${dir}/limit.csv`,
      ]);
      assertEquals(limitSim.code, 0, limitSim.err.join("\n"));
      const limitExpected = (await Deno.readTextFile(`${dir}/limit.csv`)).trim().split("\n")
        .slice(1).map((l) => l.split(",").slice(0, 3).map(Number));
      assertEquals(schedule(out.jobs), limitExpected);
      // A name nobody registered is the client's error, naming the registered ones.
      const bad = await g.request({
        init: { total_nodes: 8, session_name: "x", admission: "nope" },
      });
      assert(
        /unknown backfill policy 'nope'.*first_fit/.test(bad.error.message),
        bad.error.message,
      );
    } finally {
      await g.close();
    }
    // Built-in admissions are named the same way (issue 27: easy_extra, conservative_profile).
    const profile = await api.ok("POST", "/sessions", {
      totalNodes: 8,
      admission: "conservative_profile",
    });
    await api.ok("POST", `/sessions/${profile.sessionId}/jobs`, { jobs: trace });
    const viaServe = (await api.ok("POST", `/sessions/${profile.sessionId}/finish`, {})).jobs;
    const cp = await runCli([
      "simulate",
      `${dir}/trace.csv`,
      "-n",
      "8",
      "--admission",
      "conservative_profile",
      "-o",
      `${dir}/cp.csv`,
    ]);
    assertEquals(cp.code, 0, cp.err.join("\n"));
    assertEquals(
      schedule(viaServe),
      (await Deno.readTextFile(`${dir}/cp.csv`)).trim().split("\n").slice(1)
        .map((l) => l.split(",").slice(0, 3).map(Number)),
    );
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    const err = new TextDecoder().decode(
      new Uint8Array(await new Response(server.child.stderr).arrayBuffer()),
    );
    await server.child.stdout.cancel().catch(() => {});
    recordProcessRun(["serve"], err);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --policy_module: a module that does not load is one line at start-up, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-module-" });
  try {
    await Deno.writeTextFile(`${dir}/half.ts`, `export const pickers = [{ name: "half" }];\n`);
    const r = await runCli([
      "serve",
      "--port",
      "0",
      "--grpc_port",
      "off",
      "--policy_module",
      `${dir}/half.ts`,
    ]);
    assertEquals(r.code, 1);
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(r.err[0].includes(`${dir}/half.ts: pickers[0] is neither a picker`), r.err[0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

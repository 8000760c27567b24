// `evtsim serve`, the external-decision protocol over HTTP
// (docs/external-schedulers.md): an EASY written against the protocol gives
// `evtsim simulate -b easy`'s schedule byte for byte on the conformance
// fixtures; invalid answers are refused with one reason each (reask) or end
// the session (fail); answers for a round not awaited are 409 `round`; a
// client that stops answering holds up no other session and no /health.

import { readTrace } from "../../io/trace_csv.ts";
import { readMachine } from "../../io/machine_file.ts";
import { scheduleCsv } from "../../io/rows_csv.ts";
import { answerRounds, easyAnswer, type Round } from "../../examples/external_easy.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, type HttpClient, withServer } from "../_service_helpers.ts";

const FIXTURES = new URL("../fixtures/drevt/", import.meta.url).pathname;

/** The EASY fixtures: their folder, node count and run-time mode. */
function easyFixtures(): {
  dir: string;
  nodes: number;
  mode: "limit" | "actual";
  args: string[];
}[] {
  const out = [];
  for (const e of [...Deno.readDirSync(FIXTURES)].filter((e) => e.isDirectory)) {
    const args: string[] = JSON.parse(Deno.readTextFileSync(`${FIXTURES}${e.name}/fixture.json`))
      .args;
    const opt = (name: string) => args[args.indexOf(name) + 1];
    if (
      opt("--backfill_policy") !== "easy" || args.includes("--priority_policy") &&
        opt("--priority_policy") !== "fcfs"
    ) continue;
    if (args.includes("--msec_output")) continue;
    out.push({
      dir: `${FIXTURES}${e.name}`,
      nodes: Number(opt("--total_nodes")),
      mode: opt("--run_time_mode") as "limit" | "actual",
      args,
    });
  }
  return out.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** Creates an external session and runs `jobs` to the end, answering every round with `decide`. */
async function externalRun(
  api: HttpClient,
  create: Record<string, unknown>,
  jobs: unknown[],
  decide: (r: Round) => unknown,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const { sessionId: id, protocol } = await api.ok("POST", "/sessions", {
    admission: "external",
    ...create,
  });
  assertEquals(protocol, 1);
  await answerRounds(api.base, id, await api.ok("POST", `/sessions/${id}/jobs`, { jobs }), decide);
  return await answerRounds(
    api.base,
    id,
    await api.ok("POST", `/sessions/${id}/finish`, {}),
    decide,
  );
}

Deno.test("serve external: EASY over HTTP gives simulate -b easy's schedule byte for byte on the fixtures", async () => {
  const fixtures = easyFixtures();
  assert(fixtures.length >= 15, `${fixtures.length} EASY fixtures`);
  const tmp = await Deno.makeTempDir({ prefix: "evtsim-ext-" });
  try {
    await withServer({}, async (_server, api) => {
      for (const f of fixtures) {
        const outfile = `${tmp}/jobs.csv`;
        const r = await runCli(["simulate", `${f.dir}/input.csv`, ...f.args, "--outfile", outfile]);
        assertEquals(r.code, 0, r.err.join("\n"));
        const { jobs, queueColumn } = await readTrace(`${f.dir}/input.csv`, {
          runTimeMode: f.mode,
        });
        const rounds: number[] = [];
        const out = await externalRun(
          api,
          { totalNodes: f.nodes, runTimeMode: f.mode, decisions: true },
          jobs,
          (round) => {
            rounds.push(round.round);
            return easyAnswer(round);
          },
        );
        assertEquals(scheduleCsv(out.jobs, { queueColumn }), Deno.readTextFileSync(outfile), f.dir);
        assert(rounds.length > 0 && rounds.every((n, i) => n === i + 1), "rounds 1, 2, ...");
      }
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

const JOBS = [
  { submitTime: 0, numNodes: 6, timeLimit: 100, actualRunTime: 50 },
  { submitTime: 0, numNodes: 8, timeLimit: 10 },
  { submitTime: 5, numNodes: 4, timeLimit: 10 },
];

/** An external session with JOBS appended and its first call at round 1 (time 0); its id. */
async function atFirstRound(api: HttpClient, external?: Record<string, unknown>): Promise<string> {
  const { sessionId: id } = await api.ok("POST", "/sessions", {
    totalNodes: 10,
    admission: "external",
    decisions: true,
    ...(external === undefined ? {} : { external }),
  });
  await api.ok("POST", `/sessions/${id}/jobs`, { jobs: JOBS });
  const r = await api.ok("POST", `/sessions/${id}/advance`, { time: 0 });
  assertEquals([r.awaitingDecisions, r.round.round, r.round.time], [true, 1, 0]);
  assertEquals(r.round.waiting.map((j: { jobId: number }) => j.jobId), [0, 1]);
  return id;
}

Deno.test("serve external: each invalid answer is refused with one reason naming the job, and the round is asked again", async () => {
  await withServer({}, async (_server, api) => {
    const id = await atFirstRound(api);
    const cases: [unknown[], string][] = [
      [[{ type: "DISPATCH", jobId: 9 }], "job 9 is unknown (no such job in this session)"],
      [
        [{ type: "DISPATCH", jobId: 2 }],
        "job 2 is not waiting to start (it is not among this round's waiting jobs)",
      ],
      [
        [{ type: "DISPATCH", jobId: 0 }, { type: "PEND", jobId: 0 }],
        "job 0 is named twice (one decision per job and round)",
      ],
      [
        [{ type: "DISPATCH", jobId: 0 }, { type: "DISPATCH", jobId: 1 }],
        "job 1 does not fit now: needs 8 nodes, 4 free after the DISPATCHes before it",
      ],
      [
        [{ type: "PEND", jobId: 1, reason: { code: "mine", message: "m" } }],
        `job 1: pend reason code 'mine' is not one of insufficient_nodes, reservation_blocked, ` +
        "behind_head, backfill_skipped, queue_limit, queue_closed, insufficient_capacity, " +
        "topology_fragmented, head_of_line_blocked, exceeds_capacity, external, power_cap",
      ],
    ];
    for (const [decisions, error] of cases) {
      const r = await api.send("POST", `/sessions/${id}/decisions`, { round: 1, decisions });
      assertEquals([r.status, r.body.kind, r.body.error], [409, "decision", error]);
      // The same round again, nothing of the answer applied.
      assertEquals([r.body.round.round, r.body.round.free], [1, 10]);
    }
    // A valid answer goes on: job 1 first, with the client's reason for job 0. One
    // round per scheduling point: the call's own reply follows.
    const done = await api.ok("POST", `/sessions/${id}/decisions`, {
      round: 1,
      decisions: [
        { type: "DISPATCH", jobId: 1 },
        { type: "PEND", jobId: 0, reason: { code: "insufficient_nodes", message: "later" } },
      ],
    });
    assertEquals(
      done.decisions.map((d: { type: string; jobId: number; backfill?: boolean }) =>
        `${d.type}${d.jobId}${d.backfill === undefined ? "" : d.backfill}`
      ),
      ["DISPATCH1true", "PEND0"],
    );
    assertEquals(done.decisions[1].reason, { code: "insufficient_nodes", message: "later" });
    // Why job 0 waits: the client's reason, without asking the client.
    assertEquals(
      await api.ok("GET", `/sessions/${id}/jobs/0/pending_reason`),
      { code: "insufficient_nodes", message: "later" },
    );
    assertEquals(done.monitors.nodesInUse, 8);
  });
});

Deno.test("serve external: onInvalid fail ends the session at the first invalid answer", async () => {
  await withServer({}, async (_server, api) => {
    const id = await atFirstRound(api, { onInvalid: "fail" });
    const r = await api.send("POST", `/sessions/${id}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 2 }],
    });
    assertEquals([r.status, r.body.kind], [409, "decision"]);
    assert(r.body.error.startsWith("job 2 is not waiting"), r.body.error);
    assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
  });
});

Deno.test("serve external: an answer for a round not awaited is 409 round; other calls wait for the answer (409 awaiting)", async () => {
  await withServer({}, async (_server, api) => {
    const id = await atFirstRound(api);
    const wrong = await api.send("POST", `/sessions/${id}/decisions`, { round: 2, decisions: [] });
    assertEquals([wrong.status, wrong.body.kind, wrong.body.error], [
      409,
      "round",
      `session '${id}' awaits the decisions of round 1, not round 2`,
    ]);
    const busy = await api.send("GET", `/sessions/${id}`);
    assertEquals([busy.status, busy.body.kind], [409, "awaiting"]);
    const bad = await api.send("POST", `/sessions/${id}/decisions`, { round: 1, decisions: [{}] });
    assertEquals([bad.status, bad.body.kind], [400, "validation"]);
    const done = await api.ok("POST", `/sessions/${id}/decisions`, { round: 1, decisions: [] });
    assertEquals(done.monitors.nodesInUse, 0);
    const none = await api.send("POST", `/sessions/${id}/decisions`, { round: 1, decisions: [] });
    assertEquals([none.status, none.body.kind, none.body.error], [
      409,
      "round",
      `session '${id}' awaits no decisions (no call is at a scheduling round)`,
    ]);
    // A session of another admission policy awaits none either.
    const { sessionId: plain } = await api.ok("POST", "/sessions", { totalNodes: 4 });
    const r = await api.send("POST", `/sessions/${plain}/decisions`, { round: 1, decisions: [] });
    assertEquals([r.status, r.body.kind], [409, "round"]);
    const opts = await api.send("POST", "/sessions", { totalNodes: 4, external: {} });
    assertEquals([opts.status, opts.body.error], [400, 'external: only with admission "external"']);
  });
});

Deno.test("serve external: a client that stops answering holds up no other session and no /health; its roundTimeout ends it", async () => {
  await withServer({}, async (_server, api) => {
    const silent = await atFirstRound(api, { roundTimeout: 0.3 });
    const other = await atFirstRound(api);
    // The other session runs to its end meanwhile, and /health answers.
    assertEquals((await api.ok("GET", "/health")).ok, true);
    const first = await api.ok("POST", `/sessions/${other}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 0 }],
    });
    await answerRounds(api.base, other, first, easyAnswer);
    const fin = await answerRounds(
      api.base,
      other,
      await api.ok("POST", `/sessions/${other}/finish`, {}),
      easyAnswer,
    ) as { jobs: { beginTime: number }[] };
    assertEquals(fin.jobs.map((j) => j.beginTime), [0, 50, 5]);
    await new Promise((r) => setTimeout(r, 600));
    const gone = await api.send("GET", `/sessions/${silent}`);
    assertEquals(gone.status, 404);
    assert(
      gone.body.error.includes("no answer to round 1 within its roundTimeout of 0.3 s"),
      gone.body.error,
    );
    assertEquals((await api.ok("GET", "/health")).sessions, 0);
  });
});

Deno.test("serve external: a recorded external session re-simulates without its client, zero mismatches; an edited DISPATCH is reported", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-ext-rec-" });
  try {
    const f = easyFixtures().find((x) => x.dir.endsWith("05_multiple_backfills"))!;
    const { jobs } = await readTrace(`${f.dir}/input.csv`, { runTimeMode: f.mode });
    let file = "";
    await withServer({ recordDir: dir }, async (_server, api) => {
      const out = await externalRun(
        api,
        { totalNodes: f.nodes, runTimeMode: f.mode, name: "ext" },
        jobs,
        easyAnswer,
      );
      file = out.recording.file;
    });
    const log = Deno.readTextFileSync(file);
    assert(log.includes('"backfillPolicy":"external"'), "the log names the admission");
    const r = await runCli(["replay", file, "--verify"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(
      r.out.join("\n").includes("verify: every decision matches the recording"),
      r.out.join("\n"),
    );
    // A DISPATCH edited to a job that does not fit then is reported at its event, one line.
    let small = "";
    await withServer({ recordDir: dir }, async (_server, api) => {
      const out = await externalRun(api, { totalNodes: 10, name: "small" }, JOBS, easyAnswer);
      assertEquals(out.jobs.map((j: { beginTime: number }) => j.beginTime), [0, 50, 5]);
      small = out.recording.file;
    });
    const pends = await runCli(["replay", small, "--verify"]);
    assert(pends.out.join("\n").includes("every decision matches"), pends.out.join("\n"));
    const lines = Deno.readTextFileSync(small).split("\n");
    assert(lines.some((l) => l.includes('"code":"external"')), "PEND rows recorded");
    const at = lines.findIndex((l) => l.includes('"decisions":[["DISPATCH",2,4,"backfill"]]'));
    assert(at > 0, "job 2's backfill at 5 is recorded");
    lines[at] = lines[at].replace('["DISPATCH",2,4,"backfill"]', '["DISPATCH",1,8]');
    const edited = `${dir}/edited.replay`;
    Deno.writeTextFileSync(edited, lines.join("\n"));
    const bad = await runCli(["replay", edited, "--verify"]);
    assertEquals([bad.code, bad.out, bad.err.length], [1, [], 1]);
    assert(
      bad.err[0].endsWith("admission policy external started job 1 needing 8 nodes with 4 free"),
      bad.err[0],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Answers every round_request of request `id` with `decide`; returns the request's own reply. */
async function grpcRounds(
  g: GrpcSession,
  id: string,
  reply: Record<string, unknown>,
  decide: (r: Round) => unknown,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  let r = reply;
  while (r.response === "round_request") {
    const round = JSON.parse((r.round_request as { round_json: string }).round_json);
    r = await g.request(
      { decide: { request_id: id, decisions_json: JSON.stringify(decide(round)) } },
      id,
    );
  }
  return r;
}

Deno.test("serve external: EASY over gRPC (round_request / decide) gives simulate -b easy's schedule", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "evtsim-ext-grpc-" });
  try {
    await withServer({ recordDir: tmp }, async (server, api) => {
      for (const f of easyFixtures().filter((x) => /0[5-9]_|2[13]_/.test(x.dir))) {
        const outfile = `${tmp}/jobs.csv`;
        assertEquals(
          (await runCli(["simulate", `${f.dir}/input.csv`, ...f.args, "--outfile", outfile])).code,
          0,
        );
        const { jobs, queueColumn } = await readTrace(`${f.dir}/input.csv`, {
          runTimeMode: f.mode,
        });
        const g = new GrpcSession(server.grpcPort!);
        try {
          const init = await g.ok({
            init: {
              session_name: "g",
              total_nodes: f.nodes,
              run_time_mode: f.mode,
              admission: "external",
              external_json: JSON.stringify({ onInvalid: "reask" }),
            },
          });
          await g.ok({
            append_jobs: {
              requests: jobs.map((j) => ({
                submit_time: j.submitTime,
                num_nodes: j.numNodes,
                limit_time: j.timeLimit,
                queue: j.queue ?? "",
              })),
            },
          });
          for (let i = 0; i < jobs.length; i++) {
            const id = String(1000 + i);
            const r = await g.request({
              submit_job: { job_idx: i, submit_time: jobs[i].submitTime },
            }, id);
            assertEquals((await grpcRounds(g, id, r, easyAnswer)).response, "submit_job");
          }
          const r = await g.request({ advance_to: { target_time: 1e12 } }, "9");
          assertEquals((await grpcRounds(g, "9", r, easyAnswer)).response, "advance_to");
          // Every job has run: the HTTP front's finish of the same session has the schedule.
          const out = await api.ok("POST", `/sessions/${init.session_id}/finish`, {});
          assertEquals(
            scheduleCsv(out.jobs, { queueColumn }),
            Deno.readTextFileSync(outfile),
            f.dir,
          );
          // The recording re-simulates without the client.
          const replayed = await runCli(["replay", out.recording.file, "--verify"]);
          assert(
            replayed.out.join("\n").includes("every decision matches"),
            replayed.err.join("\n"),
          );
        } finally {
          await g.close();
        }
      }
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

/** A gRPC external session with JOBS at its first round (request "5", advance_to 0). */
async function grpcAtFirstRound(g: GrpcSession, external: Record<string, unknown>) {
  const init = await g.ok({
    init: {
      session_name: "g",
      total_nodes: 10,
      admission: "external",
      external_json: JSON.stringify(external),
    },
  });
  await g.ok({
    append_jobs: {
      requests: JOBS.map((j) => ({
        submit_time: j.submitTime,
        num_nodes: j.numNodes,
        limit_time: j.timeLimit,
      })),
    },
  });
  for (let i = 0; i < JOBS.length; i++) {
    await g.ok({ submit_job: { job_idx: i, submit_time: JOBS[i].submitTime } });
  }
  const r = await g.request({ advance_to: { target_time: 0 } }, "5");
  assertEquals(r.response, "round_request");
  return init.session_id as string;
}

Deno.test("serve external over gRPC: an invalid answer is an ErrorResponse and the round again; a stream gone mid-round ends or suspends its session", async () => {
  await withServer({}, async (server, api) => {
    const g = new GrpcSession(server.grpcPort!);
    const id = await grpcAtFirstRound(g, {});
    const bad = await g.request({
      decide: {
        request_id: "5",
        decisions_json: '{"round":1,"decisions":[{"type":"DISPATCH","jobId":7}]}',
      },
    }, "5");
    assertEquals([bad.response, bad.error.message], [
      "error",
      "job 7 is unknown (no such job in this session)",
    ]);
    const again = await g.reply("5");
    assertEquals([again.response, JSON.parse(again.round_request.round_json).round], [
      "round_request",
      1,
    ]);
    const none = await g.request({ decide: { request_id: "4", decisions_json: "{}" } }, "4");
    assertEquals(none.error.message, "decide.request_id 4: the round awaited is request 5's");
    // The stream ends mid-round: onDisconnect end (the default) ends the session.
    await g.close();
    assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
    // With suspend the round stays awaited: it can be answered over HTTP.
    const h = new GrpcSession(server.grpcPort!);
    const kept = await grpcAtFirstRound(h, { onDisconnect: "suspend" });
    await h.close();
    const busy = await api.send("GET", `/sessions/${kept}`);
    assertEquals([busy.status, busy.body.kind], [409, "awaiting"]);
    const done = await api.ok("POST", `/sessions/${kept}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 0 }],
    });
    assertEquals(done.monitors.nodesInUse, 6);
  });
});

Deno.test("serve external on a --machine: the round has the free units and the demands; a DISPATCH is checked by the machine's placement", async () => {
  const machine = await readMachine(
    new URL("../../examples/gpu_machine.yaml", import.meta.url).pathname,
  );
  await withServer({ grpcPort: undefined, machine }, async (_s, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", { admission: "external" });
    const gpuJob = { submitTime: 0, numNodes: 3, timeLimit: 100, gpus: 4, partition: "gpu" };
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs: [gpuJob, gpuJob] });
    const r = await api.ok("POST", `/sessions/${id}/advance`, { time: 0 });
    assertEquals(r.round.freeUnits.gpus, 16);
    assertEquals(r.round.waiting[0].demand.replicas, 3);
    assertEquals(r.round.waiting[0].demand.perReplica.gpus, 4);
    const both = await api.send("POST", `/sessions/${id}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 0 }, { type: "DISPATCH", jobId: 1 }],
    });
    assertEquals([both.status, both.body.kind], [409, "decision"]);
    assert(
      both.body.error.startsWith("job 1 does not fit now (after the DISPATCHes before it): "),
      both.body.error,
    );
    const one = await api.ok("POST", `/sessions/${id}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 0 }],
    });
    assertEquals(one.decisions[0].allocation.length, 3);
  });
});

Deno.test("serve external: a session ended mid-round (deleted, or its round timed out) leaves a recording that re-simulates to its last answered call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-ext-cut-" });
  try {
    const files: string[] = [];
    await withServer({ recordDir: dir, grpcPort: undefined }, async (_s, api) => {
      for (const how of ["delete", "timeout"]) {
        const id = await atFirstRound(api, how === "timeout" ? { roundTimeout: 0.2 } : undefined);
        // Round 1 answered; the call goes on to round 2 at time 5, never answered.
        const next = await api.ok("POST", `/sessions/${id}/decisions`, {
          round: 1,
          decisions: [{ type: "DISPATCH", jobId: 0 }],
        });
        assertEquals(next.monitors.currentTime, 0);
        const r2 = await api.ok("POST", `/sessions/${id}/advance`, { time: 5 });
        assertEquals(r2.round.round, 2);
        const rec = (await api.send("GET", `/sessions/${id}/recording`)).body;
        assertEquals(rec.kind, "awaiting");
        if (how === "delete") await api.ok("DELETE", `/sessions/${id}`);
        else await new Promise((r) => setTimeout(r, 500));
        assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
        files.push(`${dir}/session-${id}.replay`);
      }
      assertEquals((await api.ok("GET", "/health")).sessions, 0);
    });
    for (const file of files) {
      const v = await runCli(["replay", file, "--verify"]);
      assertEquals(v.code, 0, v.err.join("\n"));
      // Two events: the append and the answered advance to 0; the unanswered call is cut.
      assert(v.out[0].startsWith("replayed 2 events"), v.out.join("\n"));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

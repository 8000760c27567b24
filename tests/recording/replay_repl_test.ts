// `evtsim replay FILE -i` (issue 12), in-process with its lines given: every
// command, each error as one `error: …` line after which the session goes
// on, breakpoints on every event type, the info views against the state,
// snapshots that `replay --start_time` starts from, set speed/output/verify,
// back and history. tests/recording/replay_repl_process_test.ts drives a real process
// through stdin.

import { parseLog } from "../../io/replay_reader.ts";
import { HELP } from "../../cli/_repl_commands.ts";
import { runCli } from "../_cli.ts";
import {
  assertOneError,
  dispatchWalk,
  recordDemo,
  recordLiveEvents,
  repl,
} from "../_repl_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "evtsim-repl-" });
}

const dir = await tempDir();
// The recordings serve every test of this file; they go when the file is done
// (beforeunload: before the preload checks the run's temp folder on unload).
globalThis.addEventListener("beforeunload", () => Deno.removeSync(dir, { recursive: true }));
const DEMO = await recordDemo(dir);
const LIVE = await recordLiveEvents(dir);

Deno.test("REPL: break on a DISPATCH, the job waits with its reason, step runs it, back 1 waits again; the output is replay --output's", async () => {
  const ref = `${dir}/ref.replay`;
  assertEquals((await runCli(["replay", DEMO, "--output", ref])).code, 0);
  const out = `${dir}/repl.replay`;
  const r = await repl(DEMO, [
    ...dispatchWalk(out),
    "quit",
    "info summary", // never read: quit ended the session
  ]);
  assertEquals(r.code, 0);
  assert(r.banner[0].startsWith(`[sim] loaded ${DEMO}: snapshot at time 0`), r.banner[0]);
  assert(
    /^\[sim\] breakpoint 1 hit before event #\d+ \(t=750\): DECISION type=DISPATCH job=3 nodes=82 /
      .test(r.of("continue")[0]),
    r.of("continue")[0],
  );
  const waiting = r.of("info job 3", 0);
  assert(waiting[0].startsWith("job 3: waiting since 426"), waiting[0]);
  assertEquals(waiting[2], "  pend reason: insufficient_nodes: needs 82 nodes, 64 free");
  assert(r.of("step").some((l) => l.includes("DECISION type=DISPATCH job=3 nodes=82")), "step");
  assert(r.of("info job 3", 1)[0].startsWith("job 3: running since 750 on 82 nodes"), "running");
  assertEquals(r.of("info job 3", 2), waiting);
  assert(r.of("continue", 1)[0].startsWith("[sim] end of the log after event #"), "the end");
  assertEquals(r.blocks.at(-1)!.command, "quit", JSON.stringify(r.blocks, null, 1));
  assertEquals(await Deno.readFile(out), await Deno.readFile(ref));
});

Deno.test("REPL: errors are one line each and the session goes on", async () => {
  const r = await repl(DEMO, [
    "frobnicate",
    "break",
    "break NOT_A_TYPE",
    "break DECISION job",
    "break DECISION jobb=3",
    "break DECISION type=LAUNCH",
    "break DECISION job=x",
    "break DECISION backfill=maybe",
    "info job 99999",
    "info job x",
    "info job",
    "info queue nope",
    "info queue",
    "info nothing",
    "info",
    "back",
    "back session",
    "step 0",
    "step x",
    "next -1",
    "continue now",
    "delete 7",
    "delete",
    `snapshot ${dir}/no/such/folder/x.replay`,
    "set speed -1",
    "set speed fast",
    "set verify maybe",
    "set colour blue",
    "set",
    `set output ${dir}/no/such/folder/out.replay`,
    "info session",
  ]);
  for (
    const [command, text] of [
      ["frobnicate", "unknown command 'frobnicate' (type 'help' for the commands)"],
      ["break", "break needs an event type: JOB_PUSH, JOB_STATE_CHANGE"],
      ["break NOT_A_TYPE", "unknown event type 'NOT_A_TYPE'"],
      ["break DECISION job", "bad breakpoint filter 'job': write key=value"],
      ["break DECISION jobb=3", "DECISION has no field 'jobb' (fields: type, job, nodes"],
      ["break DECISION type=LAUNCH", "'LAUNCH' is not one of DISPATCH, PEND"],
      ["break DECISION job=x", "'x' is not a number"],
      ["break DECISION backfill=maybe", "'maybe' is not true or false"],
      ["info job 99999", "no job 99999: no job has been created yet"],
      ["info job x", "info job needs a job id"],
      ["info job", "info job needs a job id"],
      ["info queue nope", "no queue 'nope' (queues: pbatch, pdebug)"],
      ["info queue", "info queue needs a queue name or 'all'"],
      ["info nothing", "info 'nothing' is not one of"],
      ["info", "info needs"],
      ["back", "cannot go back: this is the start of the re-simulation"],
      ["back session", "cannot go back: this is the start of the re-simulation"],
      ["step 0", "step takes a count of 1 or more, got '0'"],
      ["step x", "step takes a count of 1 or more"],
      ["next -1", "next takes a count of 1 or more"],
      ["continue now", "continue takes no arguments"],
      ["delete 7", "no breakpoint '7' (there are none)"],
      ["delete", "delete needs a breakpoint id or 'all'"],
      [`snapshot ${dir}/no/such/folder/x.replay`, "no such file or folder"],
      ["set speed -1", "set speed needs a number 0 or more"],
      ["set speed fast", "set speed needs a number 0 or more"],
      ["set verify maybe", "set verify needs on or off"],
      ["set colour blue", "cannot set 'colour'"],
      ["set", "set needs one of"],
      [`set output ${dir}/no/such/folder/out.replay`, "no such file or folder"],
    ]
  ) {
    assertOneError(r.of(command), text);
  }
  assert(r.of("info session")[0].startsWith("event #0 at t=0 (round 0)"), "still at the start");
  assertEquals(r.code, 0);
  // Nothing was left behind by the failed writes.
  assertEquals([...Deno.readDirSync(dir)].filter((e) => e.name.includes("tmp-")), []);
});

Deno.test("REPL: step, next, continue, back, back session and history move where they say", async () => {
  const r = await repl(DEMO, [
    "history",
    "step",
    "step 20",
    "info session",
    "next",
    "info session",
    "next 3",
    "info session",
    "back session",
    "info session",
    "back 2",
    "info session",
    "history",
    "continue",
    "continue",
    "step",
    "back",
    "info session",
  ]);
  const at = (n: number) => {
    const m = /^event #(\d+) at t=(\d+) \(round (\d+)\)/.exec(r.of("info session", n)[0])!;
    return { index: Number(m[1]), time: Number(m[2]), round: Number(m[3]) };
  };
  assertEquals(r.of("history"), ["no history yet: this is the start of the re-simulation"]);
  assert(/^\[sim\] event #1 at t=\d+: /.test(r.of("step")[0]), r.of("step")[0]);
  assertEquals(at(0).index, 21);
  assertEquals(at(1).round, at(0).round + 1);
  assertEquals(at(2).round, at(1).round + 3);
  assertEquals(r.of("next 3"), [
    `[sim] stopped at event #${at(2).index} at t=${at(2).time} (round ${at(2).round})`,
  ]);
  // Back one session: before the piece that began the last round.
  assertEquals(at(3).round, at(2).round - 1);
  assertEquals(at(4).index, at(3).index - 2);
  assertEquals(r.of("back 2"), [
    `[sim] back at event #${at(4).index} at t=${at(4).time} (round ${at(4).round})`,
  ]);
  const h = r.of("history", 1);
  assertEquals(
    h[0],
    `${at(4).index} events back, to event #0 at t=0 (round 0); --history 1000 sessions`,
  );
  assertEquals(h.length, 1 + 10 + 1);
  assert(h[1].startsWith(`  back 1: event #${at(4).index - 1} at t=`), h[1]);
  assert(r.of("continue")[0].startsWith("[sim] end of the log after event #"));
  assertOneError(r.of("continue", 1), "the re-simulation has ended (try 'back')");
  assertOneError(r.of("step", 1), "the re-simulation has ended");
  assert(r.of("back")[0].startsWith("[sim] back at event #"));
  // The last log event (finish) is one piece: back 1 is just before it.
  const last = /^log event seq (\d+) \(finish, line /.exec(r.of("info session", 5)[1]);
  assert(last !== null, r.of("info session", 5)[1]);
  assert(r.of("info session", 5)[1].includes(`: next; ${last[1]} log events done`));
});

Deno.test("REPL: --history 0 keeps nothing to go back to; --history N bounds it in sessions", async () => {
  const none = await repl(DEMO, ["next 5", "back", "back session", "history", "info config"], [
    "--history",
    "0",
  ]);
  assertOneError(none.of("back"), "cannot go back: no history is kept (--history 0)");
  assertOneError(none.of("back session"), "cannot go back 1 sessions");
  assertEquals(none.of("history"), ["no history is kept (--history 0)"]);
  assert(none.of("info config")[0].includes("history=0 sessions"));
  const two = await repl(DEMO, ["next 6", "back session 3", "back session 2", "info session"], [
    "--history",
    "2",
  ]);
  assertOneError(two.of("back session 3"), "cannot go back 3 sessions: the history reaches back");
  assert(two.of("back session 2")[0].startsWith("[sim] back at event #"));
  const bad = await runCli(["replay", DEMO, "--history", "5"]);
  assertEquals(bad.code, 1);
  assertEquals(bad.err, ["evtsim: --history needs --interactive (-i)"]);
  assertEquals((await runCli(["replay", DEMO, "-i", "--history", "1.5"])).code, 1);
});

Deno.test("REPL: a breakpoint on every event type stops before the piece that has it", async () => {
  const r = await repl(LIVE, [
    "break JOB_UPDATE priority=5",
    "break QUEUE_UPDATE queue=b",
    "break JOB_STATE_CHANGE state=cancelled",
    "break JOB_STATE_CHANGE state=FAILED job=0",
    "break JOB_PUSH job=4",
    "break DECISION type=PEND reason=insufficient_nodes job=4",
    "info break",
    "continue",
    "info job 1",
    "continue",
    "info job 3",
    "continue",
    "info job 0",
    "step",
    "info job 0",
    "delete 4",
    "delete all",
    "info break",
    "break BEGIN_ROUND round=7",
    "break JOB_STATE_CHANGE state=RUN job=4",
    "continue",
    "info job 4",
    "continue",
  ]);
  assertEquals(r.of("info break"), [
    "breakpoint 1: JOB_UPDATE priority=5",
    "breakpoint 2: QUEUE_UPDATE queue=b",
    "breakpoint 3: JOB_STATE_CHANGE state=CANCELLED",
    "breakpoint 4: JOB_STATE_CHANGE state=FAILED job=0",
    "breakpoint 5: JOB_PUSH job=4",
    "breakpoint 6: DECISION type=PEND reason=insufficient_nodes job=4",
  ]);
  const hits = (n: number) => r.of("continue", n).map((l) => l.replace(/ before event #\d+/, ""));
  assertEquals(hits(0), [
    "[sim] breakpoint 2 hit (t=2): QUEUE_UPDATE queue=b priority=3 time=2",
    "[sim] breakpoint 1 hit (t=2): JOB_UPDATE job=1 priority=5 time=2",
  ]);
  assert(r.of("info job 1")[1].includes("priority 0"), "not updated yet");
  assertEquals(hits(1), [
    "[sim] breakpoint 5 hit (t=4): JOB_PUSH job=4 queue=a nodes=1 limit=10 priority=0 time=4",
    "[sim] breakpoint 3 hit (t=4): JOB_STATE_CHANGE job=3 state=CANCELLED queue=b time=4",
  ]);
  assert(r.of("info job 3")[0].startsWith("job 3: waiting since 3"), r.of("info job 3")[0]);
  assertEquals(hits(2), [
    "[sim] breakpoint 4 hit (t=5): JOB_STATE_CHANGE job=0 state=FAILED queue=a time=5",
    "[sim] breakpoint 6 hit (t=5): DECISION type=PEND job=4 reason=insufficient_nodes queue=a round=6 time=5",
  ]);
  assert(r.of("info job 0", 0)[0].startsWith("job 0: running since 0"), "before the end");
  assertEquals(r.of("info job 0", 1)[0], "job 0: failed at 5");
  assertEquals(r.of("delete 4"), ["deleted breakpoint 4"]);
  assertEquals(r.of("delete all"), ["deleted 5 breakpoint(s)"]);
  assertEquals(r.of("info break", 1), ["no breakpoints"]);
  assertEquals(hits(3), [
    "[sim] breakpoint 7 hit (t=13): BEGIN_ROUND round=7 time=13",
    "[sim] breakpoint 8 hit (t=13): JOB_STATE_CHANGE job=4 state=RUN queue=a time=13",
  ]);
  assert(r.of("info job 4")[0].startsWith("job 4: waiting since 4"));
  assert(r.of("continue", 4)[0].startsWith("[sim] end of the log"));
});

Deno.test("REPL: info views against the state: queue, pending, resource, summary, config, session", async () => {
  const r = await repl(DEMO, [
    "break DECISION type=DISPATCH job=3",
    "continue",
    "info queue all",
    "info queue pdebug",
    "info pending",
    "info resource",
    "info summary",
    "info job 0",
    "info job 1999",
    "info session",
    "set speed 1e9",
    "set verify on",
    `set output ${dir}/cfg.replay`,
    "info config",
    "set output off",
    "info config",
    "set output off",
  ]);
  assertEquals(r.of("info queue all"), [
    "queue pbatch: priority 0, open, no running limit; 1 running, 1 waiting: 3(p0)",
    "queue pdebug: priority 0, open, maxRunning 16; 0 running, 2 waiting: 4(p0) 5(p0)",
  ]);
  assertEquals(r.of("info queue pdebug"), [r.of("info queue all")[1]]);
  assertEquals(r.of("info pending"), [
    "3 waiting at t=570, in the picker's order:",
    "  job 3 (pbatch, 82 nodes, since 426): insufficient_nodes: needs 82 nodes, 64 free",
    // Reasons now, at 570: job 4 (limit 863) would end at 570 + 863.
    "  job 4 (pdebug, 2 nodes, since 451): reservation_blocked: would end at 1433, not before the reservation at 750 of job 3",
    "  job 5 (pdebug, 1 nodes, since 570): reservation_blocked: would end at 4032, not before the reservation at 750 of job 3",
  ]);
  assertEquals(r.of("info resource"), [
    "nodes: 128 total, 128 usable, 64 in use, 64 free; 1 jobs running",
    "head: job 3 needs 82 nodes; reservation (shadow time) at 750",
    "next releases by limit: 750: job 2 (64 nodes)",
  ]);
  assertEquals(r.of("info summary"), [
    "t=570: 6 jobs (3 waiting, 1 running, 0 not arrived yet, 2 finished, 0 rejected); average wait so far 0 s",
    "2 queues; 128 nodes, 64 in use; 7 scheduling rounds",
  ]);
  assertEquals(r.of("info job 0")[0], "job 0: completed at 258");
  // The log appends each job at its submit time: job 1999 does not exist yet.
  assertOneError(r.of("info job 1999"), "no job 1999: the jobs so far are 0..5");
  assert(
    r.of("info session")[1].startsWith(
      "log event seq 12 (runUntilExclusive, line 19): in progress",
    ),
  );
  assertEquals(r.of("set speed 1e9"), ["speed=1000000000"]);
  assertEquals(r.of("set verify on"), ["verify=on"]);
  assertEquals(r.of(`set output ${dir}/cfg.replay`), [
    `output=${dir}/cfg.replay: from the start of log event seq 12`,
  ]);
  assert(
    r.of("info config")[0] ===
      `speed=1000000000 output=${dir}/cfg.replay (0 log events written) verify=on history=1000 sessions`,
    r.of("info config")[0],
  );
  assert(
    r.of("info config")[1].startsWith(
      "log: picker=builtin_fcfs admission=easy nodes=128 queues=pbatch,pdebug decisions=heads config=sha256:",
    ),
  );
  assertEquals(r.of("set output off"), [`output=off: ${dir}/cfg.replay closed with 0 log events`]);
  assert(r.of("info config", 1)[0].includes(`output=off (last: ${dir}/cfg.replay, 0 log events)`));
  assertEquals(r.of("set output off", 1), ["output=off (it was not on)"]);
});

Deno.test("REPL: snapshot writes a standalone .replay that replay --start_time starts from", async () => {
  const snap = `${dir}/snap.replay`;
  const r = await repl(DEMO, ["next 8", "snapshot " + snap, "info session", "snapshot"]);
  const line = r.of("snapshot " + snap)[0];
  const m =
    /^\[sim\] snapshot at t=(\d+) \(event #(\d+)\) written to (.*); start from it with 'evtsim replay (.*) --start_time (\d+)'$/
      .exec(line);
  assert(m !== null, line);
  const log = parseLog(await Deno.readTextFile(snap), snap);
  assertEquals(log.entries.map((e) => e.type), ["header", "snapshot"]);
  assertEquals(log.entries[1].type === "snapshot" && log.entries[1].time, Number(m[1]));
  const again = await runCli(["replay", snap, "--start_time", m[5], "--verify"]);
  assertEquals(again.code, 0, again.err.join("\n"));
  assert(again.out.join("\n").includes(`replayed 0 events from the snapshot at time ${m[1]}`));
  // The snapshot continues the run: simulate --from_snapshot gives the recorded schedule.
  const cont = await runCli([
    "simulate",
    new URL("../../examples/demo_queues_trace.csv", import.meta.url).pathname,
    "--from_snapshot",
    snap,
    "-o",
    `${dir}/cont.csv`,
    "--no_progress",
  ]);
  assertEquals(cont.code, 0, cont.err.join("\n"));
  const whole = (await Deno.readTextFile(`${dir}/base.csv`)).split("\n");
  const tail = (await Deno.readTextFile(`${dir}/cont.csv`)).split("\n");
  assertEquals(tail.slice(1), whole.slice(whole.length - tail.length + 1));
  // Without a name: LOG-snap-EVENT.replay in the working folder.
  const auto = r.of("snapshot")[0];
  const name = /written to (\S+);/.exec(auto)![1];
  assert(/^base-snap-\d+\.replay$/.test(name), name);
  await Deno.remove(name);
});

Deno.test("REPL: set verify on reports each mismatch of a what-if as replay --verify does", async () => {
  const lines = (await Deno.readTextFile(DEMO)).split("\n");
  lines.splice(
    4,
    0,
    '{"type":"event","version":1,"seq":1,"time":0,"input":{"kind":"updateQueue","queue":{"name":"pdebug","priority":10},"time":50000}}',
  );
  const alt = `${dir}/whatif.replay`;
  await Deno.writeTextFile(alt, lines.join("\n"));
  const ref = await runCli(["replay", DEMO, "--alt_events", alt, "--verify"]);
  assertEquals(ref.code, 3);
  // replay --verify prints the first mismatch and the count; the REPL prints each as it meets it.
  const refLines = ref.out.join("\n").split("\n");
  const first = refLines.filter((l) => l.startsWith("mismatch at"));
  assertEquals(first.length, 1);
  const count = Number(/^verify: (\d+) decision/.exec(refLines.at(-1)!)![1]);
  assert(count > 10, "a what-if that moves decisions");
  const r = await repl(DEMO, ["set verify on", "continue", "info session"], ["--alt_events", alt]);
  const out = r.of("continue");
  const mismatches = out.filter((l) => l.startsWith("mismatch at"));
  assertEquals(mismatches.length, count);
  assertEquals(mismatches[0], first[0]);
  assertEquals(out.at(-1), `verify: ${count} decision(s) differ from the recording`);
  assert(r.of("info session")[2].endsWith(`, ${count} mismatches`));
  assertEquals(r.code, 3);
  // --verify and --output start the REPL with verify on and the output open.
  const v = await repl(DEMO, ["info config", "continue"], [
    "--verify",
    "--output",
    `${dir}/o.replay`,
  ]);
  assert(
    v.of("info config")[0].includes(`output=${dir}/o.replay (0 log events written) verify=on`),
  );
  assertEquals(v.of("continue").at(-1), "verify: every decision matches the recording");
  assertEquals(v.code, 0);
});

Deno.test("REPL: help lists every command with one line each; help break lists the fields", async () => {
  const r = await repl(DEMO, ["help", "help break"]);
  assertEquals(r.of("help"), [...HELP]);
  const commands = [
    "step",
    "next",
    "continue",
    "back [N]",
    "back session",
    "history",
    "break",
    "info break",
    "delete",
    "info session",
    "info job",
    "info queue",
    "info pending",
    "info resource",
    "info node",
    "info summary",
    "info config",
    "snapshot",
    "set speed",
    "set output",
    "set verify",
    "help",
    "quit",
  ];
  assertEquals(HELP.length, commands.length);
  commands.forEach((c, i) => assert(HELP[i].startsWith(c), `${c}: ${HELP[i]}`));
  for (const l of HELP) assert(l.length <= 100, `a long help line: ${l}`);
  const b = r.of("help break");
  for (
    const t of [
      "JOB_PUSH",
      "JOB_STATE_CHANGE",
      "JOB_UPDATE",
      "QUEUE_UPDATE",
      "BEGIN_ROUND",
      "DECISION",
    ]
  ) {
    assert(b.some((l) => l.startsWith(`fields of ${t}: `)), t);
  }
});

Deno.test("REPL: set speed paces the pieces by their simulation times (on a clock of the test's own)", async () => {
  const { Repl } = await import("../../cli/_repl_commands.ts");
  const { Stepper } = await import("../../cli/_repl_stepper.ts");
  const { Resimulation } = await import("../../api/resimulation.ts");
  const { readLog } = await import("../../io/replay_reader.ts");
  let clock = 1000;
  const sleeps: number[] = [];
  const printed: string[] = [];
  const io = {
    print: (l: string) => void printed.push(l),
    openOutput: () => {
      throw new Error("no output in this test");
    },
    writeFile: () => {},
    now: () => clock,
    sleep: (ms: number) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  };
  const stepper = new Stepper(new Resimulation({ log: readLog(DEMO) }), 1000);
  const repl = new Repl(stepper, io, DEMO);
  await repl.run("step 6");
  assertEquals(sleeps, [], "speed 0: as fast as possible");
  const from = stepper.at.time;
  await repl.run("set speed 10");
  await repl.run("step 5");
  // Each piece waits until its time, at 10 simulated seconds per second.
  const to = stepper.at.time;
  assert(to > from, "the clock moved");
  assertEquals(Math.round(sleeps.reduce((a, b) => a + b, 0)), ((to - from) / 10) * 1000);
  assert(sleeps.length >= 1 && sleeps.length <= 5, `${sleeps.length} waits`);
  assertEquals(printed.at(-1), `[sim] stopped at event #11 at t=${to} (round ${stepper.at.round})`);
});

Deno.test("REPL: a log without queues: one implicit queue; a rejected job; nothing waiting", async () => {
  const { Simulation } = await import("../../mod.ts");
  let text = "";
  const sim = new Simulation({ totalNodes: 4 });
  sim.startRecording({ write: (t) => void (text += t) });
  sim.appendJobs([
    { submitTime: 0, numNodes: 3, timeLimit: 10 },
    { submitTime: 0, numNodes: 2, timeLimit: 10 },
    { submitTime: 1, numNodes: 9, timeLimit: 10 },
  ]);
  sim.runToCompletion();
  sim.stopRecording();
  const log = `${dir}/plain.replay`;
  await Deno.writeTextFile(log, text);
  const r = await repl(log, [
    "step 2", // the append, then the instant 0 (the rejected job never arrives)
    "info queue all",
    "info queue x",
    "info pending",
    "info resource",
    "info job 2",
    "info job 1",
    "continue",
    "info pending",
    "info job 1",
  ]);
  assertEquals(r.of("info queue all"), [
    "no queues configured: one queue; 1 running, 1 waiting: 1(p0)",
  ]);
  assertOneError(r.of("info queue x"), "no queue 'x': no queues are configured");
  assertEquals(r.of("info pending"), [
    "1 waiting at t=0, in the picker's order:",
    "  job 1 (2 nodes, since 0): insufficient_nodes: needs 2 nodes, 1 free",
  ]);
  assertEquals(r.of("info resource"), [
    "nodes: 4 total, 4 usable, 3 in use, 1 free; 1 jobs running",
    "head: job 1 needs 2 nodes; reservation (shadow time) at 10",
    "next releases by limit: 10: job 0 (3 nodes)",
  ]);
  assertEquals(r.of("info job 2"), ["job 2: rejected: needs 9 nodes, the machine has 4"]);
  assertEquals(r.of("info job 1")[0], "job 1: waiting since 0 (0 s)");
  assertEquals(r.of("info pending", 1), ["no job is waiting at t=20"]);
  assertEquals(r.of("info job 1", 1)[0], "job 1: completed at 20");
});

Deno.test("REPL: a broken line met while stepping is one error line; the session stays where it was", async () => {
  const lines = (await Deno.readTextFile(DEMO)).split("\n");
  lines[9] = lines[9].slice(0, 20); // a session torn in the middle of the log
  const torn = `${dir}/torn.replay`;
  await Deno.writeTextFile(torn, lines.join("\n"));
  const r = await repl(torn, ["continue", "info session", "continue"]);
  assertOneError(r.of("continue"), `${torn}:10`);
  assert(r.of("info session")[0].startsWith("event #"), "still answers");
  assertEquals(r.of("continue", 1), r.of("continue"));
  assertEquals(r.code, 0);
});

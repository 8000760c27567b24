// Every broken `.replay` log is one clear line naming the file and the line
// (exit 1, no output file left behind): no header, a second message that is
// not a snapshot, an unknown message type, a newer format version, a picker
// nobody registered, an event before the snapshot's time, a line torn in the
// middle. A torn *last* line is a warning and the rest is read. Exit codes
// and the absence of stack traces are checked through a real process.

import { Simulation } from "../../mod.ts";
import { configHash } from "../../io/replay_log.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A small recording: header, snapshot, then events with sessions, and end. */
function smallLog(): string[] {
  let text = "";
  const sim = new Simulation({ totalNodes: 4 });
  sim.startRecording({ write: (t) => void (text += t) }, { snapshotInterval: 2 });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 5, numNodes: 2, timeLimit: 10 },
  ]);
  sim.advanceTo(5);
  sim.runToCompletion();
  sim.stopRecording();
  return text.trimEnd().split("\n");
}

const LOG = smallLog();
const typeAt = (i: number) => JSON.parse(LOG[i]).type;
// The layout the cases below edit.
assertEquals(LOG.map((_, i) => typeAt(i)), [
  "header",
  "snapshot",
  "event",
  "event",
  "session",
  "session",
  "snapshot",
  "event",
  "session",
  "end",
]);

function edit(i: number, f: (m: Record<string, unknown>) => void): string[] {
  const lines = [...LOG];
  const m = JSON.parse(lines[i]);
  f(m);
  lines[i] = JSON.stringify(m);
  return lines;
}

type Config = Parameters<typeof configHash>[0] & { totalNodes: number; picker: string };
const CONFIG = JSON.parse(LOG[0]).config as Config;
const HASH = JSON.parse(LOG[0]).configHash as string;
const SECOND_SNAPSHOT = LOG.findIndex((l, i) => i > 1 && JSON.parse(l).type === "snapshot");

/** The log with its header changed by `f` (the hash left as it is unless `f` changes it). */
function editHeader(f: (h: Record<string, unknown>) => void): string[] {
  return edit(0, f);
}

/** The log with the configuration changed the same way in the header (hash and all) and every snapshot. */
function editConfig(f: (c: Config) => void): string[] {
  return LOG.map((l) => {
    const m = JSON.parse(l);
    if (m.type === "header") {
      f(m.config);
      m.configHash = configHash(m.config);
    } else if (m.type === "snapshot") f(m.state.config);
    return JSON.stringify(m);
  });
}

const BAD: { name: string; lines: string[]; line?: number; message: string; dump?: boolean }[] = [
  {
    name: "no header",
    lines: LOG.slice(1),
    line: 1,
    message: "the first message must be a header, got 'snapshot'",
  },
  {
    name: "second message not a snapshot",
    lines: [LOG[0], ...LOG.slice(2)],
    line: 2,
    message: "the second message must be a snapshot (the state to start from), got 'event'",
  },
  {
    name: "unknown message type",
    lines: [...LOG.slice(0, 3), '{"type":"checkpoint","version":1}', ...LOG.slice(3)],
    line: 4,
    message: "unknown message type 'checkpoint' (expected header, snapshot, event, session, end)",
  },
  {
    name: "newer format version",
    lines: edit(2, (m) => (m.version = 2)),
    line: 3,
    message: "event: version 2 is newer than this program reads (1); upgrade evtsim",
  },
  {
    name: "picker nobody registered",
    lines: editConfig((c) => (c.picker = "nope")),
    line: 1,
    message:
      "unknown picker 'nope': the log names no policy module; give --policy_module FILE that exports it",
    dump: false,
  },
  {
    name: "event before the snapshot's time",
    lines: edit(7, (m) => (m.time = 1)),
    line: 8,
    message: "event at time 1 is before the time 5 of the snapshot at line 7",
  },
  {
    name: "torn middle line",
    lines: [...LOG.slice(0, 3), LOG[3].slice(0, 20), ...LOG.slice(4)],
    line: 4,
    message: "not a JSON message (a line torn in the middle of the file)",
  },
  {
    name: "a field of the wrong type",
    lines: edit(2, (m) => ((m.input as { jobs: { rows: unknown[][] } }).jobs.rows[1][1] = "2")),
    line: 3,
    message: "event: input.jobs.rows.1.1: numNodes: expected a node count",
  },
  {
    name: "an unknown field",
    lines: edit(4, (m) => (m.wall = 3)),
    line: 5,
    message: "session: wall: unknown field",
  },
  {
    name: "a session before any event",
    lines: [LOG[0], LOG[1], LOG[4], ...LOG.slice(2, 4), ...LOG.slice(5)],
    line: 3,
    message: "a session before any event (a session follows the event that ran it)",
  },
  {
    name: "a gap in the event sequence",
    lines: [...LOG.slice(0, 2), ...LOG.slice(3)],
    line: 3,
    message: "event seq 1: expected 0",
  },
  {
    name: "a message after the end",
    lines: [...LOG, LOG[2]],
    line: 11,
    message: "'event' after the end message (line 10)",
  },
  { name: "an empty file", lines: [], message: "empty file: a log starts with a header" },
  {
    name: "the header's config edited, its hash not",
    lines: editHeader((h) => (h.config as Config).totalNodes = 64),
    line: 1,
    message: `header: configHash ${HASH} is not the hash of the header's config (${
      configHash({ ...CONFIG, totalNodes: 64 })
    }): the config or the hash was edited`,
  },
  {
    name: "the header's config and hash edited, the snapshot's config not",
    lines: editHeader((h) => {
      (h.config as Config).totalNodes = 64;
      h.configHash = configHash(h.config as Config);
    }),
    line: 2,
    message: "snapshot: state.config.totalNodes is 4 but the header (line 1) says 64",
  },
  {
    name: "a later snapshot's config differs from the header's",
    lines: edit(SECOND_SNAPSHOT, (m) => ((m.state as { config: Config }).config.totalNodes = 2)),
    line: SECOND_SNAPSHOT + 1,
    message: "snapshot: state.config.totalNodes is 2 but the header (line 1) says 4",
  },
  {
    name: "the header's start time differs from the first snapshot's time",
    lines: editHeader((h) => (h.startTime = 3)),
    line: 2,
    message: "snapshot: time 0 is not the header's start time 3 (line 1)",
  },
];

for (const c of BAD) {
  Deno.test(`bad log: ${c.name} → one line with file:line, exit 1, no output`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-badlog-" });
    const file = `${dir}/bad.replay`;
    await Deno.writeTextFile(file, c.lines.map((l) => l + "\n").join(""));
    const where = c.line === undefined ? `${file}: ` : `${file}:${c.line}: `;
    const commands = [["replay", file, "--verify", "--output", `${dir}/out.replay`]];
    if (c.dump !== false) commands.push(["dump", file]);
    for (const args of commands) {
      const r = await runCli(args);
      assertEquals(r.code, 1, `${args[0]}: ${r.out.join("\n")}`);
      assertEquals(r.err, [`evtsim: ${where}${c.message}`]);
    }
    assert(!(await Deno.stat(`${dir}/out.replay`).catch(() => false)), "an output was left");
    const leftovers = [...Deno.readDirSync(dir)].map((e) => e.name);
    assertEquals(leftovers, ["bad.replay"]);
    await Deno.remove(dir, { recursive: true });
  });
}

Deno.test("bad log: a torn last line is a warning and the rest is read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-badlog-" });
  const file = `${dir}/torn.replay`;
  // The recording was cut while writing its end message: no newline, half a line.
  await Deno.writeTextFile(file, LOG.slice(0, -1).join("\n") + "\n" + LOG.at(-1)!.slice(0, 9));
  const r = await runCli(["replay", file, "--verify"]);
  assertEquals(r.code, 0, r.err.join("\n"));
  assertEquals(r.err, [
    `${file}:10: warning: the last line is cut off (a torn write); it is ignored and the rest is read`,
  ]);
  assert(r.out.join("\n").includes("verify: every decision matches the recording"));
  const d = await runCli(["dump", file]);
  assertEquals(d.code, 0);
  assert(!d.out.join("\n").includes("\nend"), "the torn end message is not dumped");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("bad alt-events file: an event before the start snapshot's time names the alt file's line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-badlog-" });
  await Deno.writeTextFile(`${dir}/base.replay`, LOG.join("\n") + "\n");
  const alt = [
    JSON.stringify({ type: "event", version: 1, seq: 0, time: 0, input: { kind: "flush" } }),
    JSON.stringify({ type: "event", version: 1, seq: 0, time: -3, input: { kind: "flush" } }),
  ];
  await Deno.writeTextFile(`${dir}/alt.replay`, alt.join("\n") + "\n");
  const r = await runCli(["replay", `${dir}/base.replay`, "--alt_events", `${dir}/alt.replay`]);
  assertEquals(r.code, 1);
  assertEquals(r.err, [
    `evtsim: ${dir}/alt.replay:2: event at time -3 goes back (the event at line 1 is at 0)`,
  ]);
  // An alternative event that cannot apply is located in its file too.
  const cancel = JSON.stringify({
    type: "event",
    version: 1,
    seq: 2,
    time: 5,
    input: { kind: "cancelJob", id: 7 },
  });
  await Deno.writeTextFile(`${dir}/alt.replay`, [...LOG.slice(2, 4), cancel].join("\n") + "\n");
  const r2 = await runCli(["replay", `${dir}/base.replay`, "--alt_events", `${dir}/alt.replay`]);
  assertEquals(r2.code, 1);
  assertEquals(r2.err, [
    `evtsim: ${dir}/alt.replay:3: event seq 2 (cancelJob): cannot cancel job 7: no such job`,
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("bad command lines: one usage line each", async () => {
  const schedule = await Deno.makeTempFile({ suffix: ".csv" });
  await Deno.writeTextFile(
    schedule,
    "job_submit_time,num_nodes,time_limit,begin_time,end_time\n0,1,10,0,5\n",
  );
  const cases: [string[], string][] = [
    [
      ["simulate", schedule, "--record", `${schedule}.replay`],
      "--record needs a simulation trace: a trace with begin_time and end_time replays a recorded schedule",
    ],
    [["replay"], "no log file given"],
    [["replay", "a.replay", "b.replay"], "unexpected arguments: b.replay"],
    [["replay", "x.replay", "--speed", "-1"], "option '--speed' has a value starting with '-'"],
    [["replay", "x.replay", "--speed=-1"], "--speed must be >= 0, got -1"],
    [["replay", "x.replay", "--start_time", "soon"], "--start_time expects a number, got 'soon'"],
    [["replay", "x.replay", "--frobnicate"], "unknown option '--frobnicate'"],
    [["replay", "/nonexistent/x.replay"], "/nonexistent/x.replay: cannot read"],
    [["dump"], "no log file given"],
    [
      ["simulate", `${ROOT}examples/demo_trace.csv`, "--snapshot_interval", "5"],
      "--snapshot_interval needs --record FILE",
    ],
    [
      ["simulate", `${ROOT}examples/demo_trace.csv`, "--from_snapshot", "x.json", "-b", "none"],
      "--from_snapshot continues with the snapshot's configuration; drop --backfill_policy",
    ],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assertEquals(r.code, 1, args.join(" "));
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(r.err[0].includes(message), `${args.join(" ")}: ${r.err[0]}`);
  }
  await Deno.remove(schedule);
});

// ---- through a real process: exit codes, no stack traces -----------------------

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      `${ROOT}cli/main.ts`,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

Deno.test("process: replay --verify exits 3 on a mismatch and 1 on a broken log, without a stack trace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-proc-" });
  // The recorded session at 5 says job 0 waits; the scheduler pends job 1 (job 0 runs).
  const changed = [...LOG];
  changed[5] = changed[5].replace('["PEND",1,', '["PEND",0,');
  await Deno.writeTextFile(`${dir}/changed.replay`, changed.join("\n") + "\n");
  const m = await run(["replay", `${dir}/changed.replay`, "--verify"]);
  assertEquals(m.code, 3, m.err);
  assertEquals(m.err, "");
  assert(
    /^mismatch at t=5 job 0\/1 \(event #1, .*changed\.replay:4, decision 2\): recorded: t=5 round=\d+ PEND job=0 .*; re-simulated: t=5 round=\d+ PEND job=1 /m
      .test(m.out),
    m.out,
  );
  assert(m.out.includes("verify: 1 decision(s) differ from the recording"), m.out);

  const torn = [...LOG.slice(0, 3), LOG[3].slice(0, 20), ...LOG.slice(4)];
  await Deno.writeTextFile(`${dir}/torn.replay`, torn.join("\n") + "\n");
  const t = await run(["replay", `${dir}/torn.replay`, "--verify"]);
  assertEquals(t.code, 1);
  assertEquals(
    t.err,
    `evtsim: ${dir}/torn.replay:4: not a JSON message (a line torn in the middle of the file)\n`,
  );
  const help = await run(["replay", "--help"]);
  assertEquals(help.code, 0);
  assert(help.out.includes("Not the same as a replay of a recorded *schedule*"), help.out);
  await Deno.remove(dir, { recursive: true });
});

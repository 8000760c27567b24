// `evtsim simulate --record`, `evtsim replay` and `evtsim dump` through the
// command line: record → replay --verify, byte-identical re-simulation logs,
// the what-if workflow of docs/recording.md, --start_time, --speed, --picker and
// --queues, `simulate --from_snapshot`, and one clear error line (exit 1, no
// output file left) for every bad log. The exit codes and the absence of
// stack traces are checked through a real process.

import { parseLog } from "../../io/replay_reader.ts";
import { advanceTo, appendJobs, initialState, saveSnapshot, step } from "../../mod.ts";
import { readTrace } from "../../io/trace_csv.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const QUEUES = `${ROOT}examples/demo_queues.yaml`;

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "evtsim-replay-" });
}

/** Records the queued demo run into `dir/base.replay`; returns its path. */
async function recordDemo(dir: string, extra: string[] = []): Promise<string> {
  const log = `${dir}/base.replay`;
  const r = await cli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "--queues",
    QUEUES,
    "-o",
    `${dir}/base.csv`,
    "--no_progress",
    "--record",
    log,
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  assert(r.out.some((l) => l.startsWith(`Replay log written to: ${log}`)), r.out.join("\n"));
  return log;
}

/** Runs the CLI; its stdout and stderr split into lines. */
async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const r = await runCli(args);
  return {
    code: r.code,
    out: r.out.join("\n").split("\n").filter((l, i, a) => l !== "" || i < a.length - 1),
    err: r.err.join("\n").split("\n").filter((l) => l !== ""),
  };
}

async function dump(path: string, ...options: string[]): Promise<string[]> {
  const r = await cli(["dump", ...options, path]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return r.out;
}

/** `diff A B` of two dumps (docs/recording.md's workflow): its < and > lines. */
async function diffDumps(
  dir: string,
  a: string,
  b: string,
  ...options: string[]
): Promise<string[]> {
  await Deno.writeTextFile(`${dir}/a.txt`, (await dump(a, ...options)).join("\n") + "\n");
  await Deno.writeTextFile(`${dir}/b.txt`, (await dump(b, ...options)).join("\n") + "\n");
  const r = await new Deno.Command("diff", { args: [`${dir}/a.txt`, `${dir}/b.txt`] }).output();
  return new TextDecoder().decode(r.stdout).split("\n").filter((l) => /^[<>]/.test(l));
}

Deno.test("CLI: simulate --record, replay --verify, two re-simulations write the same bytes, dumps equal", async () => {
  const dir = await tempDir();
  const log = await recordDemo(dir, ["--snapshot_interval", "700"]);
  const v = await cli(["replay", log, "--verify"]);
  assertEquals(v.code, 0, v.err.join("\n"));
  assert(v.out.includes("verify: every decision matches the recording"), v.out.join("\n"));
  assert(/^replayed \d+ events .*: \d+ sessions, \d+ decisions$/.test(v.out.at(-2)!), v.out.at(-2));
  for (const out of ["a.replay", "b.replay"]) {
    const r = await cli(["replay", log, "--output", `${dir}/${out}`]);
    assertEquals(r.code, 0, r.err.join("\n"));
  }
  const a = await Deno.readTextFile(`${dir}/a.replay`);
  assert(a === await Deno.readTextFile(`${dir}/b.replay`), "re-simulation logs differ");
  assertEquals(await dump(`${dir}/a.replay`), await dump(log));
  // The re-simulation's own log is a log: it verifies against itself.
  assertEquals((await cli(["replay", `${dir}/a.replay`, "--verify"])).code, 0);
  // Without --verify or --output the re-simulation is printed as dump prints it.
  const printed = await cli(["replay", log]);
  assertEquals(printed.out.slice(0, -1), await dump(log));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI what-if: raise a queue's priority in an alt-events file; the dumps differ only in decisions", async () => {
  const dir = await tempDir();
  const log = await recordDemo(dir);
  // The alternative stream: the recording with one more event, a queue update at 50000.
  const lines = (await Deno.readTextFile(log)).trimEnd().split("\n");
  const at = lines.findIndex((l) => l.includes('"kind":"appendJobs"'));
  const append = JSON.parse(lines[at]);
  const raise = {
    type: "event",
    version: 1,
    seq: append.seq,
    time: append.time,
    input: { kind: "updateQueue", queue: { name: "pdebug", priority: 10 }, time: 50000 },
  };
  lines.splice(at + 1, 0, JSON.stringify(raise));
  await Deno.writeTextFile(`${dir}/whatif.replay`, lines.join("\n") + "\n");
  const r = await cli([
    "replay",
    log,
    "--alt_events",
    `${dir}/whatif.replay`,
    "--output",
    `${dir}/whatif_out.replay`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const diff = await diffDumps(dir, log, `${dir}/whatif_out.replay`);
  const inserted = `> event updateQueue {"queue":{"name":"pdebug","priority":10},"time":50000}`;
  const decisions = diff.filter((l) => /^[<>] {3}t=\d+ round=\d+ (DISPATCH|PEND) job=\d+/.test(l));
  assert(decisions.length > 10, `only ${decisions.length} decision lines differ`);
  // Apart from the inserted event itself, every line that differs is a decision line.
  assertEquals(diff.filter((l) => !decisions.includes(l)), [inserted]);
  // `dump --decisions` leaves the events out: its diff is decision lines and nothing else.
  const onlyDecisions = await diffDumps(dir, log, `${dir}/whatif_out.replay`, "--decisions");
  assert(onlyDecisions.length > 10, `only ${onlyDecisions.length} lines differ`);
  for (const l of onlyDecisions) {
    assert(/^[<>] t=\d+ round=\d+ (DISPATCH|PEND) job=\d+/.test(l), `not a decision line: ${l}`);
  }
  // The same decision lines (diff may group them otherwise when event lines sit between them).
  assertEquals(onlyDecisions.map((l) => l.replace(/^([<>]) /, "$1   ")).sort(), decisions.sort());
  // The edited file's own sessions are the old decisions: --verify shows what moved.
  const v = await cli(["replay", log, "--alt_events", `${dir}/whatif.replay`, "--verify"]);
  assertEquals(v.code, 3);
  assert(v.out.some((l) => l.startsWith("mismatch at t=")), v.out.join("\n"));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI: --start_time, --speed, --picker, --queues, --backfill_policy", async () => {
  const dir = await tempDir();
  const log = await recordDemo(dir, ["--snapshot_interval", "700"]);
  const snaps = parseLog(await Deno.readTextFile(log), log).entries.filter((e) =>
    e.type === "snapshot"
  );
  const events = parseLog(await Deno.readTextFile(log), log).entries.filter((e) =>
    e.type === "event"
  );
  // The first snapshot, and one after every 700 events.
  assertEquals(snaps.length, 1 + Math.floor(events.length / 700));
  const last = snaps[snaps.length - 1];
  const fromLast = await cli(["replay", log, "--verify", "--start_time", `${last.time}`]);
  assertEquals(fromLast.code, 0, fromLast.err.join("\n"));
  assert(
    fromLast.out.some((l) => l.includes(`(seq ${last.seq}, ${log}:${last.line})`)),
    fromLast.out[0],
  );
  const before = await cli(["replay", log, "--start_time=-1"]);
  assertEquals(before.code, 1);
  assert(before.err[0].includes("no snapshot at or before time -1"), before.err[0]);

  // Pacing never changes a decision.
  await cli(["replay", log, "--output", `${dir}/fast.replay`]);
  const paced = await cli(["replay", log, "--speed", "1e9", "--output", `${dir}/paced.replay`]);
  assertEquals(paced.code, 0, paced.err.join("\n"));
  assert(
    await Deno.readTextFile(`${dir}/fast.replay`) ===
      await Deno.readTextFile(`${dir}/paced.replay`),
    "--speed changed the re-simulation",
  );

  // Another policy: the output's header names it, and that log verifies against itself.
  await Deno.writeTextFile(
    `${dir}/q.yaml`,
    "queues:\n  - name: pdebug\n    priority: 5\n  - name: pbatch\n",
  );
  const other = await cli([
    "replay",
    log,
    "--picker",
    "sjf",
    "--backfill_policy",
    "conservative",
    "--queues",
    `${dir}/q.yaml`,
    "--output",
    `${dir}/sjf.replay`,
  ]);
  assertEquals(other.code, 0, other.err.join("\n"));
  const header = (await dump(`${dir}/sjf.replay`))[0];
  assert(header.includes("picker=sjf admission=conservative"), header);
  assert(header.includes("queues=pdebug:5,pbatch:0"), header);
  assertEquals((await cli(["replay", `${dir}/sjf.replay`, "--verify"])).code, 0);
  const unknown = await cli(["replay", log, "--picker", "nobody_registered_this"]);
  assertEquals(unknown.code, 1);
  assert(unknown.err[0].includes("unknown picker 'nobody_registered_this'"), unknown.err[0]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI: simulate --from_snapshot continues the run the snapshot was taken from", async () => {
  const dir = await tempDir();
  const full = await cli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "-o",
    `${dir}/full.csv`,
    "--no_progress",
  ]);
  assertEquals(full.code, 0, full.err.join("\n"));
  // A snapshot of the same run after its first 700 jobs, taken through the library.
  const { jobs } = await readTrace(TRACE, {
    format: "simple",
    timezone: "UTC",
    maxJobs: 0,
    requireActualRunTime: true,
    requireSorted: false,
  });
  const appended = step(initialState({ totalNodes: 128 }), appendJobs(jobs.slice(0, 700)));
  const advanced = step(appended.state, advanceTo(jobs[700].submitTime - 1));
  // Flushed: the rows of the jobs finished by then are written before the snapshot
  // (some already by the steps before it).
  const flushed = step(advanced.state, { kind: "flush" });
  const s = flushed.state;
  const written = appended.rows.jobs.length + advanced.rows.jobs.length +
    flushed.rows.jobs.length;
  assert(written > 100, `only ${written} rows written before the snapshot`);
  await Deno.writeTextFile(`${dir}/snap.json`, JSON.stringify(saveSnapshot(s)));
  const cont = await cli([
    "simulate",
    TRACE,
    "--from_snapshot",
    `${dir}/snap.json`,
    "-o",
    `${dir}/cont.csv`,
    "--no_progress",
  ]);
  assertEquals(cont.code, 0, cont.err.join("\n"));
  // The statistics of the whole run (wall times aside), and every row not yet written.
  const stats = (r: { out: string[] }) => r.out.filter((l) => !/time|written/i.test(l));
  assertEquals(stats(cont), stats(full));
  const rows = async (p: string) => (await Deno.readTextFile(p)).trimEnd().split("\n");
  const fullRows = await rows(`${dir}/full.csv`);
  const contRows = await rows(`${dir}/cont.csv`);
  // The continued run writes every row the snapshot had not written yet: the full run's tail.
  assertEquals(contRows.slice(1), fullRows.slice(1 + written));
  // A .replay log works too (its last snapshot): here the initial state.
  const log = await recordDemo(dir, ["--snapshot_interval", "0"]);
  const fromLog = await cli([
    "simulate",
    TRACE,
    "--from_snapshot",
    log,
    "-o",
    `${dir}/fromlog.csv`,
    "--no_progress",
  ]);
  assertEquals(fromLog.code, 0, fromLog.err.join("\n"));
  assertEquals(await rows(`${dir}/fromlog.csv`), await rows(`${dir}/base.csv`));
  // Options that change the configuration are refused with a snapshot.
  const refused = await cli(["simulate", TRACE, "--from_snapshot", log, "-n", "64"]);
  assertEquals(refused.code, 1);
  assert(refused.err[0].includes("drop --total_nodes"), refused.err[0]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CLI replay --verify: a DISPATCH whose backfill flag was edited is a mismatch", async () => {
  // The only other mismatch test edits a PEND; a verifier that compared a
  // DISPATCH by job and nodes alone would pass an edited backfill flag.
  const dir = await tempDir();
  const log = await recordDemo(dir);
  const text = await Deno.readTextFile(log);
  const flagged = /\["DISPATCH",(\d+),(\d+),"backfill"\]/.exec(text);
  assert(flagged !== null, "the demo run backfills");
  await Deno.writeTextFile(
    `${dir}/edited.replay`,
    text.replace(flagged[0], `["DISPATCH",${flagged[1]},${flagged[2]}]`),
  );
  const same = await cli(["replay", log, "--verify"]);
  assertEquals(same.code, 0, same.out.join("\n"));
  const v = await cli(["replay", `${dir}/edited.replay`, "--verify"]);
  assertEquals(v.code, 3, v.out.join("\n"));
  const line = v.out.find((l) => l.startsWith("mismatch at t="));
  assert(line !== undefined && line.includes(`job ${flagged[1]}`), v.out.join("\n"));
  await Deno.remove(dir, { recursive: true });
});

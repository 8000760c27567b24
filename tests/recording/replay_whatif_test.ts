// What-if as a command (issue 27 item 3): `replay LOG --alt_events F` or
// with another picker / admission policy prints both runs' statistics side
// by side and the first divergence; `--verify` prints the first mismatch and
// the count, and after a divergence it leaves the round numbers out (one
// extra round no longer makes every later decision a mismatch).

import { runCliLines } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const QUEUES = `${ROOT}examples/demo_queues.yaml`;

const cli = runCliLines;

/** `simulate` of the demo (with `extra` options): its statistics lines. */
async function simulate(dir: string, name: string, extra: string[]): Promise<string[]> {
  const r = await cli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "--queues",
    QUEUES,
    "-o",
    `${dir}/${name}.csv`,
    "--no_progress",
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return r.out;
}

/** The figure `simulate` prints after `label` (e.g. "Average wait time: "). */
function figure(lines: string[], label: string): number {
  const l = lines.find((x) => x.includes(label));
  assert(l !== undefined, `no '${label}' in\n${lines.join("\n")}`);
  return Number(/(-?[\d.]+)/.exec(l.slice(l.indexOf(label) + label.length))![1]);
}

/** The what-if table's row `name`: [recorded, what-if]. */
function row(lines: string[], name: string): [number, number] {
  const l = lines.find((x) => x.startsWith(`${name}  `));
  assert(l !== undefined, `no row '${name}' in\n${lines.join("\n")}`);
  const cells = l.slice(name.length).trim().split(/\s+/).map(Number);
  return [cells[0], cells[1]];
}

/** The log with `input` inserted as an event after its first append. */
async function withEvent(log: string, out: string, input: unknown): Promise<string> {
  const lines = (await Deno.readTextFile(log)).trimEnd().split("\n");
  const at = lines.findIndex((l) => l.includes('"kind":"appendJobs"'));
  const append = JSON.parse(lines[at]);
  const event = { type: "event", version: 1, seq: append.seq, time: append.time, input };
  lines.splice(at + 1, 0, JSON.stringify(event));
  await Deno.writeTextFile(out, lines.join("\n") + "\n");
  return out;
}

function close(a: number, b: number, digits: number): boolean {
  return Math.abs(a - b) <= 10 ** -digits;
}

Deno.test("what-if: statistics of both runs side by side and the first divergence, not a decision diff", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-whatif-" });
  try {
    const base = await simulate(dir, "base", ["--record", `${dir}/base.replay`]);
    const log = `${dir}/base.replay`;

    // Another policy: the what-if column is what simulate gives under it.
    const sjf = await simulate(dir, "sjf", ["--picker", "sjf", "-b", "conservative"]);
    const other = await cli([
      "replay",
      log,
      "--picker",
      "sjf",
      "--admission",
      "conservative",
    ]);
    assertEquals(other.code, 0, other.err.join("\n"));
    assert(other.out.length < 20, `${other.out.length} lines: a what-if prints a table`);
    assert(other.out[0].startsWith("replayed "), other.out[0]);
    assertEquals(other.out[1].trim().split(/\s+/), ["recorded", "what-if"]);
    for (
      const [name, label, digits] of [
        ["jobs", "Total jobs: ", 0],
        ["jobs completed", "Jobs completed: ", 0],
        ["average wait (s)", "Average wait time: ", 1],
        ["maximum wait (s)", "Maximum wait time: ", 0],
        ["average bounded slowdown", "Average bounded slowdown (tau=10 s): ", 3],
        ["utilization", "Utilization: ", 6],
        ["makespan (s)", "Makespan: ", 0],
      ] as const
    ) {
      const [recorded, whatIf] = row(other.out, name);
      assert(close(recorded, figure(base, label), digits), `${name}: ${recorded} recorded`);
      assert(close(whatIf, figure(sjf, label), digits), `${name}: ${whatIf} under sjf`);
    }
    const first = other.out.find((l) => l.startsWith("first divergence at t="));
    assert(
      first !== undefined &&
        /^first divergence at t=\d+ job \d+(\/\d+)?: recorded: t=\d+ round=\d+ (DISPATCH|PEND) job=\d+.*; what-if: t=\d+ round=\d+ (DISPATCH|PEND) job=\d+/
          .test(first),
      first,
    );

    // Another event stream: a queue's priority raised at 50000; the runs part at 50000.
    const alt = await withEvent(log, `${dir}/whatif.replay`, {
      kind: "updateQueue",
      queue: { name: "pdebug", priority: 10 },
      time: 50000,
    });
    const w = await cli(["replay", log, "--alt_events", alt, "--output", `${dir}/out.replay`]);
    assertEquals(w.code, 0, w.err.join("\n"));
    assert(w.out.some((l) => l.startsWith("first divergence at t=50000 job ")), w.out.join("\n"));
    assert(row(w.out, "average wait (s)")[1] < row(w.out, "average wait (s)")[0], "pdebug first");
    assertEquals(w.out.at(-1), `Re-simulation log written to: ${dir}/out.replay`);

    // An event that changes nothing but adds a round: no divergence (rounds are not compared).
    const same = await withEvent(log, `${dir}/same.replay`, {
      kind: "updateQueue",
      queue: { name: "pbatch" },
      time: 1001,
    });
    const s = await cli(["replay", log, "--alt_events", same]);
    assertEquals(s.code, 0, s.err.join("\n"));
    assertEquals(s.out.at(-1), "no divergence: the what-if makes every recorded decision");
    assertEquals(row(s.out, "average wait (s)")[0], row(s.out, "average wait (s)")[1]);

    // --verify on it: the one round-shifted decision is the first mismatch, and the only one.
    const v = await cli(["replay", log, "--alt_events", same, "--verify"]);
    assertEquals(v.code, 3);
    assertEquals(v.out.filter((l) => l.startsWith("mismatch at ")).length, 1, v.out.join("\n"));
    assert(
      /^mismatch at t=\d+ job \d+ .*recorded: t=\d+ round=(\d+) .*re-simulated: t=\d+ round=/
        .test(v.out[0]),
      v.out[0],
    );
    assertEquals(
      v.out.at(-1),
      "verify: 1 decision(s) differ from the recording (the first above; rounds not compared after it)",
    );
    // A real change: the first mismatch, then the count.
    const moved = await cli(["replay", log, "--alt_events", alt, "--verify"]);
    assertEquals(moved.code, 3);
    assertEquals(moved.out.filter((l) => l.startsWith("mismatch at ")).length, 1);
    const n = Number(/^verify: (\d+) decision/.exec(moved.out.at(-1)!)![1]);
    assert(n > 1, moved.out.at(-1));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs: the alt-events table has every input kind, each with an example the reader accepts", async () => {
  const { InputSchema } = await import("../../io/replay_schema.ts");
  const readme = await Deno.readTextFile(`${ROOT}docs/recording.md`);
  const from = readme.indexOf("#### The alt-events file");
  const section = readme.slice(from, readme.indexOf("\n### ", from));
  const rows = section.split("\n").filter((l) =>
    /^\| `[a-zA-Z]+` +\|/.test(l) && !l.startsWith("| `kind`")
  );
  const kinds = InputSchema.options.map((o) => o.shape.kind.value);
  assertEquals(rows.map((r) => /^\| `([a-zA-Z]+)`/.exec(r)![1]), kinds);
  for (const r of rows) {
    const example = /`(\{"kind".*\})` *\|$/.exec(r);
    assert(example !== null, `no example in ${r}`);
    const parsed = InputSchema.safeParse(JSON.parse(example[1]));
    assert(parsed.success, `${example[1]}: ${parsed.error?.message}`);
  }
});

// The open core through the command: --picker, --admission, --policy_module,
// --queues and --decisions, through real processes, with their bad inputs
// (one line, exit 1, no output left behind).

import { ROOT, runCli, runCliProcess } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const TRACE = "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n" +
  "0,4,batch,100,100\n" +
  "1,4,batch,100,100\n" +
  "2,4,debug,10,10\n" +
  "3,1,batch,10,10\n";

/** A test run in a fresh folder holding t.csv and q.yaml, removed after it. */
function inWorkspace(test: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-open-core-" });
    try {
      await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
      await Deno.writeTextFile(
        `${dir}/q.yaml`,
        "queues:\n  - name: batch\n  - name: debug\n    priority: 5\n    max_running: 1\n",
      );
      await test(dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
}

const schedule = async (path: string) =>
  (await Deno.readTextFile(path)).trim().split("\n").slice(1).map((l) => l.split(",")[1]);

Deno.test(
  "cli: --queues puts the debug queue first; --decisions writes JSON Lines with reasons",
  inWorkspace(async (d) => {
    const r = await runCliProcess([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "4",
      "-b",
      "none",
      "--queues",
      `${d}/q.yaml`,
      "--decisions",
      `${d}/d.jsonl`,
      "-o",
      `${d}/s.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    // Job 2 (debug, priority 5) starts at 100, before job 1 (batch), which then waits until 110.
    assertEquals(await schedule(`${d}/s.csv`), ["0", "110", "100", "210"]);
    const decisions = (await Deno.readTextFile(`${d}/d.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assertEquals(decisions[0], {
      type: "DISPATCH",
      time: 0,
      round: 1,
      jobId: 0,
      numNodes: 4,
      backfill: false,
      queue: "batch",
    });
    const pend = decisions.find((x) => x.type === "PEND" && x.jobId === 1);
    assertEquals(pend.reason.code, "insufficient_nodes");
    assertEquals(pend.reason.message, "needs 4 nodes, 0 free");
    assert(r.out.some((l) => l === `Decisions written to: ${d}/d.jsonl`));
    // Without --queues the same trace is plain FCFS.
    const plain = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "4",
      "-b",
      "none",
      "-o",
      `${d}/p.csv`,
    ]);
    assertEquals(plain.code, 0);
    assertEquals(await schedule(`${d}/p.csv`), ["0", "100", "200", "210"]);
  }),
);

Deno.test(
  "cli: a picker from --policy_module runs by name; --picker sjf orders by limit",
  inWorkspace(async (d) => {
    await Deno.writeTextFile(
      `${d}/largest.ts`,
      `import { orderedPicker } from "${ROOT}mod.ts";\n` +
        `export const pickers = [orderedPicker({ name: "largest_first", ` +
        `compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id })];\n`,
    );
    const r = await runCliProcess([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "4",
      "-b",
      "none",
      "--policy_module",
      `${d}/largest.ts`,
      "--picker",
      "largest_first",
      "-o",
      `${d}/s.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    // At 100 the 4-node jobs 1 and 2 go before the 1-node job 3.
    assertEquals(await schedule(`${d}/s.csv`), ["0", "100", "200", "210"]);
    const sjf = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "4",
      "--picker",
      "sjf",
      "-b",
      "none",
      "-o",
      `${d}/j.csv`,
    ]);
    assertEquals(sjf.code, 0, sjf.err.join("\n"));
  }),
);

Deno.test(
  "cli: bad pickers, admissions, modules and queue files are one line, exit 1, no output",
  inWorkspace(async (d) => {
    await Deno.writeTextFile(`${d}/half.ts`, `export const pickers = [{ name: "half" }];\n`);
    await Deno.writeTextFile(`${d}/dup.yaml`, "queues:\n  - name: a\n  - name: a\n");
    await Deno.writeTextFile(`${d}/neg.yaml`, "queues:\n  - name: a\n    max_running: -1\n");
    await Deno.writeTextFile(`${d}/two.yaml`, "queues:\n  - name: batch\n---\nqueues: []\n");
    await Deno.writeTextFile(`${d}/typo.yaml`, "queues:\n  - name: batch\n    priorty: 2\n");
    await Deno.writeTextFile(`${d}/pick.yaml`, "queues:\n  - name: batch\n    picker: nope\n");
    const cases: [string[], string][] = [
      [
        ["--picker", "nope"],
        "evtsim: unknown picker 'nope' (registered: builtin_fcfs, fairshare, ljf, sjf)",
      ],
      [
        ["--admission", "greedy"],
        "evtsim: unknown backfill policy 'greedy' (registered: conservative, conservative_profile, conservative_profile_no_compression, easy, easy_extra, none)",
      ],
      [["--policy_module", `${d}/half.ts`], `evtsim: ${d}/half.ts: pickers[0] is neither a picker`],
      [
        ["--policy_module", `${d}/missing.ts`],
        `evtsim: ${d}/missing.ts: cannot load the policy module`,
      ],
      [
        ["--queues", `${d}/dup.yaml`],
        `evtsim: ${d}/dup.yaml:3: queue 1 (a): name: duplicate queue name`,
      ],
      [
        ["--queues", `${d}/neg.yaml`],
        `evtsim: ${d}/neg.yaml:3: queue 0 (a): max_running: expected a non-negative integer`,
      ],
      [
        ["--queues", `${d}/two.yaml`],
        `evtsim: ${d}/two.yaml:3: a second YAML document is not supported`,
      ],
      [
        ["--queues", `${d}/typo.yaml`],
        `evtsim: ${d}/typo.yaml:3: queue 0 (batch): priorty: unknown field`,
      ],
      [
        ["--queues", `${d}/pick.yaml`],
        `evtsim: ${d}/pick.yaml:3: queue 0 (batch): picker: unknown picker 'nope'`,
      ],
      [["--queues", `${d}/q.yaml`, "--decisions", `${d}/t.csv`], "--decisions"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["simulate", `${d}/t.csv`, "-n", "4", ...args, "-o", `${d}/out.csv`]);
      assertEquals(r.code, 1, `${args.join(" ")}: ${r.out.join("\n")}`);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(
        r.err[0].startsWith(message) || r.err[0].includes(message),
        `${r.err[0]} vs ${message}`,
      );
      for (const leftover of ["out.csv", "out_resources.csv"]) {
        const exists = await Deno.stat(`${d}/${leftover}`).then(() => true, () => false);
        assert(!exists, `${leftover} left behind after ${args.join(" ")}`);
      }
    }
    assertEquals(await Deno.readTextFile(`${d}/t.csv`), TRACE); // --decisions never overwrote the trace
  }),
);

Deno.test(
  "cli: a trace's priority column orders jobs within a queue; a job naming an undefined queue is an error at its line",
  inWorkspace(async (d) => {
    await Deno.writeTextFile(
      `${d}/p.csv`,
      "job_submit_time,num_nodes,queue,priority,time_limit,actual_run_time\n" +
        "0,4,batch,0,10,10\n1,4,batch,0,10,10\n2,4,batch,5,10,10\n",
    );
    const ok = await runCli([
      "simulate",
      `${d}/p.csv`,
      "-n",
      "4",
      "-b",
      "none",
      "-o",
      `${d}/s.csv`,
    ]);
    assertEquals(ok.code, 0, ok.err.join("\n"));
    assertEquals(await schedule(`${d}/s.csv`), ["0", "20", "10"]);
    await Deno.writeTextFile(`${d}/g.csv`, TRACE.replace("2,4,debug", "2,4,gpu"));
    const bad = await runCliProcess([
      "simulate",
      `${d}/g.csv`,
      "-n",
      "4",
      "--queues",
      `${d}/q.yaml`,
      "-o",
      `${d}/x.csv`,
    ]);
    assertEquals(bad.code, 1);
    assertEquals(bad.err, [
      `evtsim: ${d}/g.csv:4: queue: unknown queue 'gpu' (defined: batch, debug)`,
    ]);
    await Deno.writeTextFile(
      `${d}/n.csv`,
      "job_submit_time,num_nodes,priority,time_limit\n0,4,1.5,10\n",
    );
    const frac = await runCli(["simulate", `${d}/n.csv`, "-n", "4", "-o", `${d}/y.csv`]);
    assertEquals(frac.code, 1);
    assert(
      frac.err.at(-1)!.endsWith(`n.csv:2: priority: expected an integer, got '1.5'`),
      frac.err.join("\n"),
    );
  }),
);

Deno.test(
  "cli: --decisions_detail all pends every waiting job; heads only the examined ones",
  inWorkspace(async (d) => {
    const run = async (detail: string[]) => {
      const r = await runCli([
        "simulate",
        `${d}/t.csv`,
        "-n",
        "4",
        "-b",
        "none",
        "--decisions",
        `${d}/d.jsonl`,
        ...detail,
        "-o",
        `${d}/s.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      return (await Deno.readTextFile(`${d}/d.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    };
    const heads = await run([]);
    const all = await run(["--decisions_detail", "all"]);
    const behind = (rows: { type: string; jobId: number; reason?: { code: string } }[]) =>
      rows.filter((x) => x.type === "PEND" && x.reason?.code === "behind_head").map((x) => x.jobId);
    // Without backfilling, jobs 2 and 3 wait behind the blocked head: only "all" says so.
    assertEquals([behind(heads), behind(all)], [[], [2, 3]]);
    const dispatches = (rows: { type: string }[]) =>
      JSON.stringify(rows.filter((x) => x.type === "DISPATCH"));
    assertEquals(dispatches(heads), dispatches(all));
    const bad = await runCli([
      "simulate",
      `${d}/t.csv`,
      "--decisions_detail",
      "all",
      "-o",
      `${d}/x.csv`,
    ]);
    assertEquals([bad.code, bad.err], [1, ["evtsim: --decisions_detail needs --decisions FILE"]]);
  }),
);

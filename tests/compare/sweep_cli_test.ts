// `evtsim sweep` end to end (issue 17): a row is what `evtsim simulate`
// prints for the cell, --jobs 1 and --jobs 2 write the same bytes, a rerun
// skips finished cells, a failing cell is reported while the others finish
// and --retry_failed reruns only it, collect lists missing cells and refuses
// a changed spec, a bad spec writes nothing, and the Slurm executor's dry
// run, submission (a stand-in sbatch) and missing sbatch; the cells of a
// "Slurm" sweep, run one by one as the array tasks would, collect into the
// very bytes of a local sweep.

import { assert, assertEquals } from "../_assert.ts";
import { cliCommand, processesIn, recordProcessRun, ROOT, runCli, runCliProcess } from "../_cli.ts";
import type { ProgressSink } from "../../cli/progress.ts";
import { METRIC_NAMES } from "../../core/metrics.ts";

const DEMO = `${ROOT}examples/demo_trace.csv`;

async function scratch(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sweep-test-" });
  await Deno.copyFile(DEMO, `${dir}/demo_trace.csv`);
  await Deno.copyFile(`${ROOT}examples/sweep.yaml`, `${dir}/sweep.yaml`);
  return dir;
}

const exists = (path: string) => {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const mtimes = (dir: string) =>
  Object.fromEntries(
    [...Deno.readDirSync(`${dir}/cells`)].map((e) => [
      e.name,
      Deno.statSync(`${dir}/cells/${e.name}`).mtime!.getTime(),
    ]),
  );

Deno.test("sweep: rows equal simulate's figures, --jobs 1 and 2 agree byte for byte, reruns skip", async () => {
  const dir = await scratch();
  try {
    const drawn: string[] = [];
    const sink: ProgressSink = { write: (t) => drawn.push(t), columns: () => 100 };
    const two = await runCli(
      ["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/two`, "--jobs", "2", "--progress"],
      { progressSink: sink },
    );
    assertEquals(two.code, 0, two.err.join("\n"));
    assertEquals(two.out[0], "sweep: 6 cells: 6 run, 0 already done; 6 ok, 0 failed");
    assert(drawn.some((t) => t.includes("6/6 cells")), drawn.join("|"));
    const one = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/one`, "-j", "1"]);
    assertEquals(one.code, 0, one.err.join("\n"));
    for (const f of ["results.csv", "results.json"]) {
      assertEquals(
        await Deno.readTextFile(`${dir}/one/${f}`),
        await Deno.readTextFile(`${dir}/two/${f}`),
      );
    }
    assert(!(await Deno.readTextFile(`${dir}/two/results.csv`)).includes("wall"));
    const timings = (await Deno.readTextFile(`${dir}/two/timings.csv`)).trim().split("\n");
    assertEquals(timings.length, 7);
    assertEquals(timings[0], "id,index,status,wall_seconds,jobs_per_wall_s");
    for (const t of timings.slice(1)) {
      const [, , status, wall, rate] = t.split(",");
      assertEquals(status, "ok");
      assertEquals(Number(rate), Math.round(2000 / Number(wall)));
    }

    // The cell sjf+easy on 256 nodes against simulate run by hand.
    const rows = JSON.parse(await Deno.readTextFile(`${dir}/two/results.json`));
    assertEquals(rows.map((r: { index: number }) => r.index), [0, 1, 2, 3, 4, 5]);
    // Rows in the spec's order: policies [none, easy, sjf+easy] x total_nodes [128, 256].
    assertEquals(
      rows.map((r: Record<string, unknown>) => `${r.policy}/${r.total_nodes}`),
      ["none/128", "none/256", "easy/128", "easy/256", "sjf+easy/128", "sjf+easy/256"],
    );
    const row = rows.find((r: Record<string, unknown>) =>
      r.policy === "sjf+easy" && r.total_nodes === 256
    );
    const sim = await runCli([
      "simulate",
      DEMO,
      "-n",
      "256",
      "--picker",
      "sjf",
      "--admission",
      "easy",
      "-o",
      `${dir}/by_hand.csv`,
      "--stats_json",
      `${dir}/by_hand.json`,
    ]);
    assertEquals(sim.code, 0);
    const doc = JSON.parse(await Deno.readTextFile(`${dir}/by_hand.json`));
    const s = doc.statistics;
    for (const k of METRIC_NAMES) assertEquals(row[k], doc.metrics[k], k);
    assertEquals([row.jobs, row.wait_max_s], [s.jobsCompleted, s.maxWait]);
    assertEquals(row.throughput_jobs_per_s, row.jobs / row.makespan_s);
    assert(sim.out.includes(`Average wait time: ${row.wait_mean_s.toPrecision(6)} sec`));

    // A rerun finds every cell done and runs none of them.
    const before = mtimes(`${dir}/two`);
    const again = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/two`]);
    assertEquals(again.code, 0);
    assertEquals(again.out[0], "sweep: 6 cells: 0 run, 6 already done; 6 ok, 0 failed");
    assertEquals(mtimes(`${dir}/two`), before);

    // collect: a deleted cell file is listed as missing, the rest still written.
    const victim = rows[4].id;
    await Deno.remove(`${dir}/two/cells/${victim}.json`);
    const c = await runCli(["sweep", "collect", `${dir}/two`]);
    assertEquals(c.code, 1);
    assert(c.err.includes(`evtsim: sweep collect: cell 4 (${victim}) is missing (no result yet)`));
    assert(c.out[0].endsWith("(5 of 6 cells)"), c.out[0]);
    const csv = await Deno.readTextFile(`${dir}/two/results.csv`);
    assertEquals(csv.trim().split("\n").length, 6);
    assert(!csv.includes(victim));

    // Result files are not fsynced: an empty one (what a machine crash may
    // leave) is no result, and a rerun runs that cell again.
    await Deno.writeTextFile(`${dir}/two/cells/${victim}.json`, "");
    const rerun = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/two`]);
    assertEquals(rerun.code, 0, rerun.err.join("\n"));
    assertEquals(rerun.out[0], "sweep: 6 cells: 1 run, 5 already done; 6 ok, 0 failed");
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/two/cells/${victim}.json`)).index, 4);

    // A spec whose cells changed: the folder is refused, by sweep and by collect.
    await Deno.writeTextFile(
      `${dir}/sweep.yaml`,
      (await Deno.readTextFile(`${dir}/sweep.yaml`)).replace("[128, 256]", "[128, 512]"),
    );
    for (
      const args of [["sweep", "collect", `${dir}/two`], [
        "sweep",
        `${dir}/sweep.yaml`,
        "--results",
        `${dir}/two`,
      ]]
    ) {
      const r = await runCli(args);
      assertEquals(r.code, 1);
      assertEquals(r.err.length, 1);
      assert(/changed|another sweep/.test(r.err[0]), r.err[0]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep: a failing cell is reported, the others finish; --retry_failed reruns only it", async () => {
  const dir = await scratch();
  try {
    await Deno.writeTextFile(
      `${dir}/broken.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n1,2,100,50\nx,1,1,1\n",
    );
    await Deno.writeTextFile(
      `${dir}/s.yaml`,
      "traces: [demo_trace.csv, broken.csv]\npolicies: [easy]\ntotal_nodes: 128\n",
    );
    // As a real process, the way a user runs it.
    const first = await runCliProcess(["sweep", "s.yaml", "--results", "r"], { cwd: dir });
    assertEquals(first.code, 1);
    const failed = first.err.filter((l) => l.startsWith("evtsim: sweep: cell "));
    assertEquals(failed.length, 1, first.err.join("\n"));
    assert(
      /^evtsim: sweep: cell \d \([0-9a-f]{12}\) failed: .*broken\.csv:3: job_submit_time: /.test(
        failed[0],
      ),
      failed[0],
    );
    assertEquals(
      first.out[0],
      "sweep: 2 cells: 2 run, 0 already done; 1 ok, 1 failed (1 in this run)",
    );
    const id = /\(([0-9a-f]{12})\)/.exec(failed[0])![1];
    const cell = JSON.parse(await Deno.readTextFile(`${dir}/r/cells/${id}.json`));
    assertEquals(cell.status, "failed");
    assert(cell.error.includes("job_submit_time"));
    assertEquals((await Deno.readTextFile(`${dir}/r/results.csv`)).trim().split("\n").length, 2);

    // Fixed, and retried: only the failed cell runs again.
    await Deno.writeTextFile(
      `${dir}/broken.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n1,2,100,50\n3,1,1,1\n",
    );
    const before = mtimes(`${dir}/r`);
    const retry = await runCli([
      "sweep",
      `${dir}/s.yaml`,
      "--results",
      `${dir}/r`,
      "--retry_failed",
    ]);
    assertEquals(retry.code, 0, retry.err.join("\n"));
    assertEquals(retry.out[0], "sweep: 2 cells: 1 run, 1 already done; 2 ok, 0 failed");
    const after = mtimes(`${dir}/r`);
    for (const name of Object.keys(before)) {
      assertEquals(after[name] !== before[name], name === `${id}.json`, name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep: a bad spec or command line is one line, exit 1, no results folder", async () => {
  const dir = await scratch();
  try {
    await Deno.writeTextFile(`${dir}/bad.yaml`, "traces: [demo_trace.csv]\ntotal_nodes: [0]\n");
    const cases: [string[], RegExp][] = [
      [
        ["sweep", `${dir}/bad.yaml`, "--results", `${dir}/out`],
        /bad\.yaml:2: total_nodes\[0\]: expected a positive integer, got 0$/,
      ],
      [
        ["sweep", `${dir}/bad.yaml`, "--results", `${dir}/out`, "--executor", "slurm", "--dry_run"],
        /bad\.yaml:2: total_nodes\[0\]/,
      ],
      [
        ["sweep", `${dir}/none.yaml`, "--results", `${dir}/out`],
        /none\.yaml: cannot read the sweep spec/,
      ],
      [
        ["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/out`, "--executor", "pbs"],
        /--executor expects local or slurm/,
      ],
      [
        ["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/out`, "--dry_run"],
        /--dry_run is not an option of --executor local/,
      ],
      [
        ["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/out`, "--jobs", "0"],
        /--jobs must be >= 1/,
      ],
      [["sweep", "collect", `${dir}/out`], /is not a sweep results folder/],
      [
        ["sweep-cell", `${dir}/sweep.yaml`, "--cell", "6", "--results", `${dir}/out`],
        /--cell expects an index from 0 to 5, got '6'/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      assertEquals(r.code, 1, args.join(" "));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith("evtsim: ") && message.test(r.err[0]), r.err[0]);
      assertEquals(r.out, []);
      if (args[0] === "sweep") assert(!exists(`${dir}/out`), `${args.join(" ")} wrote the folder`);
    }
    for (const command of ["sweep", "sweep-cell"]) {
      const h = await runCli(["help", command]);
      assertEquals(h.code, 0);
      assert(h.out.join("\n").startsWith(`usage: evtsim ${command} SPEC`), h.out[0]);
    }
    const usage = await runCli(["help"]);
    assert(usage.out.join("\n").includes("  sweep SPEC [options]"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// `evtsim` as a process (its argv grants --allow-run, for sbatch) with this PATH.
async function evtsimWithPath(args: string[], path: string, cwd: string) {
  const r = await new Deno.Command(Deno.execPath(), {
    args: cliCommand(args),
    env: { PATH: path },
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  const err = d.decode(r.stderr);
  recordProcessRun(args, err);
  const lines = (t: string) => t === "" ? [] : t.replace(/\n$/, "").split("\n");
  return { code: r.code, out: lines(d.decode(r.stdout)), err: lines(err) };
}

Deno.test("sweep --executor slurm: dry run, missing sbatch, submission; the array's cells collect into the local bytes", async () => {
  const dir = await scratch();
  try {
    const dry = await runCli([
      "sweep",
      `${dir}/sweep.yaml`,
      "--executor",
      "slurm",
      "--results",
      `${dir}/slurm`,
      "--partition",
      "debug",
      "--max_parallel",
      "2",
      "--dry_run",
    ]);
    assertEquals(dry.code, 0, dry.err.join("\n"));
    assertEquals(dry.out[0], "#!/bin/bash");
    for (
      const l of [
        "#SBATCH --array=0-5%2",
        "#SBATCH --job-name=evtsim-sweep",
        `#SBATCH --output=${dir}/slurm/logs/%A_%a.out`,
        "#SBATCH --partition=debug",
        `cd ${Deno.cwd()}`,
      ]
    ) {
      assert(dry.out.includes(l), `no ${l} in\n${dry.out.join("\n")}`);
    }
    const exec = dry.out.find((l) => l.startsWith("exec "))!;
    assert(exec.startsWith(`exec ${Deno.execPath()} run `), exec);
    assert(
      exec.endsWith(
        `/cli/main.ts sweep-cell ${dir}/sweep.yaml --cell "$SLURM_ARRAY_TASK_ID" --results ${dir}/slurm`,
      ),
      exec,
    );
    assert(!exists(`${dir}/slurm`), "a dry run writes nothing");

    const empty = await Deno.makeTempDir({ dir });
    const none = await evtsimWithPath(
      ["sweep", "sweep.yaml", "--executor", "slurm", "--results", "slurm"],
      empty,
      dir,
    );
    assertEquals(none.code, 1);
    assertEquals(none.err, [
      "evtsim: sbatch not found on PATH: --executor slurm needs a Slurm client (or use --dry_run)",
    ]);
    assert(!exists(`${dir}/slurm`));

    // A stand-in sbatch: records its arguments, prints a job id as --parsable does.
    const bin = `${dir}/bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/sbatch`,
      `#!/bin/sh\necho "$@" > "${dir}/sbatch_args"\necho "4242;cluster"\n`,
      { mode: 0o755 },
    );
    const sub = await evtsimWithPath(
      ["sweep", "sweep.yaml", "--executor", "slurm", "--results", "slurm", "--evtsim", "evtsim"],
      `${bin}:/usr/bin:/bin`,
      dir,
    );
    assertEquals(sub.code, 0, sub.err.join("\n"));
    assertEquals(
      sub.out[0],
      "Submitted batch job 4242: 6 of the 6 cells (array 0-5), script slurm/sweep.sbatch",
    );
    assertEquals(
      (await Deno.readTextFile(`${dir}/sbatch_args`)).trim(),
      `--parsable ${dir}/slurm/sweep.sbatch`,
    );
    const script = await Deno.readTextFile(`${dir}/slurm/sweep.sbatch`);
    assert(
      script.includes("#SBATCH --array=0-5\n") && script.includes("exec evtsim sweep-cell "),
      script,
    );
    assert(Deno.statSync(`${dir}/slurm/logs`).isDirectory);

    // The array tasks, by hand: cells 0-4 (5 never runs).
    for (let i = 0; i < 5; i++) {
      const r = await runCli([
        "sweep-cell",
        `${dir}/sweep.yaml`,
        "--cell",
        String(i),
        "--results",
        `${dir}/slurm`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
    }
    const part = await runCli(["sweep", "collect", `${dir}/slurm`]);
    assertEquals(part.code, 1);
    assert(part.err.some((l) => /cell 5 \([0-9a-f]{12}\) is missing/.test(l)), part.err.join("\n"));
    // Resubmitting sends only the cell still to run.
    const resub = await evtsimWithPath(
      [
        "sweep",
        "sweep.yaml",
        "--executor",
        "slurm",
        "--results",
        "slurm",
        "--dry_run",
        "--max_parallel",
        "3",
      ],
      `${bin}:/usr/bin:/bin`,
      dir,
    );
    assert(resub.out.includes("#SBATCH --array=5%3"), resub.out.join("\n"));
    // While the folder's array is still queued (a stand-in squeue lists it),
    // nothing more is submitted: cell 5 may still be pending there.
    await Deno.writeTextFile(`${bin}/squeue`, `#!/bin/sh\necho 4242_5\n`, { mode: 0o755 });
    const queued = await evtsimWithPath(
      ["sweep", "sweep.yaml", "--executor", "slurm", "--results", "slurm", "--retry_failed"],
      `${bin}:/usr/bin:/bin`,
      dir,
    );
    assertEquals(queued.code, 1);
    assertEquals(queued.err, [
      "evtsim: job 4242 of slurm is still in Slurm's queue: wait for it (squeue -j 4242) " +
      "or cancel it (scancel 4242) before submitting more cells",
    ]);
    const last = await runCli([
      "sweep-cell",
      `${dir}/sweep.yaml`,
      "--cell",
      "5",
      "--results",
      `${dir}/slurm`,
    ]);
    assertEquals(last.code, 0);
    const all = await runCli(["sweep", "collect", `${dir}/slurm`]);
    assertEquals(all.code, 0, all.err.join("\n"));
    const local = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/local`]);
    assertEquals(local.code, 0);
    for (const f of ["results.csv", "results.json"]) {
      assertEquals(
        await Deno.readTextFile(`${dir}/slurm/${f}`),
        await Deno.readTextFile(`${dir}/local/${f}`),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep: the workers started before the spec is read end with a bad spec (--jobs 2, a real process)", async () => {
  const dir = await scratch();
  try {
    await Deno.writeTextFile(`${dir}/bad.yaml`, "traces: [demo_trace.csv]\ntotal_nodes: [0]\n");
    for (const spec of ["bad.yaml", "none.yaml"]) {
      const r = await runCliProcess([
        "sweep",
        `${dir}/${spec}`,
        "--results",
        `${dir}/out`,
        "--jobs",
        "2",
      ]);
      assertEquals(r.code, 1);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${dir}/${spec}`), r.err[0]);
      // No worker outlives the sweep (each was started with the spec's path).
      assertEquals(await processesIn(dir), []);
      assert(!exists(`${dir}/out`));
    }
  } finally {
    for (const pid of await processesIn(dir)) Deno.kill(pid, "SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});

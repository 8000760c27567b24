// `simulate --checkpoint_file F --checkpoint_interval_jobs N` (issue 30 item
// 4): a run stopped after a checkpoint and run again with the same command
// writes, byte for byte, the outputs of a run never stopped.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { cliCommand, runCli } from "../_cli.ts";
import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { loadInput } from "../../cli/load.ts";
import type { SimulateDeps } from "../../cli/main.ts";
import { EvtsimError } from "../../core/errors.ts";

const OUTPUTS = ["o.csv", "r.csv", "s.json", "d.jsonl"];

async function readAll(dir: string, names: readonly string[]): Promise<string[]> {
  return await Promise.all(names.map((n) => Deno.readTextFile(`${dir}/${n}`)));
}

// The outputs of `args` run to the end, then moved aside (so the run under
// test writes the same paths: the statistics JSON lists them).
async function reference(dir: string, args: string[]): Promise<string[]> {
  const r = await runCli(args);
  assertEquals(r.code, 0, r.err.join("\n"));
  const texts = await readAll(dir, OUTPUTS);
  for (const n of OUTPUTS) await Deno.remove(`${dir}/${n}`);
  return texts;
}

function simulateArgs(dir: string, input: string[], interval: number, more: string[] = []) {
  return [
    "simulate",
    ...input,
    "-n",
    "64",
    "-o",
    `${dir}/o.csv`,
    "-R",
    `${dir}/r.csv`,
    "--stats_json",
    `${dir}/s.json`,
    "--decisions",
    `${dir}/d.jsonl`,
    "--checkpoint_file",
    `${dir}/run.ckpt`,
    "--checkpoint_interval_jobs",
    String(interval),
    ...more,
  ];
}

const exists = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};

Deno.test("checkpoints: a run that fails after a checkpoint, run again, writes the outputs of a run never stopped (property)", async () => {
  let resumedFromCheckpoint = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 150, max: 500 }),
      fc.integer({ min: 2, max: 4 }),
      fc.integer({ min: 1, max: 25 }),
      fc.nat(),
      fc.boolean(),
      fc.constantFrom("easy", "conservative", "none"),
      async (seed, jobs, files, interval, crashPick, tornAppend, backfill) => {
        const dir = await Deno.makeTempDir();
        try {
          // The trace cut into `files` parts of an --infile_list.
          const trace = generateTrace({ seed, jobs, nodes: 64, load: 1.1 });
          const per = Math.ceil(trace.length / files);
          const names: string[] = [];
          for (let k = 0; k < files; k++) {
            const name = `part${k}.csv`;
            await Deno.writeTextFile(
              `${dir}/${name}`,
              traceToCsv(trace.slice(k * per, (k + 1) * per)),
            );
            names.push(name);
          }
          await Deno.writeTextFile(`${dir}/list.txt`, names.join("\n") + "\n");
          const args = simulateArgs(dir, ["--infile_list", `${dir}/list.txt`], interval, [
            "-b",
            backfill,
          ]);
          const expected = await reference(dir, args);
          assert(!exists(`${dir}/run.ckpt`), "a completed run leaves no checkpoint");
          // The run fails as it reads a later file (its earlier files simulated).
          const crashAt = 1 + crashPick % (files - 1);
          const load = (path: string, o: Parameters<typeof loadInput>[1]) => {
            if (path.endsWith(`part${crashAt}.csv`)) throw new EvtsimError("input", "crash");
            return loadInput(path, o);
          };
          const failed = await runCli(args, { load } as SimulateDeps);
          assertEquals(failed.code, 1, failed.err.join("\n"));
          for (const n of OUTPUTS) assert(!exists(`${dir}/${n}`), `${n} after the failed run`);
          if (exists(`${dir}/run.ckpt`)) {
            resumedFromCheckpoint++;
            // A later checkpoint's append cut short: the journal runs past what F covers.
            if (tornAppend) {
              await Deno.writeTextFile(`${dir}/run.ckpt.rows`, '{"jobs":[{"jo', { append: true });
            }
          }
          const resumed = await runCli(args);
          assertEquals(resumed.code, 0, resumed.err.join("\n"));
          const got = await readAll(dir, OUTPUTS);
          OUTPUTS.forEach((n, i) => assertEquals(got[i], expected[i], n));
          assert(!exists(`${dir}/run.ckpt`) && !exists(`${dir}/run.ckpt.rows`), "left behind");
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    ),
    { seed: 3004, numRuns: 12 },
  );
  assert(
    resumedFromCheckpoint >= 6,
    `only ${resumedFromCheckpoint} runs resumed from a checkpoint`,
  );
});

// A real process, stopped by a signal once its first checkpoint is there.
async function stoppedAfterCheckpoint(args: string[], ckpt: string, signal: Deno.Signal) {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliCommand(args),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let seen = false;
  let done = false;
  child.status.then(() => done = true);
  while (!done) {
    if (exists(ckpt)) {
      seen = true;
      child.kill(signal);
      break;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  const status = await child.status;
  const err = new TextDecoder().decode((await new Response(child.stderr).arrayBuffer()) as never);
  return { seen, status, err };
}

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  Deno.test(`checkpoints: a process stopped by ${signal} after a checkpoint, run again, gives the outputs of a run never stopped`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const trace = generateTrace({ seed: 30, jobs: 40_000, nodes: 64, load: 1.05 });
      await Deno.writeTextFile(`${dir}/t.csv`, traceToCsv(trace));
      const args = simulateArgs(dir, [`${dir}/t.csv`], 2000);
      const expected = await reference(dir, args);
      const stopped = await stoppedAfterCheckpoint(args, `${dir}/run.ckpt`, signal);
      assert(stopped.seen, "the run ended before its first checkpoint: the trace is too small");
      assertEquals(stopped.status.code, signal === "SIGTERM" ? 143 : 137, stopped.err);
      for (const n of OUTPUTS) assert(!exists(`${dir}/${n}`), `${n} after the stopped run`);
      const r = await runCli(args);
      assertEquals(r.code, 0, r.err.join("\n"));
      const got = await readAll(dir, OUTPUTS);
      OUTPUTS.forEach((n, i) => assertEquals(got[i], expected[i], n));
      assert(!exists(`${dir}/run.ckpt`) && !exists(`${dir}/run.ckpt.rows`), "left behind");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("checkpoints: with --infile_list, one at each file boundary, --checkpoint_interval_jobs or not (DR_EVT's rule)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const trace = generateTrace({ seed: 8, jobs: 900, nodes: 64, load: 1.1 });
    const names = ["a.csv", "b.csv", "c.csv"];
    for (let k = 0; k < 3; k++) {
      await Deno.writeTextFile(
        `${dir}/${names[k]}`,
        traceToCsv(trace.slice(300 * k, 300 * (k + 1))),
      );
    }
    await Deno.writeTextFile(`${dir}/list.txt`, names.join("\n") + "\n");
    const args = simulateArgs(dir, ["--infile_list", `${dir}/list.txt`], 1)
      .filter((a) => a !== "--checkpoint_interval_jobs" && a !== "1");
    const expected = await reference(dir, args);
    // The run fails as it reads c.csv: a.csv's and b.csv's jobs were fed.
    const load = (path: string, o: Parameters<typeof loadInput>[1]) => {
      if (path.endsWith("c.csv")) throw new EvtsimError("input", "crash");
      return loadInput(path, o);
    };
    assertEquals((await runCli(args, { load } as SimulateDeps)).code, 1);
    const ckpt = JSON.parse(await Deno.readTextFile(`${dir}/run.ckpt`));
    assertEquals(ckpt.snapshot.nextJobId, 600);
    const r = await runCli(args);
    assertEquals(r.code, 0, r.err.join("\n"));
    const got = await readAll(dir, OUTPUTS);
    OUTPUTS.forEach((n, i) => assertEquals(got[i], expected[i], n));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkpoints: the checkpoint's folder is made when missing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const trace = generateTrace({ seed: 6, jobs: 2000, nodes: 64, load: 0.9 });
    await Deno.writeTextFile(`${dir}/t.csv`, traceToCsv(trace));
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "64",
      "-o",
      `${dir}/o.csv`,
      "--checkpoint_file",
      `${dir}/new/sub/c.ckpt`,
      "--checkpoint_interval_jobs",
      "100",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals([...Deno.readDirSync(`${dir}/new/sub`)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkpoints: a checkpoint of another run is refused in one line, and nothing is written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const trace = generateTrace({ seed: 5, jobs: 1600, nodes: 64, load: 1.1 });
    await Deno.writeTextFile(`${dir}/a.csv`, traceToCsv(trace.slice(0, 1500)));
    await Deno.writeTextFile(`${dir}/b.csv`, traceToCsv(trace.slice(1500)));
    await Deno.writeTextFile(`${dir}/list.txt`, "a.csv\nb.csv\n");
    const args = simulateArgs(dir, ["--infile_list", `${dir}/list.txt`], 5);
    // The run fails as it reads b.csv, after checkpoints of a.csv's jobs.
    const load = (path: string, o: Parameters<typeof loadInput>[1]) => {
      if (path.endsWith("b.csv")) throw new EvtsimError("input", "crash");
      return loadInput(path, o);
    };
    assertEquals((await runCli(args, { load } as SimulateDeps)).code, 1);
    assert(exists(`${dir}/run.ckpt`), "no checkpoint was written");
    // The same command on another machine size: the checkpoint is not its run's.
    const r = await runCli([...args, "-n", "65"]);
    assertEquals(r.code, 1);
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(/run\.ckpt: checkpoint: it is of another run/.test(r.err[0]), r.err[0]);
    for (const n of OUTPUTS) assert(!exists(`${dir}/${n}`), `${n} written`);
    // The run's own command still continues from it.
    assertEquals((await runCli(args)).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

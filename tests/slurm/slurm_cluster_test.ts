// The single-node Slurm harness (tests/_slurm_cluster.ts) against a real
// munged/slurmctld/slurmd: array jobs run (two at a time on the node's
// CPUs), a job run by slurmd can run `deno` with this repository's npm
// imports, cancelling one array task (`scancel JOB_TASK`) leaves exactly
// that task's output missing, and stop() leaves no process behind. Where
// Slurm cannot be installed the test is ignored, its reason printed.

import { assert, assertEquals } from "../_assert.ts";
import { clusterProcesses, slurmUnavailable, startSlurmCluster } from "./_slurm_cluster.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function files(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of Deno.readDirSync(dir)) {
    if (e.isFile && e.name.startsWith(prefix)) {
      out[e.name] = Deno.readTextFileSync(`${dir}/${e.name}`);
    }
  }
  return out;
}

// Where Slurm cannot run here the test is registered as ignored, with the
// reason printed once, never counted as passed.
const unavailable = await slurmUnavailable();
if (unavailable !== undefined) console.log(`ignored: ${unavailable}`);

Deno.test({
  name: "a single-node Slurm on localhost runs array jobs, deno, and cancels one task",
  ignore: unavailable !== undefined,
}, async () => {
  const t0 = Date.now();
  const c = await startSlurmCluster();
  // Installed, yet it did not come up: a failure, not a skip.
  if ("skip" in c) throw new Error(`Slurm did not come up: ${c.skip}`);
  const dir = c.dir;
  let daemons: number[] = [];
  console.log(`slurm up on ${c.hostname} in ${Date.now() - t0} ms (${dir})`);
  try {
    daemons = await clusterProcesses(dir);
    assert(daemons.length >= 3, `munged, slurmctld and slurmd should run: ${daemons}`);
    const out = `${dir}/out`;
    await Deno.mkdir(out);
    // 1. An array of four, at most two at a time; each task writes its id.
    const arrayJob = await c.sbatch([
      "--array=0-3%2",
      `--output=${out}/slurm-%A_%a.log`,
      "--wrap",
      `echo $SLURM_ARRAY_TASK_ID > ${out}/task_$SLURM_ARRAY_TASK_ID`,
    ]);
    // 2. deno in a job (as root, HOME and DENO_DIR from the submitter's
    // environment): the version, the evtsim command, and an npm: import
    // through this repository's deno.json.
    await Deno.writeTextFile(
      `${out}/npm_check.ts`,
      `import { stringify } from "yaml";\nconsole.log(stringify({ npm: "ok" }).trim());\n`,
    );
    const denoJob = await c.sbatch([
      `--output=${out}/deno_job.log`,
      "--wrap",
      [
        `deno --version > ${out}/deno_version`,
        `cd ${ROOT} && deno run -A cli/main.ts --version > ${out}/evtsim_version`,
        `deno run -A --config ${ROOT}deno.json ${out}/npm_check.ts > ${out}/npm_check`,
      ].join(" && "),
    ]);
    await c.waitForJob(arrayJob, 30_000);
    assertEquals(files(out, "task_"), {
      task_0: "0\n",
      task_1: "1\n",
      task_2: "2\n",
      task_3: "3\n",
    });
    await c.waitForJob(denoJob, 60_000);
    const log = () => {
      try {
        return Deno.readTextFileSync(`${out}/deno_job.log`);
      } catch {
        return "(no job log)";
      }
    };
    const got = files(out, "");
    assert(/^deno \d/.test(got.deno_version ?? ""), `deno --version in a job: ${log()}`);
    assert(/^evtsim \d/.test(got.evtsim_version ?? ""), `evtsim --version in a job: ${log()}`);
    assertEquals(got.npm_check, "npm: ok\n", `npm import in a job: ${log()}`);

    // 3. Fault: three tasks that sleep, then write a marker; task 1 is
    // cancelled while it runs.
    const faultJob = await c.sbatch([
      "--array=0-2",
      `--output=${out}/fault-%A_%a.log`,
      "--wrap",
      `sleep 4 && echo $SLURM_ARRAY_TASK_ID > ${out}/cell_$SLURM_ARRAY_TASK_ID`,
    ]);
    const task1 = `${faultJob}_1`;
    const end = Date.now() + 20_000;
    while ((await c.taskStates(faultJob))[task1] !== "RUNNING") {
      assert(
        Date.now() < end,
        `task ${task1} never ran: ${JSON.stringify(await c.taskStates(faultJob))}`,
      );
      await sleep(100);
    }
    const cancel = await c.run(["scancel", task1]);
    assertEquals(cancel.code, 0, `scancel ${task1}: ${cancel.stderr}`);
    await c.waitForJob(faultJob, 30_000);
    assertEquals(files(out, "cell_"), { cell_0: "0\n", cell_2: "2\n" });
  } finally {
    await c.stop();
  }
  // Nothing of this cluster is left: daemons, slurmstepds, job processes, folder.
  assertEquals(await clusterProcesses(dir), []);
  const ps = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", daemons.join(",")] })
    .output();
  assertEquals(new TextDecoder().decode(ps.stdout).trim(), "", `daemons ${daemons} still run`);
  let exists = true;
  try {
    Deno.statSync(dir);
  } catch {
    exists = false;
  }
  assert(!exists, `${dir} was not removed`);
  console.log(`slurm test done in ${Date.now() - t0} ms`);
});

// Relative paths are the user's (issue 8, item 1): `deno task evtsim` run from
// another folder reads and writes relative to that folder, for every input
// and output option, and `deno task install` gives an `evtsim` command that
// works from anywhere.

import { assert, assertEquals } from "../_assert.ts";
import { userFolder } from "../../cli/_user_folder.ts";
import { recordProcessRun, ROOT } from "../_cli.ts";

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  "0,6,100,100\n0,4,20,20\n10,5,10,10\n";

// As from a fresh shell: `deno task` sets INIT_CWD only when it is not set,
// and the test runner itself runs under `deno task test`.
const ENV = Object.fromEntries(
  Object.entries(Deno.env.toObject()).filter(([k]) => k !== "INIT_CWD"),
);

async function run(cmd: string, args: string[], cwd: string) {
  const r = await new Deno.Command(cmd, {
    args,
    cwd,
    clearEnv: true,
    env: ENV,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(r.stderr);
  return { code: r.code, out: new TextDecoder().decode(r.stdout), err };
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (e.isDirectory) out.push(...files(`${dir}/${e.name}`).map((f) => `${e.name}/${f}`));
    else out.push(e.name);
  }
  return out.sort();
}

function makeUserFolder(): string {
  const dir = Deno.makeTempDirSync({ prefix: "evtsim-user-" });
  Deno.mkdirSync(`${dir}/data`);
  Deno.writeTextFileSync(`${dir}/data/jobs.csv`, TRACE);
  Deno.writeTextFileSync(`${dir}/data/cap.csv`, "time,capacity\n0,10\n");
  Deno.writeTextFileSync(`${dir}/run.yaml`, "total_nodes: 10\n");
  return dir;
}

Deno.test("deno task evtsim from another folder: every relative input and output is the user's", async () => {
  const dir = makeUserFolder();
  try {
    const args = [
      "simulate",
      "data/jobs.csv",
      "-c",
      "run.yaml",
      "--capacity_schedule",
      "data/cap.csv",
      "-o",
      "out/sched.csv",
      "-R",
      "out/res.csv",
      "--stats_json",
      "out/stats.json",
    ];
    const r = await run(
      Deno.execPath(),
      ["task", "--quiet", "--config", `${ROOT}deno.json`, "evtsim", ...args],
      dir,
    );
    recordProcessRun(args, r.err);
    assertEquals(r.code, 0, r.err);
    assert(r.out.includes("Schedule written to: out/sched.csv"), r.out);
    assertEquals(files(dir), [
      "data/cap.csv",
      "data/jobs.csv",
      "out/res.csv",
      "out/sched.csv",
      "out/stats.json",
      "run.yaml",
    ]);
    assertEquals(Deno.readTextFileSync(`${dir}/out/sched.csv`).split("\n")[1], "0,0,100,6,0,100");
    // The default output names follow the input's name, in the user's folder (not beside the input).
    const d = await run(
      Deno.execPath(),
      [
        "task",
        "--quiet",
        "--config",
        `${ROOT}deno.json`,
        "evtsim",
        "simulate",
        "data/jobs.csv",
        "-n",
        "10",
      ],
      dir,
    );
    assertEquals(d.code, 0, d.err);
    assert(files(dir).includes("jobs_sim.csv") && !files(dir).includes("data/jobs_sim.csv"));
    for (const stray of ["out", "data", "run.yaml"]) {
      let found = true;
      try {
        Deno.lstatSync(`${ROOT}${stray}`);
      } catch {
        found = false;
      }
      assert(!found, `${stray} appeared in the repository folder`);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("deno task install: the installed evtsim command runs from any folder", async () => {
  const tasks = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks;
  const words: string[] = tasks.install.command.split(" ");
  assertEquals(words.slice(0, 3), ["deno", "install", "-g"]);
  const root = Deno.makeTempDirSync({ prefix: "evtsim-install-" });
  const dir = makeUserFolder();
  try {
    // The task's own command, installing under a temporary root instead of ~/.deno.
    const install = await run(Deno.execPath(), [
      ...words.slice(1, 3),
      "--root",
      root,
      ...words.slice(3),
    ], ROOT);
    assertEquals(install.code, 0, install.err);
    const bin = `${root}/bin/evtsim`;
    const r = await run(bin, ["simulate", "data/jobs.csv", "-n", "10", "-o", "s.csv"], dir);
    recordProcessRun(["simulate", "data/jobs.csv"], r.err);
    assertEquals(r.code, 0, r.err);
    assert(
      files(dir).includes("s.csv") && files(dir).includes("s_resources.csv"),
      files(dir).join(),
    );
    const v = await run(bin, ["--version"], dir);
    assertEquals(
      v.out.trim(),
      `evtsim ${JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).version}`,
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("INIT_CWD is followed only by a process running in the task's folder", () => {
  const repo = ROOT.replace(/\/$/, "");
  assertEquals(userFolder(repo, "/home/me/data", repo), "/home/me/data");
  assertEquals(userFolder(ROOT, "/home/me/data", repo), "/home/me/data");
  // Inherited by a process started elsewhere (a test, a benchmark, an installed evtsim).
  assertEquals(userFolder("/tmp", "/home/me/data", repo), undefined);
  assertEquals(userFolder(repo, undefined, repo), undefined);
  assertEquals(userFolder(repo, "", repo), undefined);
});

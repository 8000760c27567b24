// A real single-node Slurm on localhost for tests (issue 17): Debian's
// `munged`, `slurmctld` and `slurmd`, installed with apt when missing, run as
// child processes of the test with every file (munge key and socket,
// slurm.conf, state, spool, logs) in one temporary folder, and stopped by
// `stop()`. Where Slurm cannot be installed or does not come up,
// `startSlurmCluster` returns `{ skip: reason }` instead.
//
// Usage:
//
//   const c = await startSlurmCluster();
//   // at the test file's top: const unavailable = await slurmUnavailable();
//   //   and Deno.test({ name, ignore: unavailable !== undefined }, ...)
//   if ("skip" in c) throw new Error(c.skip);
//   try {
//     const id = await c.sbatch(["--array=0-5%2", `--output=${c.dir}/%A_%a.log`, "--wrap", "true"]);
//     await c.waitForJob(id, 30_000);
//   } finally {
//     await c.stop();
//   }
//
// Child processes that talk to this Slurm (sbatch, squeue, scancel, an
// `evtsim` that calls sbatch) need `c.env` (the test's environment plus a PATH
// with the sbin folders and SLURM_CONF=<dir>/slurm.conf): pass it as their
// environment, e.g. `runCliProcess(args, { env: c.env })`. sbatch hands the
// submitter's whole environment to the job (HOME, PATH, DENO_DIR, SLURM_CONF),
// and jobs run as the submitter (root), so `deno run` works inside a job.
//
// Gotchas:
// - Without --output, sbatch writes slurm-%A_%a.out into the submitter's
//   working directory (for `run`/`sbatch`: the cluster folder by default).
// - There is no accounting (no slurmdbd): `sacct` does not work. A job is
//   finished when `squeue -h -j ID` lists nothing (exit 0) or says
//   "Invalid job id specified" (exit 1, after MinJobAge=2 s purged the
//   record); until then `scontrol show job ID` gives its final state.
//   Judge a task's success by the files it wrote.
// - `scancel ID_TASK` cancels one array task, pending or running; a running
//   one gets SIGTERM (then SIGKILL after KillWait=2 s).
// - slurmstepd double-forks away from slurmd: after stop() a finished one can
//   show as a `[slurmstepd] <defunct>` zombie of pid 1 until init reaps it.
// - The node has the machine's CPUs; each task takes one CPU (CR_Core), so
//   `--array=...%2` runs two at a time on two or more CPUs.
// - Reading /proc needs --allow-all in Deno 2, so processes are listed with `ps`.

/** What a command run printed, and its exit code. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link SlurmCluster.run}. */
export interface RunOptions {
  /** Working directory (default: the cluster's folder, so stray slurm-*.out land there). */
  readonly cwd?: string;
  /** Extra environment variables on top of {@link SlurmCluster.env}. */
  readonly env?: Record<string, string>;
}

/** A running single-node Slurm. */
export interface SlurmCluster {
  /** The environment for child processes: the test's, plus PATH (with sbin) and SLURM_CONF. */
  readonly env: Record<string, string>;
  /** The temporary folder holding everything (removed by stop). */
  readonly dir: string;
  /** The node's name (the short host name). */
  readonly hostname: string;
  /** Path of the generated slurm.conf. */
  readonly conf: string;
  /** Runs a command (e.g. sbatch, squeue, scancel) with {@link env}. */
  run(cmd: string[], opts?: RunOptions): Promise<RunResult>;
  /**
   * Runs `sbatch --parsable ARGS` and returns the job id; throws (with the
   * daemons' log tails) when sbatch fails.
   */
  sbatch(args: string[], opts?: RunOptions): Promise<string>;
  /**
   * The queued tasks of a job and their states, one entry per array task
   * (`squeue -r`), e.g. `{ "7_0": "RUNNING", "7_1": "PENDING" }`. Finished
   * tasks are not listed.
   */
  taskStates(jobId: string): Promise<Record<string, string>>;
  /**
   * Waits until `squeue` no longer lists the job (or any task of the array
   * job), i.e. every task has finished, failed or been cancelled. Throws
   * after `timeoutMs`.
   */
  waitForJob(jobId: string, timeoutMs?: number): Promise<void>;
  /** The last lines of the daemons' logs, for failure messages. */
  logTail(lines?: number): string;
  /**
   * Cancels every job, stops slurmd, slurmctld and munged (SIGTERM, SIGKILL
   * after 10 s), kills any process left over from this cluster, and removes
   * the folder. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** Returned by {@link startSlurmCluster} when Slurm cannot be used here. */
export interface SlurmSkip {
  skip: string;
}

const PACKAGES = ["munge", "slurmctld", "slurmd", "slurm-client"];
const BINARIES = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"];
const DAEMONS = ["munged", "slurmctld", "slurmd", "slurmstepd"];
/** Prefix of the temporary folder; also marks this harness's processes. */
const PREFIX = "evtsim-slurm-";

const decoder = new TextDecoder();

function basePath(): string {
  const parts = (Deno.env.get("PATH") ?? "").split(":").filter((p) => p !== "");
  for (const p of ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]) {
    if (!parts.includes(p)) parts.push(p);
  }
  return parts.join(":");
}

function which(name: string, path: string): string | undefined {
  for (const d of path.split(":")) {
    try {
      const st = Deno.statSync(`${d}/${name}`);
      if (st.isFile && ((st.mode ?? 0) & 0o111) !== 0) return `${d}/${name}`;
    } catch {
      // not there
    }
  }
  return undefined;
}

async function exec(
  cmd: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<RunResult> {
  try {
    const r = await new Deno.Command(cmd[0], {
      args: cmd.slice(1),
      env,
      cwd,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: r.code, stdout: decoder.decode(r.stdout), stderr: decoder.decode(r.stderr) };
  } catch (e) {
    return { code: 127, stdout: "", stderr: e instanceof Error ? e.message : String(e) };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Proc {
  pid: number;
  comm: string;
  /** The command line followed by the environment (`ps e`). */
  argsEnv: string;
}

/** Every process as `ps` lists it (reading /proc directly needs --allow-all). */
async function processes(): Promise<Proc[]> {
  const env = Deno.env.toObject();
  const comms = await exec(["ps", "-e", "-o", "pid=,comm="], env);
  const args = await exec(["ps", "-e", "-ww", "e", "-o", "pid=,args="], env);
  const byPid = new Map<number, string>();
  for (const line of args.stdout.split("\n")) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (m) byPid.set(Number(m[1]), m[2]);
  }
  const out: Proc[] = [];
  for (const line of comms.stdout.split("\n")) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m) {
      out.push({ pid: Number(m[1]), comm: m[2].trim(), argsEnv: byPid.get(Number(m[1])) ?? "" });
    }
  }
  return out;
}

/**
 * Pids of processes belonging to the cluster in `dir`: the daemons, the
 * slurmstepds and the job processes (all carry the folder in their command
 * line or in SLURM_CONF). The calling process is never included.
 */
export async function clusterProcesses(dir: string): Promise<number[]> {
  return (await processes())
    .filter((p) => p.pid !== Deno.pid && p.argsEnv.includes(dir) && p.comm !== "ps")
    .map((p) => p.pid);
}

async function daemonPids(): Promise<Set<number>> {
  return new Set((await processes()).filter((p) => DAEMONS.includes(p.comm)).map((p) => p.pid));
}

/**
 * Installs munge and Slurm with apt-get when a binary is missing. Returns a
 * reason string when that is impossible. Daemons that the packages' postinst
 * scripts start are killed (a policy-rc.d answering 101 is put in place for
 * the install when there is none).
 */
async function ensureInstalled(path: string): Promise<string | undefined> {
  const missing = BINARIES.filter((b) => which(b, path) === undefined);
  if (missing.length === 0) return undefined;
  if (Deno.uid() !== 0) {
    return `not root, cannot install ${PACKAGES.join(" ")} (missing ${missing})`;
  }
  const aptGet = which("apt-get", path);
  if (aptGet === undefined) {
    return `no apt-get to install ${PACKAGES.join(" ")} (missing ${missing})`;
  }
  const env = { ...Deno.env.toObject(), PATH: path, DEBIAN_FRONTEND: "noninteractive" };
  const policy = "/usr/sbin/policy-rc.d";
  let ownPolicy = false;
  try {
    Deno.statSync(policy);
  } catch {
    try {
      Deno.writeTextFileSync(policy, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
      ownPolicy = true;
    } catch {
      // go on without it; started daemons are killed below
    }
  }
  const before = await daemonPids();
  const install = [
    aptGet,
    "install",
    "-y",
    "-q",
    "--no-install-recommends",
    "-o",
    "DPkg::Lock::Timeout=300",
    ...PACKAGES,
  ];
  console.log(`slurm harness: installing ${PACKAGES.join(" ")} with apt-get (missing ${missing})`);
  let r = await exec(install, env);
  if (r.code !== 0) {
    // Stale package lists: update once and try again.
    await exec([aptGet, "update", "-q", "-o", "DPkg::Lock::Timeout=300"], env);
    r = await exec(install, env);
  }
  if (ownPolicy) {
    try {
      Deno.removeSync(policy);
    } catch {
      // already gone
    }
  }
  // Daemons started by postinst (not by a harness: those have our folder in argv).
  for (const p of await processes()) {
    if (DAEMONS.includes(p.comm) && !before.has(p.pid) && !p.argsEnv.includes(PREFIX)) {
      try {
        Deno.kill(p.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
  if (r.code !== 0) {
    const tail = (r.stderr || r.stdout).trim().split("\n").slice(-5).join("\n");
    return `apt-get install ${PACKAGES.join(" ")} failed (exit ${r.code}): ${tail}`;
  }
  const still = BINARIES.filter((b) => which(b, path) === undefined);
  if (still.length > 0) return `after apt-get install, still missing: ${still}`;
  return undefined;
}

/** A free TCP port on 127.0.0.1 that is also free at +1 (some daemons take a range). */
function freePort(exclude: number[]): number {
  for (let i = 0; i < 200; i++) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    if (exclude.includes(port)) continue;
    try {
      const l = Deno.listen({ hostname: "0.0.0.0", port });
      l.close();
      return port;
    } catch {
      // taken
    }
  }
  throw new Error("no free port found");
}

function slurmConf(o: {
  dir: string;
  host: string;
  cpus: number;
  ctldPort: number;
  slurmdPort: number;
}): string {
  const d = o.dir;
  return [
    "ClusterName=evtsimtest",
    `SlurmctldHost=${o.host}(127.0.0.1)`,
    `SlurmctldPort=${o.ctldPort}`,
    `SlurmdPort=${o.slurmdPort}`,
    "SlurmUser=root",
    "SlurmdUser=root",
    "AuthType=auth/munge",
    "CredType=cred/munge",
    `AuthInfo=socket=${d}/munge.socket`,
    `StateSaveLocation=${d}/state`,
    `SlurmdSpoolDir=${d}/spool`,
    `SlurmctldPidFile=${d}/slurmctld.pid`,
    `SlurmdPidFile=${d}/slurmd.pid`,
    `SlurmctldLogFile=${d}/slurmctld.log`,
    `SlurmdLogFile=${d}/slurmd.log`,
    "SlurmctldDebug=info",
    "SlurmdDebug=info",
    "ProctrackType=proctrack/linuxproc",
    "TaskPlugin=task/none",
    "JobAcctGatherType=jobacct_gather/none",
    "AccountingStorageType=accounting_storage/none",
    "JobCompType=jobcomp/none",
    "SwitchType=switch/none",
    "MpiDefault=none",
    "SelectType=select/cons_tres",
    "SelectTypeParameters=CR_Core",
    "SchedulerType=sched/builtin",
    "ReturnToService=2",
    "SlurmctldTimeout=30",
    "SlurmdTimeout=30",
    "InactiveLimit=0",
    "MinJobAge=2",
    "KillWait=2",
    "Waittime=0",
    "MaxArraySize=10001",
    "MailProg=/bin/true",
    "SchedulerParameters=sched_interval=1,sched_min_interval=0",
    `NodeName=${o.host} NodeAddr=127.0.0.1 CPUs=${o.cpus} RealMemory=1000 State=UNKNOWN`,
    "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    "",
  ].join("\n");
}

function tail(file: string, n: number): string {
  try {
    const lines = Deno.readTextFileSync(file).trimEnd().split("\n");
    return lines.slice(-n).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Why this machine cannot run the Slurm harness (not Linux, not root, or the
 * packages cannot be installed), or undefined when it can. Installs the
 * packages when missing. Test files await it at load, so that a test that
 * cannot run is registered as ignored (counted as such, never as passed).
 */
export async function slurmUnavailable(): Promise<string | undefined> {
  if (Deno.build.os !== "linux") return `Slurm harness needs Linux (${Deno.build.os})`;
  // slurmd launches jobs as their submitter and slurmctld runs as SlurmUser=root.
  if (Deno.uid() !== 0) return "the Slurm harness runs slurmd and slurmctld as root";
  return await ensureInstalled(basePath());
}

/**
 * Starts munged, slurmctld and slurmd in a new temporary folder and waits
 * (up to `readyTimeoutMs`, default 60 s) until the node is idle. Installs the
 * packages first when missing. Returns `{ skip }` with a reason when Slurm
 * cannot be installed or does not come up (everything started is stopped).
 */
export async function startSlurmCluster(
  readyTimeoutMs = 60_000,
): Promise<SlurmCluster | SlurmSkip> {
  const why = await slurmUnavailable();
  if (why !== undefined) return { skip: why };
  const path = basePath();

  const host = Deno.hostname().split(".")[0];
  const dir = await Deno.makeTempDir({ prefix: PREFIX });
  await Deno.chmod(dir, 0o755);
  for (const sub of ["state", "spool", "munge"]) await Deno.mkdir(`${dir}/${sub}`, { mode: 0o700 });
  const conf = `${dir}/slurm.conf`;
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    PATH: path,
    SLURM_CONF: conf,
  };
  if (env.HOME === undefined) env.HOME = "/root";
  // The submitter's SLURM_* (e.g. inside a Slurm job) must not leak into ours.
  for (const k of Object.keys(env)) {
    if (k.startsWith("SLURM_") && k !== "SLURM_CONF") delete env[k];
  }

  const children: { name: string; child: Deno.ChildProcess }[] = [];
  let stopped = false;

  const spawn = (name: string, argv: string[], log: string) => {
    const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
    const child = new Deno.Command("/bin/sh", {
      args: ["-c", `exec ${argv.map(q).join(" ")} >>${q(log)} 2>&1`],
      env,
      clearEnv: true,
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    children.push({ name, child });
    return child;
  };

  // munged (in the foreground) logs to its stderr, kept in munged.out; the
  // Slurm daemons' stderr (slurmctld.out, slurmd.out) repeats their log files.
  const logTail = (n = 15) =>
    ["munged.out", "slurmctld.log", "slurmd.log"].map((f) =>
      `--- ${f} ---\n${tail(`${dir}/${f}`, n)}`
    ).join("\n");

  const run = (cmd: string[], opts: RunOptions = {}) =>
    exec(cmd, { ...env, ...(opts.env ?? {}) }, opts.cwd ?? dir);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Cancel every job while slurmctld still runs.
    if (children.some((c) => c.name === "slurmctld")) {
      const q = await run(["squeue", "-h", "-o", "%A"]);
      const ids = [...new Set(q.stdout.split("\n").map((s) => s.trim()).filter((s) => s))];
      if (ids.length > 0) {
        await run(["scancel", ...ids]);
        const end = Date.now() + 10_000;
        while (Date.now() < end) {
          const r = await run(["squeue", "-h", "-o", "%A"]);
          if (r.code !== 0 || r.stdout.trim() === "") break;
          await sleep(200);
        }
      }
    }
    // Daemons in reverse start order: slurmd, slurmctld, munged.
    for (const { child } of [...children].reverse()) {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const t = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // exited meanwhile
        }
      }, 10_000);
      await child.status;
      clearTimeout(t);
    }
    // slurmstepd and job processes detach from slurmd: kill what is left.
    for (let i = 0; i < 20; i++) {
      const left = await clusterProcesses(dir);
      if (left.length === 0) break;
      for (const pid of left) {
        try {
          Deno.kill(pid, i < 5 ? "SIGTERM" : "SIGKILL");
        } catch {
          // gone
        }
      }
      await sleep(100);
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };

  const fail = async (reason: string): Promise<SlurmSkip> => {
    const logs = logTail();
    await stop();
    return { skip: `${reason}\n${logs}` };
  };

  try {
    // munge: a fresh key, socket, pid, log and seed files in the folder.
    const key = new Uint8Array(1024);
    crypto.getRandomValues(key);
    await Deno.writeFile(`${dir}/munge/munge.key`, key, { mode: 0o400 });
    await Deno.chmod(`${dir}/munge/munge.key`, 0o400);
    const munged = which("munged", path)!;
    spawn("munged", [
      munged,
      "--foreground",
      "--force",
      `--key-file=${dir}/munge/munge.key`,
      `--socket=${dir}/munge.socket`,
      `--pid-file=${dir}/munge/munged.pid`,
      `--log-file=${dir}/munged.log`,
      `--seed-file=${dir}/munge/munged.seed`,
    ], `${dir}/munged.out`);
    for (let i = 0;; i++) {
      try {
        if (Deno.statSync(`${dir}/munge.socket`).isSocket) break;
      } catch {
        // not yet
      }
      if (i > 100) return await fail("munged did not create its socket within 10 s");
      await sleep(100);
    }

    const ctldPort = freePort([]);
    const slurmdPort = freePort([ctldPort, ctldPort + 1]);
    const cpus = navigator.hardwareConcurrency || 1;
    await Deno.writeTextFile(conf, slurmConf({ dir, host, cpus, ctldPort, slurmdPort }));
    spawn(
      "slurmctld",
      [which("slurmctld", path)!, "-D", "-i", "-f", conf],
      `${dir}/slurmctld.out`,
    );
    spawn("slurmd", [which("slurmd", path)!, "-D", "-f", conf, "-N", host], `${dir}/slurmd.out`);

    const end = Date.now() + readyTimeoutMs;
    let last = "";
    while (true) {
      const r = await run(["sinfo", "-h", "-N", "-o", "%N %t"]);
      last = (r.stdout + r.stderr).trim();
      if (r.code === 0 && /^\S+ idle$/m.test(last)) break;
      if (/\b(down|drain|fail)/.test(last)) {
        // ReturnToService=2 should bring it back; nudge it.
        await run(["scontrol", "update", `NodeName=${host}`, "State=RESUME"]);
      }
      if (Date.now() > end) {
        return await fail(
          `Slurm node not idle within ${readyTimeoutMs / 1000} s (sinfo: ${last})`,
        );
      }
      await sleep(250);
    }
  } catch (e) {
    return await fail(`starting Slurm failed: ${e instanceof Error ? e.message : String(e)}`);
  }

  const sbatch = async (args: string[], opts: RunOptions = {}) => {
    const r = await run(["sbatch", "--parsable", ...args], opts);
    // --parsable prints "JOBID" or "JOBID;CLUSTER".
    const id = r.stdout.trim().split(";")[0];
    if (r.code !== 0 || !/^\d+$/.test(id)) {
      throw new Error(
        `sbatch ${args.join(" ")} failed (${r.code}): ${r.stderr}${r.stdout}\n${logTail()}`,
      );
    }
    return id;
  };

  const taskStates = async (jobId: string) => {
    const r = await run(["squeue", "-h", "-r", "-j", jobId, "-o", "%i %T"]);
    const states: Record<string, string> = {};
    if (r.code !== 0) return states;
    for (const line of r.stdout.split("\n")) {
      const [id, state] = line.trim().split(/\s+/);
      if (id) states[id] = state;
    }
    return states;
  };

  const waitForJob = async (jobId: string, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs;
    while (true) {
      const r = await run(["squeue", "-h", "-j", jobId, "-o", "%i %T"]);
      // Once the job (all of its array tasks) left the queue and MinJobAge
      // purged it, squeue says "Invalid job id specified" (exit 1).
      if (r.code === 0 && r.stdout.trim() === "") return;
      if (r.code !== 0 && /Invalid job id/i.test(r.stderr)) return;
      if (Date.now() > end) {
        throw new Error(
          `job ${jobId} still queued after ${timeoutMs} ms: ${r.stdout}${r.stderr}\n${logTail()}`,
        );
      }
      await sleep(250);
    }
  };

  return { env, dir, hostname: host, conf, run, sbatch, taskStates, waitForJob, logTail, stop };
}

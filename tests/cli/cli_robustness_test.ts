// Issue 18 through a real `evtsim` process: inputs are never overwritten,
// filesystem faults on outputs are one line with nothing left behind, disk
// full keeps the old outputs, --infile_list refuses mixed traces and counts
// --max_jobs across files, unrepresentable numbers are refused, a closed
// stdout is not an error, and SIGINT/SIGTERM remove the temporaries.

import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { assert, assertEquals } from "../_assert.ts";
import { cliCommand, recordProcessRun, runCli, runCliProcess } from "../_cli.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-robust-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const H = "job_submit_time,num_nodes,time_limit,actual_run_time";
const TRACE = `${H}\n0,4,100,50\n10,8,100,100\n20,2,50,10\n`;

function listDir(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of Deno.readDirSync(dir)) {
    out[e.name] = e.isFile
      ? Deno.readTextFileSync(`${dir}/${e.name}`)
      : e.isDirectory
      ? "<dir>"
      : "<other>";
  }
  return out;
}

/**
 * One line starting with `evtsim: `, exit 1, the folder exactly as it was.
 * The first case of each kind runs as a real process, the others in-process
 * (the same `main`, without the process start-up cost).
 */
async function refused(
  dir: string,
  args: string[],
  mention: string,
  how: "process" | "in-process" = "in-process",
): Promise<void> {
  const before = snapshot(dir);
  // Run in `dir`, where the default outputs would go, so they are checked too.
  const here = Deno.cwd();
  Deno.chdir(dir);
  let r;
  try {
    r = how === "process" ? await runCliProcess(args, { cwd: dir }) : await runCli(args);
  } finally {
    Deno.chdir(here);
  }
  assertEquals(r.code, 1, `${args.join(" ")}\n${r.err.join("\n")}`);
  assertEquals(r.err.length, 1, r.err.join("\n"));
  assert(r.err[0].startsWith("evtsim: "), r.err[0]);
  assert(r.err[0].includes(mention), `${r.err[0]}\nshould mention: ${mention}`);
  assertEquals(snapshot(dir), before);
}

Deno.test("an output that is an input is refused and the input is untouched", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/in.csv`, TRACE);
    Deno.writeTextFileSync(`${d}/p2.csv`, `${H}\n30,1,10,5\n`);
    Deno.writeTextFileSync(`${d}/parts.list`, "in.csv\np2.csv\n");
    Deno.writeTextFileSync(`${d}/cap.csv`, "time,capacity\n0,10\n");
    Deno.writeTextFileSync(`${d}/run.yaml`, "total_nodes: 10\n");
    Deno.symlinkSync(`${d}/in.csv`, `${d}/link.csv`);
    Deno.linkSync(`${d}/in.csv`, `${d}/hard.csv`);
    const sim = ["simulate", `${d}/in.csv`, "-n", "10"];
    await refused(d, [...sim, "-o", `${d}/in.csv`], "is the input trace", "process");
    await refused(d, [...sim, "-R", `${d}/in.csv`], "is the input trace");
    await refused(d, [...sim, "-o", `${d}/./sub/../in.csv`], "is the input trace");
    await refused(d, [...sim, "-o", `${d}/link.csv`], "is the input trace");
    await refused(d, [...sim, "-o", `${d}/hard.csv`], "is the input trace");
    await refused(
      d,
      [...sim, "--capacity_schedule", `${d}/cap.csv`, "-R", `${d}/cap.csv`],
      "--capacity_schedule",
    );
    await refused(d, [...sim, "-c", `${d}/run.yaml`, "--stats_json", `${d}/run.yaml`], "--config");
    await refused(
      d,
      [...sim, "-o", `${d}/x.csv`, "-R", `${d}/x.csv`],
      "name the same file",
      "process",
    );
    const list = ["simulate", "-L", `${d}/parts.list`, "-n", "10"];
    await refused(d, [...list, "-o", `${d}/p2.csv`], "a trace of --infile_list");
    await refused(d, [...list, "-o", `${d}/parts.list`], "the --infile_list file");
  });
});

Deno.test("--infile_list refuses a replay trace after a simulation trace, naming it", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/a.csv`, TRACE);
    Deno.writeTextFileSync(
      `${d}/b.csv`,
      "job_submit_time,num_nodes,time_limit,begin_time,end_time\n30,1,10,30,40\n",
    );
    Deno.writeTextFileSync(`${d}/mixed.list`, "a.csv\nb.csv\n");
    await refused(d, ["simulate", "-L", `${d}/mixed.list`, "-n", "10"], `${d}/b.csv`, "process");
    Deno.writeTextFileSync(`${d}/replay_first.list`, "b.csv\na.csv\n");
    await refused(d, ["simulate", "-L", `${d}/replay_first.list`, "-n", "10"], `${d}/b.csv`);
  });
});

Deno.test("--max_jobs counts data lines across every file of --infile_list", async () => {
  await withDir(async (d) => {
    const rows = (from: number) =>
      Array.from({ length: 20 }, (_, i) => `${(from + i) * 10},1,5,5`).join("\n");
    Deno.writeTextFileSync(`${d}/a.csv`, `${H}\n${rows(0)}\n`);
    Deno.writeTextFileSync(`${d}/b.csv`, `${H}\n${rows(20)}\n`);
    Deno.writeTextFileSync(`${d}/c.csv`, `${H}\n${rows(40)}\n`);
    Deno.writeTextFileSync(`${d}/all.list`, "a.csv\nb.csv\nc.csv\n");
    for (const [j, expected] of [[45, 45], [20, 20], [7, 7], [0, 60]]) {
      const run = j === 45 ? runCliProcess : runCli;
      const r = await run([
        "simulate",
        "-L",
        `${d}/all.list`,
        "-n",
        "4",
        "-j",
        String(j),
        "-o",
        `${d}/out.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const lines = Deno.readTextFileSync(`${d}/out.csv`).trim().split("\n");
      assertEquals(lines.length - 1, expected, `-j ${j}`);
      assert(r.out.includes(`Total jobs: ${expected}`), r.out.join("\n"));
    }
  });
});

Deno.test("option values that a double cannot hold exactly are refused", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/in.csv`, TRACE);
    for (
      const [args, mention] of [
        [["-n", "9007199254740993"], "9007199254740993 cannot be represented exactly"],
        [["-n", "1e300"], "1e300 cannot be represented exactly"],
        [["--seed=99999999999999999999"], "cannot be represented exactly"],
        [["-t", "1e400"], "cannot be represented exactly"],
        [["-n", "12.5"], "expects an integer"],
      ] as const
    ) {
      await refused(
        d,
        ["simulate", `${d}/in.csv`, ...args],
        mention,
        args[1] === "1e300" ? "process" : "in-process",
      );
    }
  });
});

Deno.test("filesystem faults on outputs: one line naming the path, exit 1, nothing left", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/in.csv`, TRACE);
    Deno.mkdirSync(`${d}/folder`);
    Deno.writeTextFileSync(`${d}/file`, "x");
    const sim = ["simulate", `${d}/in.csv`, "-n", "10"];
    await refused(d, [...sim, "-o", `${d}/folder`], "it is a folder", "process");
    await refused(d, [...sim, "-o", `${d}/o.csv`, "-R", `${d}/folder`], `${d}/folder`);
    await refused(d, [...sim, "-o", ""], "--outfile: empty path");
    await refused(d, [...sim, "-o", `${d}/newdir/`], "names a folder");
    await refused(d, [...sim, "-o", "/dev/stdout"], "not a regular file", "process");
    await refused(d, [...sim, "-R", "/dev/null"], "not a regular file");
    await refused(d, [...sim, "-o", `${d}/file/x.csv`], "not a folder");
    // A missing folder is created for the outputs, and removed again when the run fails.
    Deno.writeTextFileSync(`${d}/bad.csv`, `${H}\n0,x,1,1\n`);
    await refused(
      d,
      ["simulate", `${d}/bad.csv`, "-o", `${d}/new/deep/o.csv`],
      "num_nodes",
      "process",
    );
    const ok = await runCliProcess([...sim, "-o", `${d}/new/deep/o.csv`]);
    assertEquals(ok.code, 0, ok.err.join("\n"));
    assertEquals(listDir(`${d}/new/deep`), ["o.csv", "o_resources.csv"]);
  });
});

/** Mounts a tmpfs at a new folder, or says why it cannot. */
async function mountTmpfs(options: string): Promise<{ dir?: string; reason?: string }> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-tmpfs-" });
  try {
    const r = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", options, "tmpfs", dir],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (r.success) return { dir };
    await Deno.remove(dir);
    return { reason: new TextDecoder().decode(r.stderr).trim() || `mount exited ${r.code}` };
  } catch (e) {
    await Deno.remove(dir);
    return { reason: (e as Error).message };
  }
}

async function unmount(dir: string): Promise<void> {
  await new Deno.Command("umount", { args: [dir] }).output();
  await Deno.remove(dir);
}

// The tmpfs tests need to mount one (root, a kernel that allows it): where
// that cannot be done they are registered as ignored, the reason printed once.
const noTmpfs = await (async () => {
  const m = await mountTmpfs("size=16k");
  if (m.dir === undefined) return m.reason;
  await unmount(m.dir);
  return undefined;
})();
if (noTmpfs !== undefined) console.log(`ignored: cannot mount a tmpfs here (${noTmpfs})`);

/** A tmpfs the probe above could mount; failing to mount one now is a failure. */
async function mounted(options: string): Promise<string> {
  const m = await mountTmpfs(options);
  if (m.dir === undefined) throw new Error(`cannot mount a tmpfs (${options}): ${m.reason}`);
  return m.dir;
}

Deno.test({
  name: "disk full (a 200 KiB tmpfs): old outputs stay byte-identical, one line, no temporaries",
  ignore: noTmpfs !== undefined,
}, async () => {
  const m = { dir: await mounted("size=200k") };
  try {
    await withDir(async (d) => {
      // 6000 jobs write about 330 KiB of schedule and resource rows.
      const rows = Array.from(
        { length: 6000 },
        (_, i) => `${i * 3},${1 + (i % 7)},100,${20 + (i % 50)}`,
      );
      Deno.writeTextFileSync(`${d}/big.csv`, `${H}\n${rows.join("\n")}\n`);
      Deno.writeTextFileSync(`${m.dir}/s.csv`, "old schedule\n");
      Deno.writeTextFileSync(`${m.dir}/r.csv`, "old resources\n");
      const before = snapshot(m.dir!);
      const r = await runCliProcess([
        "simulate",
        `${d}/big.csv`,
        "-n",
        "16",
        "-o",
        `${m.dir}/s.csv`,
        "-R",
        `${m.dir}/r.csv`,
      ]);
      assertEquals(r.code, 1, r.err.join("\n"));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${m.dir}/`), r.err[0]);
      assert(r.err[0].endsWith("no space left on device"), r.err[0]);
      assertEquals(snapshot(m.dir!), before);
    });
  } finally {
    await unmount(m.dir);
  }
});

Deno.test({
  name: "a read-only folder: refused before the run with one line",
  ignore: noTmpfs !== undefined,
}, async () => {
  const m = { dir: await mounted("ro,size=64k") };
  try {
    await withDir(async (d) => {
      Deno.writeTextFileSync(`${d}/in.csv`, TRACE);
      const r = await runCliProcess([
        "simulate",
        `${d}/in.csv`,
        "-n",
        "10",
        "-o",
        `${m.dir}/s.csv`,
      ]);
      assertEquals(r.code, 1);
      assertEquals(r.err, [`evtsim: ${m.dir}/s.csv: cannot write: read-only file system`]);
      assertEquals(listDir(m.dir!), []);
    });
  } finally {
    await unmount(m.dir);
  }
});

Deno.test("a closed stdout after a successful run is not an error (exit 0, outputs written)", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/in.csv`, TRACE);
    const args = ["simulate", `${d}/in.csv`, "-n", "10"];
    const child = new Deno.Command(Deno.execPath(), {
      args: cliCommand(args),
      cwd: d, // the default outputs go to the folder it runs in
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await child.stdout.cancel(); // the reader goes away before the statistics are printed
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
    ]);
    recordProcessRun(args, stderr);
    assertEquals(status.code, 0, stderr);
    assertEquals(stderr, "");
    assertEquals(listDir(d), ["in.csv", "in_sim.csv", "in_sim_resources.csv"]);
  });
});

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`${signal} during a run removes the temporaries and exits ${code}`, async () => {
    await withDir(async (d) => {
      Deno.writeTextFileSync(`${d}/a.csv`, TRACE);
      // The second listed trace is a pipe nobody writes: the run blocks reading
      // it, with every output's temporary open.
      const mk = await new Deno.Command("mkfifo", { args: [`${d}/b.csv`] }).output();
      assert(mk.success, "mkfifo failed");
      Deno.writeTextFileSync(`${d}/parts.list`, "a.csv\nb.csv\n");
      Deno.mkdirSync(`${d}/out`);
      Deno.writeTextFileSync(`${d}/out/s.csv`, "old\n");
      const args = ["simulate", "-L", `${d}/parts.list`, "-n", "10", "-o", `${d}/out/s.csv`];
      const child = new Deno.Command(Deno.execPath(), {
        args: cliCommand(args),
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const deadline = Date.now() + 20_000;
      while (!listDir(`${d}/out`).some((n) => n.includes(".tmp-")) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert(listDir(`${d}/out`).some((n) => n.includes(".tmp-")), "no temporary appeared");
      child.kill(signal);
      const [status, stderr] = await Promise.all([
        child.status,
        new Response(child.stderr).text(),
      ]);
      recordProcessRun(args, stderr);
      assertEquals(status.code, code);
      assertEquals(listDir(`${d}/out`), ["s.csv"]);
      assertEquals(Deno.readTextFileSync(`${d}/out/s.csv`), "old\n");
    });
  });
}

Deno.test("SIGINT while the simulation loop is busy is handled within moments", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(
      `${d}/big.csv`,
      traceToCsv(generateTrace({ seed: 3, jobs: 150_000, nodes: 256, load: 1.5, ties: true })),
    );
    const args = ["simulate", `${d}/big.csv`, "-n", "256", "--progress", "-o", `${d}/s.csv`];
    const child = new Deno.Command(Deno.execPath(), {
      args: cliCommand(args),
      stdout: "null",
      stderr: "piped",
    }).spawn();
    // The progress line appears once jobs are being simulated.
    const reader = child.stderr.getReader();
    let seen = "";
    while (!seen.includes("simulating")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    assert(seen.includes("simulating"), seen);
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const status = await child.status;
    recordProcessRun(args, seen.replace(/\r[^\n]*/g, ""));
    assertEquals(status.code, 130);
    assertEquals(listDir(d), ["big.csv"]);
  });
});

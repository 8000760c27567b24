// Interrupts that always work (issue 32 item 4): SIGINT and SIGTERM stop a
// run within a second even while JavaScript is busy and never yields — in a
// user's policy that loops forever, or in one long synchronous step of the
// engine (6,000 jobs at t=0 under conservative_profile) — exit 130 / 143,
// leave the old outputs as they were and no temporary behind. Real processes.

import { cliCommand, processesIn, recordProcessRun, runCli } from "../_cli.ts";
import { AtomicOutputSet } from "../../io/atomic_writer.ts";
import { watchTemporaries } from "../../io/_temporaries.ts";
import { assert, assertEquals } from "../_assert.ts";

const LOOPING_POLICY = `
export const admissions = [{
  name: "loops_forever",
  runSession(s) {
    Deno.writeTextFileSync(${'`${Deno.env.get("MARK")}`'}, "in the loop\\n");
    for (;;) {}
  },
}];
`;

function listDir(d: string): string[] {
  return [...Deno.readDirSync(d)].map((e) => e.name).sort();
}

async function withDir(f: (d: string) => Promise<void>): Promise<void> {
  const d = await Deno.makeTempDir({ prefix: "evtsim-interrupt-" });
  try {
    await f(d);
  } finally {
    await Deno.remove(d, { recursive: true });
  }
}

async function waitFor(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ok()) {
    assert(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends `signal` once `ready` holds; returns the exit code and the seconds it took to exit. */
async function interrupt(
  args: string[],
  signal: "SIGINT" | "SIGTERM",
  ready: () => boolean,
  env: Record<string, string> = {},
): Promise<{ code: number; seconds: number; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliCommand(args),
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  await waitFor("the run to be busy", ready);
  // Busy for a moment more: the signal must not depend on where it lands.
  await new Promise((r) => setTimeout(r, 300));
  const sent = performance.now();
  child.kill(signal);
  // A run that ignores the signal would go on for minutes: end it for good.
  const guard = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const status = await child.status;
  clearTimeout(guard);
  const seconds = (performance.now() - sent) / 1000;
  const text = await stderr;
  recordProcessRun(args, text);
  return { code: status.code, seconds, stderr: text };
}

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  Array.from({ length: 20 }, (_, i) => `${i * 10},4,100,50`).join("\n") + "\n";

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`${signal} stops a policy module that loops forever (exit ${code}, old outputs kept, no temporaries)`, async () => {
    await withDir(async (d) => {
      Deno.writeTextFileSync(`${d}/t.csv`, TRACE);
      Deno.writeTextFileSync(`${d}/loop.ts`, LOOPING_POLICY);
      Deno.mkdirSync(`${d}/out`);
      Deno.writeTextFileSync(`${d}/out/s.csv`, "old\n");
      const r = await interrupt(
        [
          "simulate",
          `${d}/t.csv`,
          "-n",
          "8",
          "--policy_module",
          `${d}/loop.ts`,
          "--admission",
          "loops_forever",
          "-o",
          `${d}/out/s.csv`,
          "--stats_json",
          `${d}/out/new/stats.json`,
        ],
        signal,
        () => listDir(d).includes("mark"),
        { MARK: `${d}/mark` },
      );
      assertEquals(r.code, code, r.stderr);
      // The issue's bound is 1 s; the margin is for a loaded CI machine.
      assert(r.seconds < 5, `took ${r.seconds.toFixed(2)} s to stop`);
      assertEquals(listDir(`${d}/out`), ["s.csv"]);
      assertEquals(Deno.readTextFileSync(`${d}/out/s.csv`), "old\n");
    });
  });
}

Deno.test("SIGTERM stops one long synchronous engine step (6,000 jobs at t=0, conservative_profile)", async () => {
  await withDir(async (d) => {
    const jobs = Array.from(
      { length: 6000 },
      (_, i) => `0,${1 + (i * 7919) % 64},${100 + (i * 104729) % 5000},${50 + (i * 31) % 90}`,
    );
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n" + jobs.join("\n") + "\n",
    );
    Deno.writeTextFileSync(`${d}/s.csv`, "old\n");
    const r = await interrupt(
      [
        "simulate",
        `${d}/t.csv`,
        "-n",
        "64",
        "--admission",
        "conservative_profile",
        "-o",
        `${d}/s.csv`,
      ],
      "SIGTERM",
      () => listDir(d).some((n) => n.includes(".tmp-")),
    );
    assertEquals(r.code, 143, r.stderr);
    assert(r.seconds < 5, `took ${r.seconds.toFixed(2)} s to stop`);
    assertEquals(listDir(d), ["s.csv", "t.csv"]);
    assertEquals(Deno.readTextFileSync(`${d}/s.csv`), "old\n");
  });
});

Deno.test("SIGINT to `evtsim sweep` stops its cells: no cell goes on, none has a result, a rerun runs them", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/t.csv`, TRACE);
    Deno.mkdirSync(`${d}/marks`);
    Deno.mkdirSync(`${d}/tmp`);
    Deno.writeTextFileSync(
      `${d}/loop.ts`,
      LOOPING_POLICY.replace(
        '`${Deno.env.get("MARK")}`',
        '`${Deno.env.get("MARK")}/${Deno.pid}`',
      ),
    );
    Deno.writeTextFileSync(
      `${d}/spec.yaml`,
      "traces: [t.csv]\npolicies: [loops_forever]\ntotal_nodes: [8]\nseeds: [0, 1]\n" +
        "options:\n  policy_module: loop.ts\n",
    );
    const args = ["sweep", `${d}/spec.yaml`, "--results", `${d}/res`, "--jobs", "2"];
    try {
      const r = await interrupt(
        args,
        "SIGINT",
        () => listDir(`${d}/marks`).length === 2,
        // The cells' scratch folders go here, so that none left behind escapes notice.
        { MARK: `${d}/marks`, TMPDIR: `${d}/tmp` },
      );
      assertEquals(r.code, 130, r.stderr);
      // The cells have ended with the sweep, and cleaned up.
      assertEquals(await processesIn(d), []);
      await new Promise((res) => setTimeout(res, 500));
      assertEquals(listDir(`${d}/res/cells`), []);
      assertEquals(listDir(`${d}/tmp`), []);
      // A rerun (the policy fixed) runs both cells.
      Deno.writeTextFileSync(
        `${d}/loop.ts`,
        'export const admissions = [{ name: "loops_forever", runSession(s) {\n' +
          "  for (let j = s.next(); j !== undefined && j.numNodes <= s.free; j = s.next()) " +
          "s.dispatch(j, false);\n} }];\n",
      );
      const again = await new Deno.Command(Deno.execPath(), {
        args: cliCommand(args),
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(again.stdout);
      recordProcessRun(args, new TextDecoder().decode(again.stderr));
      assertEquals(again.code, 0, new TextDecoder().decode(again.stderr));
      assert(out.includes("2 run, 0 already done; 2 ok"), out);
    } finally {
      for (const pid of await processesIn(d)) Deno.kill(pid, "SIGKILL");
    }
  });
});

Deno.test("SIGINT to a sweep of built-in policies (no worker threads: watchdogs) stops its cells in long engine steps", async () => {
  await withDir(async (d) => {
    // As above: 6,000 jobs at t=0 under conservative_profile, one long step per cell.
    const jobs = Array.from(
      { length: 6000 },
      (_, i) => `0,${1 + (i * 7919) % 64},${100 + (i * 104729) % 5000},${50 + (i * 31) % 90}`,
    );
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n" + jobs.join("\n") + "\n",
    );
    Deno.mkdirSync(`${d}/tmp`);
    Deno.writeTextFileSync(
      `${d}/spec.yaml`,
      "traces: [t.csv]\npolicies: [conservative_profile]\ntotal_nodes: [64]\nseeds: [0, 1]\n",
    );
    const args = ["sweep", `${d}/spec.yaml`, "--results", `${d}/res`, "--jobs", "2"];
    try {
      const r = await interrupt(
        args,
        "SIGINT",
        () => listDir(d).includes("res") && listDir(`${d}/res`).includes("cells"),
        { TMPDIR: `${d}/tmp` },
      );
      assertEquals(r.code, 130, r.stderr);
      assert(r.seconds < 5, `took ${r.seconds.toFixed(2)} s to stop`);
      // The cells end on the sweep's SIGTERM (their watchdogs), within moments.
      const deadline = Date.now() + 5_000;
      while ((await processesIn(d)).length > 0 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 50));
      }
      assertEquals(await processesIn(d), []);
      assertEquals(listDir(`${d}/res/cells`), []);
      assertEquals(listDir(`${d}/tmp`), []);
    } finally {
      for (const pid of await processesIn(d)) Deno.kill(pid, "SIGKILL");
    }
  });
});

Deno.test("the supervisor hears of every temporary before it exists and of a commit's renames", async () => {
  await withDir((d) => {
    const heard: string[] = [];
    watchTemporaries({
      made: (p, kind) => heard.push(`made ${kind} ${p.slice(d.length)} ${exists(p)}`),
      released: (p) => heard.push(`released ${p.slice(d.length)} ${exists(p)}`),
      committing: (busy) => heard.push(`committing ${busy}`),
    });
    try {
      const set = new AtomicOutputSet();
      set.open(`${d}/new/a.csv`).line("x");
      set.commit();
    } finally {
      watchTemporaries(undefined);
    }
    const tmp = `/new/a.csv.tmp-${Deno.pid}`;
    assertEquals(heard, [
      "made folder /new false",
      `made file ${tmp} false`,
      "committing true",
      "committing false",
      `released ${tmp} false`,
      "released /new true",
    ]);
    return Promise.resolve();
  });
});

function exists(p: string): boolean {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

Deno.test("SIGTERM stops `evtsim compare` in a looping policy; its scratch folder goes too", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/t.csv`, TRACE);
    Deno.writeTextFileSync(`${d}/loop.ts`, LOOPING_POLICY);
    Deno.mkdirSync(`${d}/tmp`);
    const r = await interrupt(
      [
        "compare",
        `${d}/t.csv`,
        "-n",
        "8",
        "--policy_module",
        `${d}/loop.ts`,
        "--policies",
        "easy,loops_forever",
        "--report",
        `${d}/r.html`,
      ],
      "SIGTERM",
      () => listDir(d).includes("mark"),
      { MARK: `${d}/mark`, TMPDIR: `${d}/tmp` },
    );
    assertEquals(r.code, 143, r.stderr);
    assert(r.seconds < 5, `took ${r.seconds.toFixed(2)} s to stop`);
    assertEquals(listDir(`${d}/tmp`), []);
    assertEquals(listDir(d), ["loop.ts", "mark", "t.csv", "tmp"]);
  });
});

Deno.test("which process model each command gets: a worker only for code that may never return", async () => {
  const { runsInWorker, runsUnderWatchdog } = await import("../../cli/_supervise.ts");
  await withDir((d) => {
    Deno.writeTextFileSync(`${d}/mod.yaml`, "policy_module: p.ts\n");
    Deno.writeTextFileSync(`${d}/plain.yaml`, "total_nodes: 8\n");
    const mode = (args: string[]) =>
      runsInWorker(args) ? "worker" : runsUnderWatchdog(args) ? "watchdog" : "main";
    const table: [string[], string][] = [
      [["simulate", "t.csv", "-n", "8"], "watchdog"],
      [["simulate", "t.csv", "--policy_module", "p.ts"], "worker"],
      [["simulate", "t.csv", "--policy_module=p.ts"], "worker"],
      [["simulate", "t.csv", "-c", `${d}/mod.yaml`], "worker"],
      [["simulate", "t.csv", `--config=${d}/mod.yaml`], "worker"],
      [["simulate", "t.csv", "-c", `${d}/plain.yaml`], "watchdog"],
      [["simulate", "t.csv", "-c", `${d}/missing.yaml`], "watchdog"],
      [["compare", "t.csv", "--policy_module", "p.ts"], "worker"],
      [["compare", "t.csv"], "watchdog"],
      [["report", "s.csv"], "watchdog"],
      [["dump", "r.replay"], "watchdog"],
      [["topo", "simulate"], "watchdog"],
      [["replay", "r.replay"], "worker"],
      [["replay", "r.replay", "-i"], "main"],
      [["sweep", "spec.yaml"], "worker"],
      [["sweep-cell", "spec.yaml", "0"], "worker"],
      // A spec without a policy module: no user code, the watchdog stops it.
      [["sweep", `${d}/plain.yaml`, "--jobs", "2"], "watchdog"],
      [["sweep-cell", `${d}/plain.yaml`, "--stdin", `--results=${d}`], "watchdog"],
      [["sweep", `${d}/mod.yaml`], "worker"],
      [["sweep-cell", `${d}/mod.yaml`, "--cell", "0", "--results", d], "worker"],
      [["sweep", "collect", d], "worker"],
      [["serve"], "main"],
      [["simulate", "--help"], "main"],
      [["help"], "main"],
    ];
    for (const [args, expected] of table) {
      assertEquals(`${args.join(" ")}: ${mode(args)}`, `${args.join(" ")}: ${expected}`);
    }
    return Promise.resolve();
  });
});

Deno.test("the watchdog ends a main thread that never looks at the flag: temporaries removed, exit 137, one line", async () => {
  await withDir(async (d) => {
    const script = `${d}/busy.ts`;
    Deno.writeTextFileSync(
      script,
      `import { startWatchdog } from ${
        JSON.stringify(new URL("../../cli/_watchdog.ts", import.meta.url).href)
      };\n` +
        `import { temporaryMade } from ${
          JSON.stringify(new URL("../../io/_temporaries.ts", import.meta.url).href)
        };\n` +
        "startWatchdog();\n" +
        `Deno.writeTextFileSync(${JSON.stringify(`${d}/out.tmp-1`)}, "half");\n` +
        `temporaryMade(${JSON.stringify(`${d}/out.tmp-1`)}, "file");\n` +
        "await new Promise((r) => setTimeout(r, 100));\n" +
        `Deno.writeTextFileSync(${JSON.stringify(`${d}/ready`)}, "");\n` +
        "for (;;) { /* a phase with no interrupt check */ }\n",
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    await waitFor("the script to be busy", () => listDir(d).includes("ready"));
    const sent = performance.now();
    child.kill("SIGTERM");
    const guard = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const status = await child.status;
    clearTimeout(guard);
    const seconds = (performance.now() - sent) / 1000;
    assertEquals(status.code, 137);
    assert(seconds < 5, `took ${seconds.toFixed(2)} s`);
    assertEquals(listDir(d), ["busy.ts", "ready"]);
    assertEquals(
      (await stderr).trim(),
      "evtsim: interrupted; the run did not stop by itself, so it was killed",
    );
  });
});

Deno.test("a policy that calls Deno.exit(N) ends simulate with N and no temporaries, and fails compare's run in one line", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/t.csv`, TRACE);
    Deno.writeTextFileSync(
      `${d}/quits.ts`,
      'export const admissions = [{ name: "quits", runSession() { Deno.exit(7); } }];\n',
    );
    Deno.writeTextFileSync(`${d}/s.csv`, "old\n");
    const run = async (args: string[]) => {
      const child = new Deno.Command(Deno.execPath(), {
        args: cliCommand(args),
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const out = await child.output();
      clearTimeout(guard);
      const stderr = new TextDecoder().decode(out.stderr);
      recordProcessRun(args, stderr);
      return { code: out.code, stderr };
    };
    const module = ["--policy_module", `${d}/quits.ts`];
    const sim = await run([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "8",
      ...module,
      "--admission",
      "quits",
      "-o",
      `${d}/s.csv`,
    ]);
    assertEquals(sim.code, 7, sim.stderr);
    assertEquals(listDir(d), ["quits.ts", "s.csv", "t.csv"]);
    assertEquals(Deno.readTextFileSync(`${d}/s.csv`), "old\n");
    const cmp = await run([
      "compare",
      `${d}/t.csv`,
      "-n",
      "8",
      ...module,
      "--policies",
      "easy,quits",
    ]);
    assertEquals(cmp.code, 1, cmp.stderr);
    assert(
      cmp.stderr.trim().endsWith(
        "evtsim: a policy called Deno.exit(7) during the run; the run is void",
      ),
      cmp.stderr,
    );
    assertEquals(listDir(d), ["quits.ts", "s.csv", "t.csv"]);
  });
});

Deno.test("compare whose policy fails while another runs beside it leaves no scratch folder (in-process, 8 runs)", async () => {
  await withDir(async (d) => {
    // A run long enough to be under way when the other policy fails at once.
    const jobs = Array.from(
      { length: 20000 },
      (_, i) => `${i * 5},${1 + (i * 7) % 8},100,${10 + (i * 13) % 90}`,
    );
    Deno.writeTextFileSync(
      `${d}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n" + jobs.join("\n") + "\n",
    );
    Deno.writeTextFileSync(
      `${d}/fails.ts`,
      'export const admissions = [{ name: "fails", runSession() { throw new Error("no"); } }];\n',
    );
    Deno.mkdirSync(`${d}/tmp`);
    // The scratch folder goes where Deno.makeTempDir puts it: here, for this test.
    const before = Deno.env.get("TMPDIR");
    Deno.env.set("TMPDIR", `${d}/tmp`);
    try {
      for (let k = 0; k < 8; k++) {
        const r = await runCli([
          "compare",
          `${d}/t.csv`,
          "-n",
          "8",
          "--policy_module",
          `${d}/fails.ts`,
          "--policies",
          "easy,fails",
          "--jobs",
          "2",
        ]);
        assertEquals(r.code, 1, r.err.join("\n"));
        assert(r.err.at(-1)!.startsWith("evtsim: policy 'fails' failed at t=0"), r.err.join("\n"));
        // A worker stopped mid-run must not make the folder again afterwards.
        await new Promise((res) => setTimeout(res, 100));
        assertEquals(listDir(`${d}/tmp`), []);
      }
    } finally {
      if (before === undefined) Deno.env.delete("TMPDIR");
      else Deno.env.set("TMPDIR", before);
    }
  });
});

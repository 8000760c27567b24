// A run blocked at an external round (`simulate --admission external
// --external_command CMD` whose command never answers) stops on SIGINT and
// SIGTERM as any run does: exit 130 / 143 within about a second, the old
// outputs kept, no temporaries, and the hung command ended too. Real
// processes: the engine's thread waits on the answer channel
// (cli/_external_command.ts), where no signal listener of its own can run.

import { cliCommand, recordProcessRun } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  Array.from({ length: 20 }, (_, i) => `${i * 10},4,100,50`).join("\n") + "\n";

function listDir(d: string): string[] {
  return [...Deno.readDirSync(d)].map((e) => e.name).sort();
}

/** Whether process `pid` is still there (and not a zombie), asked of `ps`. */
async function alive(pid: number): Promise<boolean> {
  const r = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  const stat = new TextDecoder().decode(r.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`${signal} stops a run whose --external_command never answers (exit ${code} within a second, old outputs kept, the command ended)`, async () => {
    const d = await Deno.makeTempDir({ prefix: "evtsim-ext-signal-" });
    let commandPid: number | undefined;
    try {
      Deno.writeTextFileSync(`${d}/t.csv`, TRACE);
      Deno.writeTextFileSync(`${d}/s.csv`, "old\n");
      // The command notes its pid and the first round it is asked, then hangs.
      const hung = `echo $$ > '${d}/pid'; head -n 1 > '${d}/asked'; exec sleep 60`;
      const args = [
        "simulate",
        `${d}/t.csv`,
        "-n",
        "8",
        "--admission",
        "external",
        "--external_command",
        hung,
        "-o",
        `${d}/s.csv`,
      ];
      const child = new Deno.Command(Deno.execPath(), {
        args: cliCommand(args),
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const deadline = Date.now() + 60_000;
      const asked = () => {
        try {
          return Deno.readTextFileSync(`${d}/asked`).includes("awaitingDecisions");
        } catch {
          return false;
        }
      };
      while (!asked()) {
        assert(Date.now() < deadline, "the run never reached its first round");
        await new Promise((r) => setTimeout(r, 20));
      }
      commandPid = Number(Deno.readTextFileSync(`${d}/pid`).trim());
      // Blocked at the round for a moment more.
      await new Promise((r) => setTimeout(r, 300));
      const sent = performance.now();
      child.kill(signal);
      // A run that ignores the signal would wait for its command for a minute.
      const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const status = await child.status;
      clearTimeout(guard);
      const seconds = (performance.now() - sent) / 1000;
      // The command must end too (it holds the run's stderr open while it lives).
      const ended = Date.now() + 5000;
      while (await alive(commandPid) && Date.now() < ended) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const left = await alive(commandPid);
      if (left) Deno.kill(commandPid, "SIGKILL");
      const text = await stderr;
      recordProcessRun(args, text);
      assertEquals(status.code, code, text);
      assert(!left, `the command (pid ${commandPid}) was left running`);
      assertEquals(text, "", "stopped silently, as any interrupted run");
      // The bound asked for is about 1 s; the margin is for a loaded machine.
      assert(seconds < 3, `took ${seconds.toFixed(2)} s to stop`);
      assertEquals(listDir(d).filter((n) => n !== "pid" && n !== "asked"), ["s.csv", "t.csv"]);
      assertEquals(Deno.readTextFileSync(`${d}/s.csv`), "old\n");
    } finally {
      if (commandPid !== undefined && await alive(commandPid)) Deno.kill(commandPid, "SIGKILL");
      await Deno.remove(d, { recursive: true });
    }
  });
}

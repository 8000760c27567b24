// `evtsim simulate --admission external --external_command CMD`
// (docs/external-schedulers.md, issue 31 item 4): the external-decision
// protocol from a command of one's own, one JSON line each way. The EASY of
// examples/external_easy.ts as the command gives `-b easy`'s schedule byte
// for byte, and its recording re-simulates without the command.

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const FIXTURES = `${ROOT}tests/fixtures/drevt/`;
const EASY = `${Deno.execPath()} run ${ROOT}examples/external_easy.ts --stdio`;

Deno.test("simulate --external_command: EASY as a command gives -b easy's schedule; its recording re-simulates without it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-extcmd-" });
  try {
    for (
      const name of [
        "scheduler_correctness__05_multiple_backfills",
        "scheduler_correctness__23_mixed_load",
      ]
    ) {
      const f = `${FIXTURES}${name}`;
      const args: string[] = JSON.parse(Deno.readTextFileSync(`${f}/fixture.json`)).args;
      const builtIn = await runCli([
        "simulate",
        `${f}/input.csv`,
        ...args,
        "--outfile",
        `${dir}/a.csv`,
      ]);
      assertEquals(builtIn.code, 0, builtIn.err.join("\n"));
      const at = args.indexOf("--backfill_policy");
      const ext = [...args.slice(0, at), ...args.slice(at + 2), "--admission", "external"];
      const r = await runCli([
        "simulate",
        `${f}/input.csv`,
        ...ext,
        "--external_command",
        EASY,
        "--outfile",
        `${dir}/b.csv`,
        "--record",
        `${dir}/b.replay`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      assertEquals(
        Deno.readTextFileSync(`${dir}/b.csv`),
        Deno.readTextFileSync(`${dir}/a.csv`),
        name,
      );
      const v = await runCli(["replay", `${dir}/b.replay`, "--verify"]);
      assert(
        v.out.join("\n").includes("every decision matches"),
        v.out.join("\n") + v.err.join("\n"),
      );
      for (const file of ["b.csv", "b.replay"]) Deno.removeSync(`${dir}/${file}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

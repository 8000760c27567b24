// Issue 12's acceptance through a real `evtsim replay FILE -i` process
// driven through its stdin (a pipe): break on a job's DISPATCH, continue,
// the job waits with its reason, step runs it, back 1 waits again, continue
// to the end; the decisions written with `set output` are byte for byte
// those of a non-interactive `replay --output`. Also: the end of the input
// ends the session (exit 0), and a broken log is one line and exit 1.

import { runCliProcess, STACK_FRAME } from "../_cli.ts";
import { dispatchWalk, recordDemo, transcript } from "../_repl_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";

/** Runs `evtsim ARGS` as a process with `input` on its stdin; stderr as one text. */
async function withStdin(args: string[], input: string) {
  const r = await runCliProcess(args, { input });
  return { ...r, err: r.err.join("\n") };
}

Deno.test("process: replay -i driven through stdin: break, continue, info job, step, back 1, continue; set output = replay --output", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-process-" });
  const log = await recordDemo(dir);
  const ref = `${dir}/ref.replay`;
  const batch = await runCliProcess(["replay", log, "--output", ref]);
  assertEquals(batch.code, 0, batch.err.join("\n"));
  const out = `${dir}/interactive.replay`;
  const r = await withStdin(
    ["replay", log, "--interactive"],
    [...dispatchWalk(out), ""].join("\n") + "\n", // an empty line does nothing
  );
  assertEquals(r.code, 0, r.err);
  assert(!STACK_FRAME.test(r.err), r.err);
  const t = transcript(r.code, r.out, []);
  assert(t.banner[1] === "[sim] ready before the first event; type 'help' for the commands");
  assert(t.of("continue")[0].includes("breakpoint 1 hit before event #"), t.of("continue")[0]);
  const waiting = t.of("info job 3", 0);
  assert(waiting[0].startsWith("job 3: waiting since 426"), waiting[0]);
  assertEquals(waiting[2], "  pend reason: insufficient_nodes: needs 82 nodes, 64 free");
  assert(t.of("info job 3", 1)[0].startsWith("job 3: running since 750"));
  assertEquals(t.of("info job 3", 2), waiting);
  assert(t.of("continue", 1)[0].startsWith("[sim] end of the log"), t.of("continue", 1)[0]);
  assertEquals(await Deno.readFile(out), await Deno.readFile(ref));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("process: replay -i on a broken log is one line and exit 1; quit leaves at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-process-" });
  await Deno.writeTextFile(`${dir}/bad.replay`, '{"type":"event"}\n');
  const bad = await withStdin(["replay", `${dir}/bad.replay`, "-i"], "step\n");
  assertEquals(bad.code, 1);
  assertEquals(bad.err.trim().split("\n").length, 1, bad.err);
  assert(bad.err.startsWith(`evtsim: ${dir}/bad.replay:1:`), bad.err);
  const log = await recordDemo(dir);
  const q = await withStdin(["replay", log, "-i"], "quit\nstep\n");
  assertEquals(q.code, 0, q.err);
  assertEquals(q.out.at(-1), "(sim) quit");
  await Deno.remove(dir, { recursive: true });
});

// The armed watchdog (cli/_watchdog.ts): simulate's watchdog thread, about
// 14 MiB, starts only when a step may be long — the engine keeps the main
// thread busy for LONG_STRETCH_MS without a turn of the event loop, or a step
// begins with DEEP_QUEUE_JOBS jobs in the system — and then a signal stops
// the run from inside the step as before. Real processes: each script counts
// its own threads (/proc/self/task) and is stopped by real signals.
//
// Nothing here waits a guessed time: on a loaded machine (the full suite on
// a shared 2-core box) the stretch takes longer to reach in wall time, and
// the thread takes longer to load its module and listen, so the tests wait
// for the thread itself and send the signal until it is heard.

import { assert, assertEquals } from "../_assert.ts";
import { LONG_STRETCH_MS } from "../../cli/_watchdog.ts";
import { YIELD_EVERY_MS } from "../../cli/run_loop.ts";

const WATCHDOG = JSON.stringify(new URL("../../cli/_watchdog.ts", import.meta.url).href);
const INTERRUPT = JSON.stringify(new URL("../../core/_interrupt.ts", import.meta.url).href);
const TEMPORARIES = JSON.stringify(new URL("../../io/_temporaries.ts", import.meta.url).href);

function listDir(d: string): string[] {
  return [...Deno.readDirSync(d)].map((e) => e.name).sort();
}

async function withDir(f: (d: string) => Promise<void>): Promise<void> {
  const d = await Deno.makeTempDir({ prefix: "evtsim-watchdog-" });
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

// A script's prelude: the watchdog, a way to count worker threads, one turn
// of the event loop, a busy stretch that calls the engine's check.
const PRELUDE = `
import { armWatchdog, beforeStep, DEEP_QUEUE_JOBS, LONG_STRETCH_MS } from ${WATCHDOG};
import { checkInterrupt } from ${INTERRUPT};
import { temporaryMade } from ${TEMPORARIES};
// Deno names a Worker's thread worker-N.
const threads = () =>
  [...Deno.readDirSync("/proc/self/task")].filter((t) =>
    Deno.readTextFileSync(\`/proc/self/task/\${t.name}/comm\`).startsWith("worker-")
  ).length;
const turn = () => new Promise((r) => setTimeout(r, 0));
const busy = (ms) => {
  const t = performance.now();
  while (performance.now() - t < ms) checkInterrupt();
};
// The thread shows up in /proc a moment after it is created.
const settle = () => new Promise((r) => setTimeout(r, 300));
`;

async function runScript(d: string, body: string): Promise<{ code: number; out: string }> {
  const script = `${d}/s.ts`;
  Deno.writeTextFileSync(script, PRELUDE + body);
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(r.stderr);
  assertEquals(err, "", "stderr");
  return { code: r.code, out: new TextDecoder().decode(r.stdout).trim() };
}

Deno.test("an armed watchdog starts no thread while the engine's stretches are short, and one after a long stretch", async () => {
  await withDir(async (d) => {
    const r = await runScript(
      d,
      `
await settle();
const before = threads();
armWatchdog();
// Stretches of 10 ms with a turn between (simulate's loop gives a turn every 200 ms).
for (let i = 0; i < 20; i++) {
  busy(10);
  await turn();
}
await settle();
const short = threads();
// One long stretch (its CPU time is what counts: a loaded machine gives less than the wall clock).
const t = performance.now();
while (threads() === before && performance.now() - t < 60_000) busy(LONG_STRETCH_MS / 2);
await settle();
const long = threads();
console.log(JSON.stringify({ short: short - before, long: long - before }));
Deno.exit(0);
`,
    );
    assertEquals(r.code, 0);
    const { short, long } = JSON.parse(r.out);
    assertEquals(short, 0, "no thread while every stretch is short");
    assertEquals(long, 1, "a thread after a long stretch");
  });
});

Deno.test("an armed watchdog starts before a step with DEEP_QUEUE_JOBS jobs in the system, not with fewer", async () => {
  await withDir(async (d) => {
    const r = await runScript(
      d,
      `
await settle();
const before = threads();
armWatchdog();
beforeStep(DEEP_QUEUE_JOBS - 1);
await settle();
const shallow = threads();
beforeStep(DEEP_QUEUE_JOBS);
await settle();
const deep = threads();
console.log(JSON.stringify({ shallow: shallow - before, deep: deep - before }));
Deno.exit(0);
`,
    );
    assertEquals(r.code, 0);
    const { shallow, deep } = JSON.parse(r.out);
    assertEquals(shallow, 0);
    assertEquals(deep, 1, "a thread before a deep step");
  });
});

Deno.test("SIGTERM inside a long stretch of an armed run: the watchdog has started, the engine's check exits 143 and removes the temporaries", async () => {
  await withDir(async (d) => {
    const script = `${d}/busy.ts`;
    Deno.writeTextFileSync(
      script,
      PRELUDE + `
import { exitForSignal } from ${WATCHDOG};
Deno.addSignalListener("SIGTERM", () => exitForSignal(143));
armWatchdog();
Deno.writeTextFileSync(${JSON.stringify(`${d}/out.tmp-1`)}, "half");
temporaryMade(${JSON.stringify(`${d}/out.tmp-1`)}, "file");
await turn();
Deno.writeTextFileSync(${JSON.stringify(`${d}/ready`)}, "");
// One step that never ends. It tells the test when the watchdog thread is
// up: the test itself cannot look in /proc/PID/task without --allow-all,
// which \`deno task test\` does not grant (read there, it always saw none).
let seen = false;
for (let t = performance.now();;) {
  checkInterrupt();
  if (!seen && performance.now() - t >= 10) {
    t = performance.now();
    if (threads() === 1) {
      seen = true;
      Deno.writeTextFileSync(${JSON.stringify(`${d}/thread`)}, "");
    }
  }
}
`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    await waitFor("the script to be busy", () => listDir(d).includes("ready"));
    // The thread starts once the stretch has lasted LONG_STRETCH_MS of CPU and
    // wall time, which on a loaded machine takes longer than that.
    await waitFor("the watchdog thread", () => listDir(d).includes("thread"));
    // A signal that lands while the thread is still loading its module goes
    // to the main thread's listener, which runs only when the step ends (here
    // never): send it until the watchdog hears it.
    let done = false;
    const status = child.status.finally(() => done = true);
    const sent = performance.now();
    while (!done && performance.now() - sent < 20_000) {
      child.kill("SIGTERM");
      await Promise.race([status, new Promise((r) => setTimeout(r, 250))]);
    }
    if (!done) child.kill("SIGKILL");
    const { code } = await status;
    const seconds = (performance.now() - sent) / 1000;
    assertEquals(code, 143, await stderr);
    assert(seconds < 5, `took ${seconds.toFixed(2)} s`);
    assertEquals(listDir(d), ["busy.ts", "ready", "thread"]);
  });
});

Deno.test("the stretch that starts the watchdog is twice the loop's turns apart, so an ordinary run never starts it", () => {
  // Between two turns the main thread is busy for YIELD_EVERY_MS plus the
  // step under way; a trigger at or below that starts the thread on every run
  // of more than a few tenths of a second (about 14 MiB each).
  assert(
    LONG_STRETCH_MS >= 2 * YIELD_EVERY_MS,
    `LONG_STRETCH_MS ${LONG_STRETCH_MS} < 2 x ${YIELD_EVERY_MS}`,
  );
});

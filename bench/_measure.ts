// Runs one external command and measures its wall time and peak resident
// set size. Peak RSS comes from GNU `/usr/bin/time -v` when it is there;
// otherwise /proc/<pid>/status VmHWM is polled while the process runs (a
// high-water mark, so sampling cannot miss the peak, only the last moments
// before exit); otherwise it is reported as unknown.

/** What one measured process did. */
export interface Measurement {
  /** Wall seconds from spawn to exit, as seen by this process. */
  readonly seconds: number;
  /** Peak RSS in KiB, or undefined when it could not be measured. */
  readonly peakRssKiB: number | undefined;
  /** Exit code. */
  readonly code: number;
  /** Everything the command printed on stdout. */
  readonly stdout: string;
  /** The command's own stderr (the `time -v` report removed). */
  readonly stderr: string;
  /** Killed after the timeout. */
  readonly timedOut: boolean;
}

/**
 * The median of the runs' peak RSS (the upper one of an even count), or
 * undefined when none was measured. A median like the time columns: the
 * largest of the runs, used before, was the one run on a shared machine whose
 * GC threads got the least CPU (HPC2N EASY: 127-132 MiB, and 146-166 MiB now
 * and then in the same session).
 */
export function medianPeakRss(runs: readonly Measurement[]): number | undefined {
  const peaks = runs.map((r) => r.peakRssKiB).filter((k): k is number => k !== undefined);
  if (peaks.length === 0) return undefined;
  peaks.sort((a, b) => a - b);
  return peaks[peaks.length >> 1];
}

/** How peak RSS is obtained on this machine. */
export type RssMethod = "time -v" | "proc" | "none";

let cachedMethod: RssMethod | undefined;

/** Overrides the detected method (to exercise the fallbacks). */
export function forceRssMethod(method: RssMethod): void {
  cachedMethod = method;
}

/** Picks the RSS method once: GNU time if it runs, else /proc, else none. */
export async function rssMethod(): Promise<RssMethod> {
  if (cachedMethod !== undefined) return cachedMethod;
  cachedMethod = "none";
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-v", "true"],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success && new TextDecoder().decode(out.stderr).includes("Maximum resident set size")) {
      cachedMethod = "time -v";
      return cachedMethod;
    }
  } catch {
    // not installed: try /proc below
  }
  try {
    await Deno.stat(`/proc/${Deno.pid}/status`);
    cachedMethod = "proc";
  } catch {
    // no procfs
  }
  return cachedMethod;
}

const TIME_RSS = /Maximum resident set size \(kbytes\): (\d+)/;

/** Child pids of `pid` (Linux /proc), empty when unknown. */
async function childrenOf(pid: number): Promise<number[]> {
  try {
    const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`);
    return text.trim().split(/\s+/).filter((x) => x !== "").map(Number);
  } catch {
    return [];
  }
}

/** Kills `pid` and its descendants (all started by us), deepest first. */
async function killTree(pid: number): Promise<void> {
  for (const c of await childrenOf(pid)) await killTree(c);
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

async function vmHwm(pid: number): Promise<number | undefined> {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(await Deno.readTextFile(`/proc/${pid}/status`));
    return m === null ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

/**
 * Runs `argv` (no shell) in `cwd`, killing it after `timeoutSeconds`.
 */
export async function measure(
  argv: readonly string[],
  cwd: string,
  timeoutSeconds: number,
): Promise<Measurement> {
  const method = await rssMethod();
  const full = method === "time -v" ? ["/usr/bin/time", "-v", ...argv] : [...argv];
  const t0 = performance.now();
  const child = new Deno.Command(full[0], {
    args: full.slice(1),
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child.pid);
  }, timeoutSeconds * 1000);
  let polled: number | undefined;
  let running = true;
  const poller = method !== "proc" ? Promise.resolve() : (async () => {
    while (running) {
      // The target may be a grandchild (deno re-execs nothing today, but a
      // wrapper script would), so the tree's largest mark is kept.
      for (const pid of [child.pid, ...await childrenOf(child.pid)]) {
        const hwm = await vmHwm(pid);
        if (hwm !== undefined && (polled === undefined || hwm > polled)) polled = hwm;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const out = await child.output();
  const seconds = (performance.now() - t0) / 1000;
  running = false;
  clearTimeout(timer);
  await poller;
  let stderr = new TextDecoder().decode(out.stderr);
  let peak = polled;
  if (method === "time -v") {
    const m = TIME_RSS.exec(stderr);
    peak = m === null ? undefined : Number(m[1]);
    // GNU time appends its report after the command's own stderr.
    const at = stderr.search(/(Command (exited|terminated)[^\n]*\n)?\tCommand being timed:/);
    if (at >= 0) stderr = stderr.slice(0, at);
  }
  return {
    seconds,
    peakRssKiB: peak,
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr,
    timedOut,
  };
}

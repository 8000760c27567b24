// Runs one external command and measures its wall time and peak resident
// set size. Peak RSS comes from GNU `/usr/bin/time -v` when it is there;
// otherwise /proc/<pid>/status VmHWM is polled while the process runs (a
// high-water mark, so sampling cannot miss the peak, only the last moments
// before exit); otherwise it is reported as unknown. `time -v` gives the CPU
// time too (user + system, the process and the children it waited for: a
// sweep's workers), which on a shared machine says more than the wall time.

/** What one measured process did. */
export interface Measurement {
  /** Wall seconds from spawn to exit, as seen by this process. */
  readonly seconds: number;
  /** Peak RSS in KiB, or undefined when it could not be measured. */
  readonly peakRssKiB: number | undefined;
  /** User + system CPU seconds of the process and its children (only with `time -v`). */
  readonly cpuSeconds?: number;
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
const TIME_USER = /User time \(seconds\): ([\d.]+)/;
const TIME_SYSTEM = /System time \(seconds\): ([\d.]+)/;

/**
 * GNU `time -v`'s report at the end of `stderr`: the peak RSS (KiB), the CPU
 * seconds (user + system) and the command's own stderr before it.
 *
 * @example
 * ```ts
 * import { timeReport } from "./_measure.ts";
 * const r = timeReport(
 *   "oops\n\tCommand being timed: \"x\"\n\tUser time (seconds): 1.25\n" +
 *     "\tSystem time (seconds): 0.10\n\tMaximum resident set size (kbytes): 2048\n",
 * );
 * console.assert(r.peakRssKiB === 2048 && r.cpuSeconds === 1.35 && r.stderr === "oops\n");
 * ```
 */
export function timeReport(
  stderr: string,
): { peakRssKiB?: number; cpuSeconds?: number; stderr: string } {
  const rss = TIME_RSS.exec(stderr);
  const user = TIME_USER.exec(stderr), system = TIME_SYSTEM.exec(stderr);
  // GNU time appends its report after the command's own stderr.
  const at = stderr.search(/(Command (exited|terminated)[^\n]*\n)?\tCommand being timed:/);
  return {
    ...(rss === null ? {} : { peakRssKiB: Number(rss[1]) }),
    // Whole hundredths, as the report prints them.
    ...(user === null || system === null
      ? {}
      : { cpuSeconds: Math.round((Number(user[1]) + Number(system[1])) * 100) / 100 }),
    stderr: at >= 0 ? stderr.slice(0, at) : stderr,
  };
}

/** The median of the runs' CPU seconds (the upper one of an even count), undefined when none was measured. */
export function medianCpu(runs: readonly Measurement[]): number | undefined {
  const cpu = runs.map((r) => r.cpuSeconds).filter((c): c is number => c !== undefined);
  if (cpu.length === 0) return undefined;
  cpu.sort((a, b) => a - b);
  return cpu[cpu.length >> 1];
}

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
  let cpuSeconds: number | undefined;
  if (method === "time -v") {
    const r = timeReport(stderr);
    peak = r.peakRssKiB;
    cpuSeconds = r.cpuSeconds;
    stderr = r.stderr;
  }
  return {
    seconds,
    peakRssKiB: peak,
    ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr,
    timedOut,
  };
}

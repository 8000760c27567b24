// bench/traces.ts's cases of many runs (issue 34): where users run many
// simulations, side by side with DR_EVT's reference build in the same run.
// - sweep: 8 KTH cells (easy, none x 100, 128 nodes x actual, limit run
//   times) through `evtsim sweep` with --jobs 1 and --jobs 2, against the same
//   8 runs of DR_EVT in one shell loop;
// - compare: `evtsim compare` of none,easy on HPC2N (its policies side by side
//   on the cores), against DR_EVT's two runs one after another.
// Each figure is the median of `repeat` runs, evtsim and DR_EVT alternating.
// With GNU time, a note gives each case's CPU time too (user + system of the
// whole process tree, medians): on a shared machine the wall time mostly
// says how busy the other users were.

import { measure, type Measurement, medianCpu, medianPeakRss } from "./_measure.ts";
import { formatKiB } from "./_util.ts";

/** What the cases need from bench/traces.ts. */
export interface ManyRunsContext {
  /** `deno run -A <v8 flags> cli/main.ts` (no command). */
  readonly evtsim: readonly string[];
  /** The reference's argv (empty: none). */
  readonly reference: readonly string[];
  /** The prepared KTH and HPC2N CSVs and their job counts (undefined: not run). */
  readonly kth?: { readonly path: string; readonly jobs: number };
  readonly hpc2n?: { readonly path: string; readonly jobs: number };
  readonly dir: string;
  readonly cwd: string;
  readonly repeat: number;
  readonly timeout: number;
  readonly referenceTimeout: number;
}

/** One table row per case and the failures, in bench/traces.ts's columns. */
export interface ManyRunsResult {
  readonly rows: string[][];
  readonly failures: string[];
  readonly notes: string[];
}

const SWEEP_NODES = [100, 128];
const SWEEP_POLICIES = ["easy", "none"];
const SWEEP_MODES = ["actual", "limit"];

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function medianOf(runs: readonly Measurement[]): Measurement {
  const bad = runs.find((r) => r.code !== 0 || r.timedOut);
  if (bad !== undefined) return bad;
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const cpuSeconds = medianCpu(runs);
  return {
    ...sorted[(sorted.length - 1) >> 1],
    peakRssKiB: medianPeakRss(runs),
    ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
  };
}

const count = (n: number) => n.toLocaleString("en-US");

const failed = (m: Measurement) =>
  m.timedOut ? "timeout" : m.code !== 0 ? `exit ${m.code}` : undefined;

/** Runs the sweep and compare cases. */
export async function manyRunCases(c: ManyRunsContext): Promise<ManyRunsResult> {
  const rows: string[][] = [];
  const failures: string[] = [];
  const notes: string[] = [];
  const withRef = c.reference.length > 0;
  const row = (
    input: string,
    label: string,
    jobs: string,
    ours: Measurement,
    ref?: Measurement,
  ) => {
    const bad = failed(ours);
    if (bad !== undefined) failures.push(`${input} ${label}: ${bad}\n${ours.stderr.trim()}`);
    const cells = [
      input,
      label,
      jobs,
      bad ?? ours.seconds.toFixed(2),
      "-",
      formatKiB(ours.peakRssKiB),
      "n/a",
      "n/a",
    ];
    if (withRef) {
      const rbad = ref === undefined ? "-" : failed(ref);
      if (ref !== undefined && rbad !== undefined && !ref.timedOut) {
        failures.push(`reference ${input}: ${rbad}\n${ref.stderr.trim()}`);
      }
      cells.push(
        ref === undefined ? "-" : rbad ?? ref.seconds.toFixed(2),
        ref === undefined || rbad !== undefined ? "-" : formatKiB(ref.peakRssKiB),
        ref !== undefined && bad === undefined && rbad === undefined
          ? `${(ours.seconds / ref.seconds).toFixed(2)}x`
          : "-",
        "n/a",
      );
    }
    rows.push(cells);
    if (bad === undefined && ours.cpuSeconds !== undefined) {
      const theirs = ref !== undefined && failed(ref) === undefined ? ref.cpuSeconds : undefined;
      notes.push(
        `${input} ${label}: CPU ${ours.cpuSeconds.toFixed(2)} s` +
          (theirs === undefined || !(theirs > 0)
            ? ""
            : `, DR_EVT ${theirs.toFixed(2)} s: ${(ours.cpuSeconds / theirs).toFixed(2)}x`) +
          " (user + system of the process tree, median)",
      );
    }
  };

  if (c.kth === undefined) notes.push("sweep case skipped (KTH not available)");
  else {
    const spec = `${c.dir}/sweep_kth.yaml`;
    await Deno.writeTextFile(
      spec,
      `traces: [${JSON.stringify(c.kth.path)}]\npolicies: [${SWEEP_POLICIES.join(", ")}]\n` +
        `total_nodes: [${SWEEP_NODES.join(", ")}]\nrun_time_modes: [${SWEEP_MODES.join(", ")}]\n`,
    );
    const loop = SWEEP_POLICIES.flatMap((b) =>
      SWEEP_NODES.flatMap((n) =>
        SWEEP_MODES.map((r) =>
          [
            ...c.reference,
            c.kth!.path,
            "-n",
            String(n),
            "-p",
            "fcfs",
            "-b",
            b,
            "-r",
            r,
            "-o",
            `${c.dir}/ref_sweep_sim.csv`,
            "-R",
            `${c.dir}/ref_sweep_res.csv`,
          ].map(shellQuote).join(" ") + " > /dev/null"
        )
      )
    ).join(" && ");
    const ours = new Map<number, Measurement[]>([[1, []], [2, []]]);
    const theirs: Measurement[] = [];
    let k = 0;
    for (let i = 0; i < c.repeat; i++) {
      for (const jobs of [1, 2]) {
        // A fresh results folder each time: a sweep skips the cells it has.
        const argv = [
          ...c.evtsim,
          "sweep",
          spec,
          "--results",
          `${c.dir}/sweep_results_${k++}`,
          "--jobs",
          String(jobs),
          "--no_progress",
        ];
        ours.get(jobs)!.push(await measure(argv, c.cwd, c.timeout));
      }
      if (withRef) theirs.push(await measure(["sh", "-c", loop], c.cwd, c.referenceTimeout));
    }
    const ref = withRef ? medianOf(theirs) : undefined;
    for (const jobs of [1, 2]) {
      const label = `8 cells --jobs ${jobs}`;
      row("KTH sweep", label, `8 x ${count(c.kth.jobs)}`, medianOf(ours.get(jobs)!), ref);
    }
  }

  if (c.hpc2n === undefined) notes.push("compare case skipped (HPC2N not available)");
  else {
    const argv = [...c.evtsim, "compare", c.hpc2n.path, "-n", "240", "--policies", "none,easy"];
    const two = ["none", "easy"].map((b) =>
      [
        ...c.reference,
        c.hpc2n!.path,
        "-n",
        "240",
        "-p",
        "fcfs",
        "-b",
        b,
        "-r",
        "actual",
        "-o",
        `${c.dir}/ref_compare_sim.csv`,
        "-R",
        `${c.dir}/ref_compare_res.csv`,
      ].map(shellQuote).join(" ") + " > /dev/null"
    ).join(" && ");
    const ours: Measurement[] = [];
    const theirs: Measurement[] = [];
    for (let i = 0; i < c.repeat; i++) {
      ours.push(await measure(argv, c.cwd, c.timeout));
      if (withRef) theirs.push(await measure(["sh", "-c", two], c.cwd, c.referenceTimeout));
    }
    row(
      "HPC2N compare",
      `none,easy (${navigator.hardwareConcurrency} cores)`,
      `2 x ${count(c.hpc2n.jobs)}`,
      medianOf(ours),
      withRef ? medianOf(theirs) : undefined,
    );
  }
  return { rows, failures, notes };
}

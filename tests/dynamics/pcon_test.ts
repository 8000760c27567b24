// `simulate --trace_type pcon` (issue 30 item 3): DR_EVT's avgpcon, minpcon
// and maxpcon job columns, summed over the running jobs in the resource CSV.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";

const HEADER = "job_submit_time,num_nodes,time_limit,actual_run_time,avgpcon,minpcon,maxpcon";

async function run(dir: string, trace: string, ...more: string[]) {
  await Deno.writeTextFile(`${dir}/p.csv`, trace);
  const r = await runCli([
    "simulate",
    `${dir}/p.csv`,
    "-o",
    `${dir}/o.csv`,
    "--stats_json",
    `${dir}/s.json`,
    ...more,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return {
    schedule: await Deno.readTextFile(`${dir}/o.csv`),
    resources: await Deno.readTextFile(`${dir}/o_resources.csv`),
    energy: JSON.parse(await Deno.readTextFile(`${dir}/s.json`)).energy,
  };
}

Deno.test("pcon: the resource rows carry the running jobs' sums (a hand-computed example)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // 8 nodes, EASY. At 0 jobs 0 (2 nodes) and 1 (3 nodes) start; job 2 (4
    // nodes, at 10) waits for job 1's end at 30 and runs to 50, where job 0
    // ends too: the two ends at 50 go in id order, job 0 first.
    const { resources, energy } = await run(
      dir,
      `${HEADER}\n0,2,100,50,10.5,8,12\n0,3,100,30,1.25,1,2\n10,4,100,20,100,90,110.125\n`,
      "-n",
      "8",
      "--trace_type",
      "pcon",
    );
    assertEquals(
      resources,
      "time,free_nodes,allocated_nodes,avgpcon,minpcon,maxpcon\n" +
        "0,8,0,0.000000,0.000000,0.000000\n" + // baseline
        "0,6,2,10.500000,8.000000,12.000000\n" + // + job 0
        "0,3,5,11.750000,9.000000,14.000000\n" + // + job 1 (10.5 + 1.25, 8 + 1, 12 + 2)
        "30,6,2,10.500000,8.000000,12.000000\n" + // - job 1
        "30,2,6,110.500000,98.000000,122.125000\n" + // + job 2
        "50,4,4,100.000000,90.000000,110.125000\n" + // - job 0
        "50,8,0,0.000000,0.000000,0.000000\n", // - job 2
    );
    // Per job avgpcon x run time: 10.5 x 50, 1.25 x 30, 100 x 20; in total the
    // timeline's integral, 11.75 x 30 + 110.5 x 20 = 2562.5.
    assertEquals(energy, {
      total: 2562.5,
      jobs: 3,
      per_job_mean: (525 + 37.5 + 2000) / 3,
      per_job_max: 2000,
    });
    // compare shows the same energy for the run (energy_j).
    const c = await runCli([
      "compare",
      `${dir}/p.csv`,
      "-n",
      "8",
      "--trace_type",
      "pcon",
      "--policies",
      "easy",
      "--json",
    ]);
    assertEquals(c.code, 0, c.err.join("\n"));
    assertEquals(JSON.parse(c.out.join("\n"))[0].energy_j, 2562.5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pcon: two jobs of one size ending at one instant end in id order (the core's event order)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { resources } = await run(
      dir,
      `${HEADER}\n0,1,100,20,1,1,1\n5,1,100,15,100,100,100\n`,
      "-n",
      "2",
      "--trace_type",
      "pcon",
    );
    assertEquals(resources.trimEnd().split("\n").slice(4), [
      "20,1,1,100.000000,100.000000,100.000000", // job 0 ends first
      "20,2,0,0.000000,0.000000,0.000000",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pcon: the sums are doubles added and taken away in the rows' order, printed as C's %f", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // 0.1 + 0.2 - 0.1 leaves 0.20000000000000004, and taking 0.2 away leaves
    // 2.7755575615628914e-17, which prints as 0.000000 (DR_EVT's doubles do the same).
    const { resources } = await run(
      dir,
      `${HEADER}\n0,1,10,10,0.1,0,0\n0,1,10,20,0.2,0,0\n`,
      "-n",
      "4",
      "--trace_type",
      "pcon",
    );
    assertEquals(
      resources.split("\n").slice(1, -1).map((l) => l.split(",").slice(3, 4)[0]),
      ["0.000000", "0.100000", "0.300000", "0.200000", "0.000000"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The sums over the jobs running at t (begin <= t < end), from the schedule.
function runningSums(schedule: string, pcon: readonly (readonly number[])[]) {
  const jobs = schedule.trimEnd().split("\n").slice(1).map((l) => l.split(",").map(Number));
  return (t: number): number[] => {
    const sum = [0, 0, 0];
    jobs.forEach((j, id) => {
      if (j[1] <= t && t < j[2]) { for (let k = 0; k < 3; k++) sum[k] += pcon[id][k]; }
    });
    return sum;
  };
}

Deno.test("pcon: at each instant the sums are those of the jobs running then; the schedule is the standard run's (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 5, max: 150 }),
      fc.constantFrom("easy", "conservative", "none"),
      fc.integer({ min: 0, max: 1_000_000 }),
      async (seed, n, backfill, valueSeed) => {
        const dir = await Deno.makeTempDir();
        try {
          const trace = generateTrace({ seed, jobs: n, nodes: 32, load: 1.2 });
          let x = valueSeed;
          const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
          const pcon = trace.map(() => {
            const min = Math.round(rand() * 1e5) / 100;
            const avg = min + Math.round(rand() * 1e5) / 1000;
            return [avg, min, avg + Math.round(rand() * 1e4) / 1000];
          });
          const base = traceToCsv(trace).trimEnd().split("\n");
          const csv = [base[0] + ",avgpcon,minpcon,maxpcon"]
            .concat(base.slice(1).map((l, i) => `${l},${pcon[i].join(",")}`)).join("\n") + "\n";
          const standard = await run(dir, traceToCsv(trace), "-n", "32", "-b", backfill);
          const withPcon = await run(dir, csv, "-n", "32", "-b", backfill, "--trace_type", "pcon");
          assertEquals(withPcon.schedule, standard.schedule);
          const rows = withPcon.resources.trimEnd().split("\n").slice(1).map((l) => l.split(","));
          const plain = standard.resources.trimEnd().split("\n").slice(1);
          assertEquals(rows.map((r) => r.slice(0, 3).join(",")), plain);
          const expected = runningSums(withPcon.schedule, pcon);
          // Energy: the integral of the avgpcon column over time is the total,
          // and (every job ran to its end) the sum of the jobs' energies.
          let integral = 0;
          for (let i = 0; i + 1 < rows.length; i++) {
            integral += Number(rows[i][3]) * (Number(rows[i + 1][0]) - Number(rows[i][0]));
          }
          const e = withPcon.energy;
          assertEquals(e.jobs, n);
          const scale = Math.max(1, e.total);
          assert(
            Math.abs(e.total - integral) <= 1e-6 * scale + 1e-6 * Number(rows.at(-1)![0]),
            `${e.total} != ${integral}`,
          );
          assert(
            Math.abs(e.total - e.per_job_mean * e.jobs) <= 1e-9 * scale,
            `${e.total} != jobs' sum`,
          );
          rows.forEach((r, i) => {
            const last = i === rows.length - 1 || rows[i + 1][0] !== r[0];
            if (!last) return;
            const want = expected(Number(r[0]));
            for (let k = 0; k < 3; k++) {
              assert(
                Math.abs(Number(r[3 + k]) - want[k]) < 1e-5,
                `row ${i + 1} at ${r[0]}: column ${k}: ${r[3 + k]} != ${want[k]}`,
              );
            }
          });
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    ),
    { seed: 3003, numRuns: 15 },
  );
});

Deno.test("pcon: a replay trace's rows carry the sums too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { resources } = await run(
      dir,
      "job_submit_time,begin_time,end_time,num_nodes,time_limit,avgpcon,minpcon,maxpcon\n" +
        "0,0,50,2,100,10,9,11\n0,5,20,3,100,1,1,1\n",
      "-n",
      "8",
      "--trace_type",
      "pcon",
    );
    assertEquals(
      resources,
      "time,free_nodes,allocated_nodes,avgpcon,minpcon,maxpcon\n" +
        "0,8,0,0.000000,0.000000,0.000000\n" +
        "0,6,2,10.000000,9.000000,11.000000\n" +
        "5,3,5,11.000000,10.000000,12.000000\n" +
        "20,6,2,10.000000,9.000000,11.000000\n" +
        "50,8,0,0.000000,0.000000,0.000000\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

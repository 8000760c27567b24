// The input readers' fixes through a real `evtsim simulate` process (issue 18,
// items 6, 7, 10, 13, 14; issue 8, items 5 and 6): bad input is one line on
// stderr naming the file, line and field, exit 1, no output file and no stack
// trace; the fallbacks print one notice line and run.

import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SWF = `${ROOT}tests/fixtures/swf/`;

interface Run {
  code: number;
  out: string[];
  err: string[];
  files: string[];
}

async function simulate(dir: string, args: string[]): Promise<Run> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      `${ROOT}cli/main.ts`,
      "simulate",
      ...args,
      "-o",
      `${dir}/out.csv`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = (b: Uint8Array) => new TextDecoder().decode(b).split("\n").filter((l) => l);
  const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith("out"));
  return { code: r.code, out: lines(r.stdout), err: lines(r.stderr), files };
}

async function inDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-readers-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs a trace that must fail with exactly `message` (one line) and leave nothing behind. */
async function refused(csv: string, message: string, extra: string[] = []): Promise<void> {
  await inDir(async (dir) => {
    const path = `${dir}/t.csv`;
    await Deno.writeTextFile(path, csv);
    const r = await simulate(dir, [path, "-n", "16", ...extra]);
    assertEquals(r.code, 1, r.err.join("\n"));
    assertEquals(r.err, [`evtsim: ${path}:${message}`]);
    assertEquals(r.files, []);
    assert(!r.err.join("\n").includes("    at "), "no stack trace");
  });
}

const H = "job_submit_time,num_nodes,time_limit,actual_run_time\n";

Deno.test("CLI: a row with more fields than the header is refused, naming the line", async () => {
  await refused(
    H + "0,4,100,50\n0,4,1,000,500\n",
    "3: field 5: expected 4 comma-separated fields (as in the header), got more",
  );
});

Deno.test("CLI: an empty timestamp or end_time is an error, not epoch 0", async () => {
  const empty = "expected a timestamp (epoch seconds or a date-time), got ''";
  await refused(H + "0,4,100,50\n,4,100,50\n", `3: job_submit_time: ${empty}`);
  await refused(
    "job_submit_time,begin_time,end_time,num_nodes,time_limit\n0,0,,4,100\n",
    `2: end_time: ${empty}`,
  );
});

Deno.test("CLI: a negative submit time or a year before 1970 names file, line and field", async () => {
  await refused(
    H + "0,4,100,50\n-5,4,100,50\n",
    "3: job_submit_time: expected a time at or after 1970-01-01 00:00:00 UTC (epoch 0), got '-5' (-5 s)",
  );
  await refused(
    "job_submit_time,num_nodes,time_limit\n1969-12-31 23:59:59,4,100\n",
    "2: job_submit_time: expected a time at or after 1970-01-01 00:00:00 UTC (epoch 0), got '1969-12-31 23:59:59' (-1 s)",
    ["--timezone", "UTC"],
  );
});

Deno.test("CLI: integers beyond 2^53 in a trace are refused, not rounded", async () => {
  await refused(
    H + "9007199254740993,4,100,50\n",
    "2: job_submit_time: expected epoch seconds of at most 2^53 - 1, got '9007199254740993'",
  );
  await refused(
    H + "0,9007199254740993,100,50\n",
    "2: num_nodes: expected an integer of at most 2^53 - 1 (9007199254740991), got '9007199254740993'",
  );
});

Deno.test("CLI: no actual_run_time column under run_time_mode actual: one notice, jobs run for their limit", async () => {
  await inDir(async (dir) => {
    const path = `${dir}/t.csv`;
    await Deno.writeTextFile(path, "job_submit_time,num_nodes,time_limit\n0,4,100\n10,16,50\n");
    const r = await simulate(dir, [path, "-n", "16"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err, [
      `${path}: no actual run time column (actual_run_time, actual_runtime, duration, actual_duration, run_time): such jobs run for their time limit (run_time_mode actual, as DR_EVT does)`,
    ]);
    // job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit
    const rows = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").slice(1);
    assertEquals(rows, ["0,0,100,4,0,100", "10,100,150,16,0,50"]);
  });
});

Deno.test("CLI: empty and zero actual_run_time values run for the limit, as DR_EVT does", async () => {
  await inDir(async (dir) => {
    const path = `${dir}/t.csv`;
    await Deno.writeTextFile(path, H + "0,4,100,0\n10,8,50,20\n20,2,30,\n");
    const r = await simulate(dir, [path, "-n", "10"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err, [
      `${path}: 2 job(s) with an empty or zero actual_run_time: such jobs run for their time limit (run_time_mode actual, as DR_EVT does)`,
    ]);
    // DR_EVT's schedule for this trace (reference simulator, EASY, 10 nodes).
    const rows = Deno.readTextFileSync(`${dir}/out.csv`).trim().split("\n").slice(1);
    assertEquals(rows, ["0,0,100,4,0,100", "10,100,120,8,0,50", "20,20,50,2,0,30"]);
  });
});

Deno.test("CLI: --swf_unit nodes takes procs per node from the header (SDSC-BLUE: 1152 / 144 = 8)", async () => {
  await inDir(async (dir) => {
    const r = await simulate(dir, [`${SWF}sdsc_blue_300.swf`, "--swf_unit", "nodes"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(
      r.err.includes(
        `${SWF}sdsc_blue_300.swf: sizes in nodes of 8 processors (MaxProcs / MaxNodes)`,
      ),
      r.err.join("\n"),
    );
    assert(r.err.includes(`${SWF}sdsc_blue_300.swf: machine size from the header: 144 nodes`));
    assert(r.out.includes("Total nodes: 144"), r.out.join("\n"));
    // An explicit value still wins.
    const four = await simulate(dir, [
      `${SWF}sdsc_blue_300.swf`,
      "--swf_unit",
      "nodes",
      "--procs_per_node",
      "4",
    ]);
    assert(four.out.includes("Total nodes: 288"), four.out.join("\n"));
  });
});

Deno.test("CLI: a multi-member gzip SWF log is read, not refused as corrupt", async () => {
  await inDir(async (dir) => {
    const text = await Deno.readTextFile(`${SWF}sdsc_blue_300.swf`);
    const half = text.length >> 1;
    const parts: Uint8Array[] = [];
    for (const piece of [text.slice(0, half), text.slice(half)]) {
      const z = new Blob([piece]).stream().pipeThrough(new CompressionStream("gzip"));
      parts.push(new Uint8Array(await new Response(z).arrayBuffer()));
    }
    const path = `${dir}/blue.swf.gz`;
    await Deno.writeFile(path, new Uint8Array([...parts[0], ...parts[1]]));
    const r = await simulate(dir, [path]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err[0], `${path}: read 300 jobs, accepted 281, skipped 19`);
  });
});

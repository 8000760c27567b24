// The bundled SWF fixtures through the public command: the load report on
// stderr and the first and last five schedule rows, pinned.

import { runCli } from "../_cli.ts";
import { readSwf } from "../../io/swf.ts";
import { assertEquals } from "../_assert.ts";

const FIXTURES = new URL("../fixtures/swf/", import.meta.url).pathname;

async function simulate(file: string, extra: string[] = []) {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-swf-" });
  try {
    const { code, err, out } = await runCli([
      "simulate",
      FIXTURES + file,
      "-o",
      `${dir}/s.csv`,
      ...extra,
    ]);
    const rows = code === 0 ? Deno.readTextFileSync(`${dir}/s.csv`).trim().split("\n") : [];
    return { code, err, out, rows };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("KTH prefix (500 jobs, EASY on the header's 100 processors)", async () => {
  const r = await simulate("kth_500.swf.gz");
  assertEquals(r.code, 0);
  assertEquals(r.err[0], `${FIXTURES}kth_500.swf.gz: read 500 jobs, accepted 500, skipped 0`);
  assertEquals(r.rows.length, 501);
  assertEquals(r.rows.slice(0, 6), [
    "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit",
    "599850,599850,603327,4,0,53940",
    "600022,600022,602510,25,0,3600",
    "600476,600476,815813,5,0,215400",
    "600836,600836,636209,17,0,36000",
    "603930,603930,603959,8,0,2400",
  ]);
  assertEquals(r.rows.slice(-5), [
    "883889,883889,883900,1,0,240",
    "883910,883910,884021,1,0,180",
    "885210,885210,885876,1,0,900",
    "886438,886438,886801,1,0,1200",
    "888277,888277,888429,1,0,3600",
  ]);
});

Deno.test("SDSC-BLUE prefix (300 lines: 19 skipped for run time, 11 overruns killed)", async () => {
  const r = await simulate("sdsc_blue_300.swf");
  assertEquals(r.code, 0);
  assertEquals(r.err[0], `${FIXTURES}sdsc_blue_300.swf: read 300 jobs, accepted 281, skipped 19`);
  assertEquals(r.rows.length, 282);
  assertEquals(r.rows.slice(1, 6), [
    "430593,430593,481459,256,0,64800",
    "430730,430730,441500,256,0,28800",
    "433750,433750,446451,256,0,64500",
    "437926,437926,440720,64,0,60000",
    "440070,440070,440113,32,0,64800",
  ]);
  assertEquals(r.rows.slice(-5), [
    "592767,592767,592812,24,0,3600",
    "592798,592798,592999,32,0,1800",
    "592808,592808,593010,32,0,1800",
    "592827,592827,595881,24,0,3600",
    "593250,593250,593412,8,0,7200",
  ]);
});

Deno.test("a truncated gzip log is one clear error and leaves no output", async () => {
  const r = await simulate("kth_500_truncated.swf.gz");
  assertEquals(r.code, 1);
  assertEquals(r.err.length, 1);
  assertEquals(r.err[0].includes("truncated or corrupt gzip stream"), true);
});

Deno.test("--swf_replay_wait replays each job with its recorded wait", async () => {
  const r = await simulate("kth_500.swf.gz", ["--swf_replay_wait"]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const log = await readSwf(FIXTURES + "kth_500.swf.gz", { replayRecordedWait: true });
  assertEquals(
    r.rows.slice(1).map((l) => l.split(",").slice(0, 3).join(",")),
    log.recorded.map((j) => `${j.submitTime},${j.beginTime},${j.endTime}`),
  );
});

// The `@evtsim/evtsim/io` entry (issue 8, item 3): traces read from strings,
// files and streams (plain or gzip) give the same jobs, and the CSV writers
// write exactly what the `evtsim` command writes.

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { Simulation } from "../../mod.ts";
import {
  parseSwfText,
  parseTrace,
  readSwf,
  readSwfStream,
  readTrace,
  readTraceStream,
  resourceCsv,
  resourceCsvHeader,
  resourceCsvLine,
  scheduleCsv,
  scheduleCsvHeader,
  scheduleCsvLine,
} from "../../io/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}examples/demo_trace.csv`;
const SDSC = `${ROOT}tests/fixtures/swf/sdsc_blue_300.swf`;

function gzipStream(text: string): ReadableStream<Uint8Array> {
  return new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
}

Deno.test("io: a trace from a string, a file, a stream and a gzip stream gives the same jobs", async () => {
  const text = await Deno.readTextFile(DEMO);
  const fromString = parseTrace(text, { file: "demo" });
  assert(fromString.jobs.length > 1000, "the demo trace");
  for (
    const t of [
      await readTrace(DEMO, {}),
      await readTraceStream(new Blob([text]).stream(), { file: "demo" }),
      await readTraceStream(gzipStream(text), { file: "demo" }),
    ]
  ) {
    assertEquals(t.jobs, fromString.jobs);
    assertEquals(t.linesRead, fromString.linesRead);
  }
  // Errors from a stream name the stream and the line.
  const bad = new Blob(["job_submit_time,num_nodes,time_limit\n0,1,1\n0,x,1\n"]).stream();
  let message = "";
  await readTraceStream(bad, { file: "stdin" }).catch((e) => message = e.message);
  assertEquals(message, "stdin:3: num_nodes: expected a non-negative integer, got 'x'");
});

Deno.test("io: an SWF log from a file, a stream and a gzip stream gives the same jobs", async () => {
  const text = await Deno.readTextFile(SDSC);
  const expected = parseSwfText(text, "blue");
  for (
    const swf of [
      await readSwf(SDSC),
      await readSwfStream(new Blob([text]).stream(), "blue"),
      await readSwfStream(gzipStream(text), "blue"),
    ]
  ) {
    assertEquals(swf.jobs, expected.jobs);
    assertEquals(swf.report, expected.report);
    assertEquals(swf.machineSize, 1152);
  }
  // Stopping early (maxJobs) cancels the stream.
  const ten = await readSwfStream(gzipStream(text), "blue", { maxJobs: 10 });
  assertEquals(ten.jobs, parseSwfText(text, "blue", { maxJobs: 10 }).jobs);
});

Deno.test("io: the CSV writers write what the evtsim command writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-io-" });
  try {
    for (const msec of [false, true]) {
      const args = ["simulate", DEMO, "-n", "128", "-o", `${dir}/s.csv`, "-R", `${dir}/r.csv`];
      const r = await runCli(msec ? [...args, "--msec_output"] : args);
      assertEquals(r.code, 0, r.err.join("\n"));
      const trace = await readTrace(DEMO, { runTimeMode: "actual" });
      // Whole files from the rows finish() returns ...
      const sim = new Simulation({ totalNodes: 128 });
      sim.appendJobs(trace.jobs);
      const out = sim.finish();
      const layout = { queueColumn: trace.queueColumn, msec };
      assertEquals(scheduleCsv(out.jobs, layout), Deno.readTextFileSync(`${dir}/s.csv`));
      assertEquals(resourceCsv(out.resources, { msec }), Deno.readTextFileSync(`${dir}/r.csv`));
      // ... and line by line from sinks.
      const jobs = [scheduleCsvHeader(layout)];
      const res = [resourceCsvHeader()];
      const streamed = new Simulation({ totalNodes: 128, jobFlushInterval: 1 }, {
        onJobRow: (row) => jobs.push(scheduleCsvLine(row, layout)),
        onResourceRow: (row) => res.push(resourceCsvLine(row, { msec })),
      });
      for (const job of trace.jobs) streamed.appendJob(job);
      streamed.finish();
      assertEquals(jobs.join("\n") + "\n", Deno.readTextFileSync(`${dir}/s.csv`));
      assertEquals(res.join("\n") + "\n", Deno.readTextFileSync(`${dir}/r.csv`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

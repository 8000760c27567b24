// bench/_measure.ts: the peak RSS a benchmark row reports is the median of
// its runs' peaks, like its time columns, not the largest of them.
// Its CPU time (GNU time's user + system) is read from the same report.

import { assertEquals } from "../_assert.ts";
import { type Measurement, medianCpu, medianPeakRss, timeReport } from "../../bench/_measure.ts";

const run = (peakRssKiB: number | undefined): Measurement => ({
  seconds: 1,
  peakRssKiB,
  code: 0,
  stdout: "",
  stderr: "",
  timedOut: false,
});

Deno.test("medianPeakRss: the median of the measured peaks, one outlier does not move it", () => {
  assertEquals(medianPeakRss([130, 166, 127, 132, 129].map(run)), 130);
  assertEquals(medianPeakRss([130].map(run)), 130);
  // An even count: the upper of the two middle peaks.
  assertEquals(medianPeakRss([127, 146, 130, 129].map(run)), 130);
  // Runs whose peak could not be measured do not count.
  assertEquals(medianPeakRss([run(undefined), run(120), run(undefined)]), 120);
  assertEquals(medianPeakRss([run(undefined)]), undefined);
  assertEquals(medianPeakRss([]), undefined);
});

Deno.test("timeReport: CPU seconds (user + system) and peak RSS from GNU time's report, the command's stderr kept", () => {
  const report = '\tCommand being timed: "deno run"\n\tUser time (seconds): 1.62\n' +
    "\tSystem time (seconds): 0.19\n\tPercent of CPU this job got: 97%\n" +
    "\tMaximum resident set size (kbytes): 153120\n";
  const r = timeReport("evtsim: a warning\n" + report);
  assertEquals(r.cpuSeconds, 1.81);
  assertEquals(r.peakRssKiB, 153120);
  assertEquals(r.stderr, "evtsim: a warning\n");
  // A killed command: GNU time's first line goes too.
  assertEquals(timeReport("x\nCommand terminated by signal 9\n" + report).stderr, "x\n");
  // Without a report: nothing measured, the stderr as it was.
  assertEquals(timeReport("plain\n"), { stderr: "plain\n" });
});

Deno.test("medianCpu: the median of the measured CPU times, runs without one left out", () => {
  const cpu = (cpuSeconds?: number): Measurement => ({
    ...run(1),
    ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
  });
  assertEquals(medianCpu([1.7, 1.5, 2.9, 1.6, 1.8].map(cpu)), 1.7);
  assertEquals(medianCpu([cpu(), cpu(0.8)]), 0.8);
  assertEquals(medianCpu([cpu()]), undefined);
});

// bench/_measure.ts: the peak RSS a benchmark row reports is the median of
// its runs' peaks, like its time columns, not the largest of them.

import { assertEquals } from "./_assert.ts";
import { type Measurement, medianPeakRss } from "../bench/_measure.ts";

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

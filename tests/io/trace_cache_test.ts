// The parsed-trace cache of many runs (cli/_trace_cache.ts): runs that differ
// only in what the reader does not use (the machine size; the run-time mode,
// beyond whether a CSV is read for `actual`) share one parse, and each gets
// exactly what its own `loadInput` would give (an SWF report worded for its
// -n; a CSV whose jobs all have a run time read once for every mode); runs
// the reader tells apart, and an edited file, are read again.

import { LOAD_DEFAULTS } from "../_trace_jobs.ts";
import { assert, assertEquals } from "../_assert.ts";
import { TraceCache } from "../../cli/_trace_cache.ts";
import { type LoadedInput, loadInput, type LoadOptions } from "../../cli/load.ts";

const BASE: LoadOptions = LOAD_DEFAULTS;

// What a run sees of an input (the same values as a read of its own).
const seen = (i: LoadedInput) => ({ ...i, swf: i.swf === undefined ? undefined : { ...i.swf } });

Deno.test("trace cache: -n and the run-time mode share a CSV parse where the reader ignores them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-trace-cache-test-" });
  try {
    const path = `${dir}/t.csv`;
    // The second job has no actual run time: read for `actual`, it is warned about.
    await Deno.writeTextFile(
      path,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,10,5\n1,1,20,\n",
    );
    const cache = new TraceCache();
    const runs: Partial<LoadOptions>[] = [
      { totalNodes: 100 },
      { totalNodes: 128 },
      { runTimeMode: "limit", totalNodes: 100 },
      { runTimeMode: "distribution", totalNodes: 128 },
      { runTimeMode: "limit" },
    ];
    for (const r of runs) {
      const options = { ...BASE, ...r };
      assertEquals(seen(await cache.load(path, options)), seen(await loadInput(path, options)));
    }
    // One parse for `actual`, one for the other modes.
    assertEquals(cache.reads, 2);
    const actual = await cache.load(path, { ...BASE, totalNodes: 7 });
    const limit = await cache.load(path, { ...BASE, runTimeMode: "limit" });
    assert(actual !== limit && actual.jobs !== limit.jobs);
    assertEquals(cache.reads, 2);

    // An edited file is read again; now every job has a run time, so the
    // read for `actual` is the one for the other modes too.
    await Deno.writeTextFile(
      path,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,10,5\n1,1,20,3\n",
    );
    for (const r of runs) {
      const options = { ...BASE, ...r };
      assertEquals(seen(await cache.load(path, options)), seen(await loadInput(path, options)));
    }
    assertEquals(cache.reads, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("trace cache: an SWF log is parsed once for every -n, its report worded for each", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-trace-cache-test-" });
  try {
    const path = `${dir}/t.swf`;
    await Deno.writeTextFile(
      path,
      "; MaxProcs: 8\n" +
        "1 0 5 100 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n" +
        "2 3 5 50 16 -1 -1 16 60 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    const cache = new TraceCache();
    const swf: LoadOptions = { ...BASE, format: "swf" };
    const runs: Partial<LoadOptions>[] = [
      { totalNodes: 100 },
      { totalNodes: 128, runTimeMode: "limit" },
      {},
      { totalNodes: 100, runTimeMode: "limit" },
    ];
    const messages = new Set<string>();
    for (const r of runs) {
      const options = { ...swf, ...r };
      const got = await cache.load(path, options);
      assertEquals(seen(got), seen(await loadInput(path, options)));
      messages.add(got.messages.join("\n"));
      // The same input for the same -n (a run's per-input tables are kept by it).
      assert(got === await cache.load(path, options));
    }
    assertEquals(cache.reads, 1);
    assertEquals(messages.size, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

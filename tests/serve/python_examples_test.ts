// examples/python/ works: the standard-library client drives a real
// `evtsim serve` process (loopback, a free port) through serve_example.py and
// ends with `evtsim simulate --stats_json`'s metrics for the same trace, and
// its failures are one line; the pandas example loads the stats JSON, the
// schedule CSV and the Parquet schedule. Each runs only where its Python is
// there (python3; pandas and pyarrow): otherwise the test is reported as
// ignored, its name saying why. Nothing is installed.

import { assert, assertEquals } from "../_assert.ts";
import { cliCommand, recordProcessRun, ROOT, runCli } from "../_cli.ts";
import { METRIC_NAMES } from "../../mod.ts";

const EXAMPLES = `${ROOT}examples/python/`;
const TRACE = `${ROOT}examples/demo_trace.csv`;
const TOKEN = "python-example-token";

/** Runs python3 with `args`; null when there is no python3 to run. */
async function python(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string } | null> {
  try {
    const r = await new Deno.Command("python3", {
      args,
      cwd: EXAMPLES,
      env: { PYTHONDONTWRITEBYTECODE: "1", ...env },
      stdin: "null",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: r.code, out: text(r.stdout), err: text(r.stderr) };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

const HAS_PYTHON = (await python(["--version"]))?.code === 0;
const HAS_PANDAS = HAS_PYTHON && (await python(["-c", "import pandas, pyarrow"]))?.code === 0;

/** `evtsim simulate` of the demo trace on 128 nodes with EASY: its stats JSON's metrics. */
async function cliMetrics(dir: string, extra: string[] = []): Promise<Record<string, number>> {
  const stats = `${dir}/cli.json`;
  const r = await runCli([
    "simulate",
    TRACE,
    "-n",
    "128",
    "-o",
    `${dir}/cli.csv`,
    "--stats_json",
    stats,
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return JSON.parse(await Deno.readTextFile(stats)).metrics;
}

/** Starts `evtsim serve` as a process on a free loopback port; returns its URL and a stop. */
async function startServe(): Promise<{ url: string; stop: () => Promise<void> }> {
  const argv = cliCommand(["serve", "--port", "0", "--grpc_port", "off", "--spare_workers", "1"]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    env: { EVTSIM_TOKEN: TOKEN },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* ended already */ }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    recordProcessRun(["serve"], await new Response(child.stderr).text());
  };
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/^HTTP: \S+$/m.test(seen)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  reader.releaseLock();
  const url = /^HTTP: (\S+)$/m.exec(seen)?.[1];
  if (url === undefined) {
    await stop();
    throw new Error(`evtsim serve printed no address: ${seen}`);
  }
  return { url, stop };
}

Deno.test({
  name: HAS_PYTHON
    ? "python: the stdlib client drives evtsim serve to simulate's metrics; failures are one line"
    : "python: the stdlib client example (skipped: no python3 on PATH)",
  ignore: !HAS_PYTHON,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-python-" });
    const serve = await startServe();
    try {
      // A proxy of the environment is not used for the loopback server.
      const r = (await python(["serve_example.py", "--url", serve.url], {
        EVTSIM_TOKEN: TOKEN,
        http_proxy: "http://127.0.0.1:9",
        HTTP_PROXY: "http://127.0.0.1:9",
      }))!;
      assertEquals(r.code, 0, r.err);
      assertEquals(r.err, "");
      const lines = r.out.trimEnd().split("\n");
      assert(lines.some((l) => /^day 1: clock \d+ s, \d+ nodes busy/.test(l)), r.out);
      assert(
        lines.includes(
          "refused as expected: 409 time: cannot advance backwards in time: target 0 is before " +
            "the clock 286997",
        ),
        r.out,
      );
      // The metric set, as the batch run's stats JSON has it (names, order, values).
      const finished = lines.indexOf("finished: 2000 jobs in the schedule");
      assert(finished >= 0, r.out);
      const printed = lines.slice(finished + 1).map((l) => {
        const space = l.indexOf(" ");
        return [l.slice(0, space), JSON.parse(l.slice(space + 1))];
      });
      const expected = await cliMetrics(dir);
      assertEquals(printed.map(([name]) => name), Object.keys(expected));
      assertEquals(Object.fromEntries(printed), expected);
      assertEquals(Object.keys(expected).slice(0, METRIC_NAMES.length), [...METRIC_NAMES]);

      // Refusals and an unreachable server: one line on stderr, exit 1, no traceback.
      const noToken =
        (await python(["serve_example.py", "--url", serve.url], { EVTSIM_TOKEN: "" }))!;
      assertEquals(noToken.code, 1, noToken.out + noToken.err);
      assert(/^serve_example: GET \/health: 401 \w+: .+\n$/.test(noToken.err), noToken.err);
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const closed = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
      listener.close();
      const away = (await python(["serve_example.py", "--url", closed]))!;
      assertEquals(away.code, 1);
      assertEquals(
        away.err,
        `serve_example: GET /health: cannot reach evtsim serve at ${closed} (Connection ` +
          "refused); is it running, and on this address?\n",
      );
      const refused = (await python(
        ["serve_example.py", "--url", serve.url, "--policy", "fastest"],
        { EVTSIM_TOKEN: TOKEN },
      ))!;
      assertEquals(refused.code, 1, refused.out);
      assert(
        /^serve_example: POST \/sessions: 400 validation: backfillPolicy: .+\n$/.test(refused.err),
        refused.err,
      );
      const badRow = `${dir}/bad.csv`;
      await Deno.writeTextFile(badRow, "job_submit_time,num_nodes,time_limit\n0,x,10\n");
      const bad = (await python(["serve_example.py", "--url", serve.url, "--trace", badRow]))!;
      assertEquals(bad.code, 1);
      assert(bad.err.startsWith(`serve_example: ${badRow}:2: not a trace row`), bad.err);
      for (const run of [noToken, away, refused, bad]) {
        assert(!run.err.includes("Traceback"), run.err);
      }
    } finally {
      await serve.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: HAS_PANDAS
    ? "python: the pandas example loads the stats JSON, the schedule CSV and the Parquet schedule"
    : `python: the pandas example (skipped: ${
      HAS_PYTHON ? "python3 cannot import pandas and pyarrow" : "no python3 on PATH"
    })`,
  ignore: !HAS_PANDAS,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-pandas-" });
    try {
      const metrics = await cliMetrics(dir, ["--extended_output"]);
      const r = await runCli([
        "simulate",
        TRACE,
        "-n",
        "128",
        "--extended_output",
        "-o",
        `${dir}/run.parquet`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const out = (await python([
        "load_results.py",
        "--stats_json",
        `${dir}/cli.json`,
        "--schedule",
        `${dir}/cli.csv`,
        "--parquet",
        `${dir}/run.parquet`,
      ]))!;
      assertEquals(out.code, 0, out.err);
      const lines = out.out.split("\n");
      const mean = metrics.wait_mean_s.toFixed(3);
      for (
        const line of [
          `stats: 2000 jobs on 128 nodes, easy backfilling, ${Object.keys(metrics).length} metrics`,
          `mean wait from the schedule: ${mean} s (stats JSON: ${mean} s)`,
          "schedule (Parquet): 2000 jobs",
          "the Parquet schedule has the CSV's values: yes",
        ]
      ) assert(lines.includes(line), `no line "${line}" in:\n${out.out}`);
      const missing = (await python(["load_results.py", "--parquet", `${dir}/none.parquet`]))!;
      assertEquals(missing.code, 1);
      assert(/^load_results: .*none\.parquet: cannot read it/.test(missing.err), missing.err);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

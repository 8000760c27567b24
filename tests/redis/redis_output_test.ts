// `simulate --redis_uri` against a real redis-server (started by the test on a
// free port; `deno task test:redis`, never the default test task): what the
// keys hold is read back and compared with what the same run writes to files.

import { createClient } from "redis";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli, runCliProcess } from "../_cli.ts";
import { redisServerMissing, startRedis } from "./_redis_server.ts";

const DEMO = `${ROOT}examples/demo_trace.csv`;

// Without redis-server on PATH the test is registered as ignored, the reason
// printed once (counted as ignored, never as passed).
const noRedis = redisServerMissing();
if (noRedis !== undefined) console.log(`ignored: ${noRedis}`);

Deno.test({
  name: "simulate --redis_uri: the keys hold what the files hold",
  ignore: noRedis !== undefined,
}, async (t) => {
  const server = await startRedis();
  // Installed, yet it did not come up: a failure, not a skip.
  if ("skip" in server) throw new Error(server.skip);
  const dir = await Deno.makeTempDir();
  const client = createClient({ url: server.uri });
  try {
    await client.connect();
    const files = await runCli([
      "simulate",
      DEMO,
      "-n",
      "128",
      "-o",
      `${dir}/s.csv`,
      "-R",
      `${dir}/r.csv`,
    ]);
    assertEquals(files.code, 0, files.err.join("\n"));
    const schedule = await Deno.readTextFile(`${dir}/s.csv`);
    const resources = await Deno.readTextFile(`${dir}/r.csv`);

    await t.step("a real process: the CSV keys, the stats JSON, the lines it prints", async () => {
      const r = await runCliProcess([
        "simulate",
        DEMO,
        "-n",
        "128",
        "--redis_uri",
        server.uri,
        "--redis_key_prefix",
        "run:a",
        "--stats_json",
        `${dir}/stats.json`,
      ], { cwd: dir });
      assertEquals(r.code, 0, r.err.join("\n"));
      assertEquals(await client.get("run:a:csv"), schedule);
      assertEquals(await client.get("run:a:resources:csv"), resources);
      assertEquals(
        await client.get("run:a:stats_json"),
        await Deno.readTextFile(`${dir}/stats.json`),
      );
      assert(r.out.includes("Schedule written to Redis key: run:a:csv"), r.out.join("\n"));
      // Neither the schedule nor the resource file is made.
      const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
      assertEquals(names, ["r.csv", "s.csv", "stats.json"]);
    });

    await t.step("the job and sample hashes and the sorted indexes (DR_EVT's layout)", async () => {
      const lines = schedule.trimEnd().split("\n");
      const header = lines[0].split(",");
      const ids = await client.sMembers("run:a:job_ids");
      assertEquals(ids.length, lines.length - 1);
      // The demo run rejects no job: the rows are jobs 0, 1, 2 ... in order.
      for (const i of [0, 1, 500, lines.length - 2]) {
        const expected: Record<string, string> = { job_id: String(i) };
        lines[i + 1].split(",").forEach((v, c) => expected[header[c]] = v);
        assertEquals({ ...await client.hGetAll(`run:a:job:${i}`) }, expected);
        const [submit, begin, end, nodes] = lines[i + 1].split(",").map(Number);
        assertEquals(await client.zScore("run:a:by_submit", String(i)), submit);
        assertEquals(await client.zScore("run:a:by_start", String(i)), begin);
        assertEquals(await client.zScore("run:a:by_completion", String(i)), end);
        assertEquals(await client.zScore("run:a:by_resources", String(i)), nodes);
      }
      const samples = resources.trimEnd().split("\n").slice(1);
      assertEquals(await client.zCard("run:a:resources:by_time"), samples.length);
      for (const n of [0, 1, samples.length - 1]) {
        const [time, free, allocated] = samples[n].split(",");
        assertEquals({ ...await client.hGetAll(`run:a:resource:${n}`) }, {
          sample_id: String(n),
          time,
          free_nodes: free,
          allocated_nodes: allocated,
        });
      }
      // Several samples can share a time: the index finds them all.
      const at0 = samples.filter((s) => s.startsWith("0,")).length;
      assertEquals((await client.zRangeByScore("run:a:resources:by_time", 0, 0)).length, at0);
    });

    await t.step("a reused prefix is replaced: the old run's hashes are gone", async () => {
      const r = await runCli([
        "simulate",
        DEMO,
        "-n",
        "128",
        "-j",
        "10",
        "--redis_uri",
        server.uri,
        "--redis_key_prefix",
        "run:a",
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      assertEquals((await client.sMembers("run:a:job_ids")).length, 10);
      assertEquals(await client.exists("run:a:job:500"), 0);
      const samples = (await client.get("run:a:resources:csv"))!.trimEnd().split("\n").length - 1;
      assertEquals(await client.zCard("run:a:resources:by_time"), samples);
      assertEquals(await client.exists(`run:a:resource:${samples}`), 0);
    });

    await t.step(
      "--msec_output: three decimals in the text, scores to the millisecond",
      async () => {
        const trace = `${dir}/frac.csv`;
        await Deno.writeTextFile(
          trace,
          "job_submit_time,num_nodes,time_limit,actual_run_time\n0.2506,1,10,1.5\n",
        );
        const f = await runCli(["simulate", trace, "-n", "2", "-M", "-o", `${dir}/m.csv`]);
        assertEquals(f.code, 0, f.err.join("\n"));
        const r = await runCli([
          "simulate",
          trace,
          "-n",
          "2",
          "-M",
          "--redis_uri",
          server.uri,
          "--redis_key_prefix",
          "run:m",
        ]);
        assertEquals(r.code, 0, r.err.join("\n"));
        assertEquals(await client.get("run:m:csv"), await Deno.readTextFile(`${dir}/m.csv`));
        assertEquals(await client.zScore("run:m:by_submit", "0"), 0.251);
        assertEquals(await client.hGet("run:m:job:0", "job_submit_time"), "0.250");
      },
    );

    await t.step(
      "--trace_type pcon: the sample hashes carry avgpcon, minpcon, maxpcon",
      async () => {
        const trace = `${dir}/pcon.csv`;
        await Deno.writeTextFile(
          trace,
          "job_submit_time,num_nodes,time_limit,actual_run_time,avgpcon,minpcon,maxpcon\n" +
            "0,2,100,50,10.5,8,12\n",
        );
        const r = await runCli([
          "simulate",
          trace,
          "-n",
          "8",
          "--trace_type",
          "pcon",
          "--redis_uri",
          server.uri,
          "--redis_key_prefix",
          "run:p",
        ]);
        assertEquals(r.code, 0, r.err.join("\n"));
        assertEquals({ ...await client.hGetAll("run:p:resource:1") }, {
          sample_id: "1",
          time: "0",
          free_nodes: "6",
          allocated_nodes: "2",
          avgpcon: "10.500000",
          minpcon: "8.000000",
          maxpcon: "12.000000",
        });
      },
    );

    await t.step("a password in the URI is not written to the statistics JSON", async () => {
      // The default user takes any password when the server has none.
      const uri = server.uri.replace("redis://", "redis://default:secret@");
      const r = await runCli([
        "simulate",
        DEMO,
        "-n",
        "128",
        "-j",
        "5",
        "--redis_uri",
        uri,
        "--redis_key_prefix",
        "run:s",
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const stats = (await client.get("run:s:stats_json"))!;
      assert(!stats.includes("secret"), stats);
      assertEquals(
        JSON.parse(stats).options.redis_uri,
        server.uri.replace("redis://", "redis://default:***@"),
      );
    });

    await t.step("a failed run leaves the prefix as it was", async () => {
      const before = await client.get("run:a:csv");
      // Read after the connection is made: the run fails at its line 3.
      await Deno.writeTextFile(
        `${dir}/bad.csv`,
        "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,10,5\nx,1,10,5\n",
      );
      const r = await runCli([
        "simulate",
        `${dir}/bad.csv`,
        "--redis_uri",
        server.uri,
        "--redis_key_prefix",
        "run:a",
      ]);
      assertEquals(r.code, 1);
      assert(/bad\.csv:3/.test(r.err.join("\n")), r.err.join("\n"));
      assertEquals(await client.get("run:a:csv"), before);
    });
  } finally {
    await client.close().catch(() => {});
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

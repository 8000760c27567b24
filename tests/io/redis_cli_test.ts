// `simulate --redis_uri` without a server (the default test run): the
// connection is made before anything is read or written, so an unreachable
// Redis is one line, exit 1, and no file. The tests against a real server are
// tests/redis/ (`deno task test:redis`).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli, runCliProcess } from "../_cli.ts";

const DEMO = `${ROOT}examples/demo_trace.csv`;

// A loopback port nothing listens on (taken and let go at once).
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("simulate --redis_uri: an unreachable Redis is one line, exit 1, no file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const uri = `redis://127.0.0.1:${closedPort()}`;
    const r = await runCliProcess([
      "simulate",
      DEMO,
      "-n",
      "128",
      "--redis_uri",
      uri,
      "--redis_key_prefix",
      "p",
      "--stats_json",
      `${dir}/s.json`,
      "--decisions",
      `${dir}/d.jsonl`,
    ], { cwd: dir });
    assertEquals(r.code, 1);
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(r.err[0].startsWith(`evtsim: cannot connect to Redis at ${uri}: `), r.err[0]);
    assertEquals(r.out, []);
    assertEquals([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate --redis_uri: its option mistakes are one line each", async () => {
  const cases: [string[], RegExp][] = [
    [["--redis_uri", "redis://127.0.0.1:1"], /must be specified together/],
    [["--redis_key_prefix", "p"], /must be specified together/],
    [
      ["--redis_uri", "http://x", "--redis_key_prefix", "p"],
      /cannot connect to Redis at http:\/\/x: .*redis:/,
    ],
    [["--redis_uri", "redis://127.0.0.1:1", "--redis_key_prefix", ""], /prefix cannot be empty/],
    [
      ["--redis_uri", "redis://127.0.0.1:1", "--redis_key_prefix", "p", "-o", "x.swf"],
      /cannot be used with an SWF --outfile/,
    ],
    [
      ["--redis_uri", "redis://127.0.0.1:1", "--redis_key_prefix", "p", "--extended_output"],
      /cannot be used with --extended_output/,
    ],
  ];
  for (const [args, expected] of cases) {
    const r = await runCli(["simulate", DEMO, "-n", "128", ...args]);
    assertEquals(r.code, 1, args.join(" "));
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(expected.test(r.err[0]), `${args.join(" ")}: ${r.err[0]}`);
  }
});

Deno.test("simulate --redis_uri: a password in the URI is not printed", async () => {
  const r = await runCli([
    "simulate",
    DEMO,
    "--redis_uri",
    `redis://user:secret@127.0.0.1:${closedPort()}`,
    "--redis_key_prefix",
    "p",
  ]);
  assertEquals(r.code, 1);
  assert(!r.err[0].includes("secret") && r.err[0].includes("user:***@"), r.err[0]);
});

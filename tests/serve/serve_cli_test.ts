// The `evtsim serve` command: help, start-up refusals, and a real process
// that prints where it listens, serves, and on SIGTERM ends its sessions'
// recordings cleanly (exit 143).

import { cliCommand, recordProcessRun, ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { HttpClient } from "../_service_helpers.ts";

Deno.test("evtsim serve: help and start-up refusals are one line, exit 1", async () => {
  const help = await runCli(["help", "serve"]);
  assertEquals(help.code, 0);
  assert(help.out[0].startsWith("usage: evtsim serve"), help.out[0]);
  assert(help.out.join("\n").includes("--record_dir DIR"));
  assert((await runCli(["--help"])).out.join("\n").includes("serve [options]"));
  for (
    const [args, message] of [
      [["--host", "0.0.0.0", "--port", "0", "--grpc_port", "off"], /needs --token/],
      [["--port", "x"], /--port expects a number/],
      [["--port", "70000", "--grpc_port", "off"], /port number 0-65535/],
      [["--token", "short", "--port", "0", "--grpc_port", "off"], /at least 8 characters/],
      [["--max_sessions", "0"], /must be >= 1/],
      [["--record_dir", `${ROOT}deno.json`, "--port", "0", "--grpc_port", "off"], /not a folder/],
      [["extra"], /unexpected argument 'extra'/],
      [["--nope"], /unknown option '--nope'/],
    ] as const
  ) {
    const r = await runCli(["serve", ...args]);
    assertEquals(r.code, 1, args.join(" "));
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(message.test(r.err[0]), r.err[0]);
  }
});

Deno.test("evtsim serve: a busy port or an address that is not one is one line, exit 1", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = String((busy.addr as Deno.NetAddr).port);
  try {
    for (
      const [args, message] of [
        [
          ["--port", "0", "--grpc_port", port],
          /^evtsim: cannot listen on 127\.0\.0\.1:\d+ \(gRPC\): the port is in use$/,
        ],
        [
          ["--port", port, "--grpc_port", "off"],
          /^evtsim: cannot listen on 127\.0\.0\.1:\d+ \(HTTP\): the port is in use$/,
        ],
        [
          ["--host", "127.999.0.1", "--port", "0"],
          /^evtsim: --host 127\.999\.0\.1 is not an IPv4 address/,
        ],
      ] as const
    ) {
      const r = await runCli(["serve", ...args]);
      assertEquals(r.code, 1, args.join(" "));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(message.test(r.err[0]), r.err[0]);
    }
  } finally {
    busy.close();
  }
});

Deno.test("evtsim serve: a real process prints its addresses, serves, and stops on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-cli-" });
  const argv = cliCommand(["serve", "--port", "0", "--grpc_port", "0", "--record_dir", dir]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { EVTSIM_TOKEN: "token-from-env" },
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (seen.split("\n").length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    reader.releaseLock();
    const http = /^HTTP: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(seen)?.[1];
    assert(http !== undefined && /^gRPC: 127\.0\.0\.1:\d+$/m.test(seen), seen);
    assertEquals((await new HttpClient(http).send("GET", "/health")).status, 401);
    const api = new HttpClient(http, "token-from-env");
    const { sessionId, recording } = await api.ok("POST", "/sessions", { totalNodes: 2 });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [{ submitTime: 0, numNodes: 2, timeLimit: 5 }],
    });
    await api.ok("POST", `/sessions/${sessionId}/advance`, { time: 1 });
    child.kill("SIGTERM");
    const status = await child.status;
    const err = new TextDecoder().decode(
      new Uint8Array(await new Response(child.stderr).arrayBuffer()),
    );
    await child.stdout.cancel().catch(() => {});
    recordProcessRun(["serve"], err);
    assertEquals(status.code, 143, err);
    // The session's recording was ended cleanly and re-simulates.
    const lines = (await Deno.readTextFile(recording.file)).trimEnd().split("\n");
    assertEquals(JSON.parse(lines.at(-1)!).type, "end");
    const r = await runCli(["replay", recording.file, "--verify"]);
    assertEquals(r.code, 0, r.err.join("\n"));
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* stopped already */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("evtsim serve --host '[::1]' prints http://[::1]:PORT and answers there", async () => {
  const argv = cliCommand(["serve", "--host", "[::1]", "--port", "0", "--grpc_port", "0"]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    stdout: "piped",
    stderr: "null",
    stdin: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (seen.split("\n").length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    reader.releaseLock();
    const http = /^HTTP: (http:\/\/\[::1\]:\d+)$/m.exec(seen)?.[1];
    assert(http !== undefined && /^gRPC: \[::1\]:\d+$/m.test(seen), seen);
    assertEquals((await new HttpClient(http).ok("GET", "/health")).ok, true);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
});

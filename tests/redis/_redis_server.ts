// A throwaway redis-server for the Redis tests (`deno task test:redis`): on a
// free loopback port, its working folder a temp folder of its own, no
// persistence; stopped (and its folder removed) by `stop`. Where
// redis-server is not installed the tests are registered as ignored with
// the reason (`redisServerMissing`; the task never installs anything; .ci/run
// does, where it can).

/** A running server. */
export interface RedisServer {
  readonly uri: string;
  readonly port: number;
  stop(): Promise<void>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function answers(port: number): Promise<boolean> {
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    await c.write(new TextEncoder().encode("PING\r\n"));
    const buf = new Uint8Array(16);
    const n = await c.read(buf);
    c.close();
    return n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("+PONG");
  } catch {
    return false;
  }
}

/** Why redis-server cannot be run here (not on PATH), or undefined. */
export function redisServerMissing(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir !== "" && Deno.statSync(`${dir}/redis-server`).isFile) return undefined;
    } catch { /* not here */ }
  }
  return "redis-server is not installed (apt-get install -y redis-server)";
}

/** Starts redis-server, or says why it cannot. */
export async function startRedis(): Promise<RedisServer | { skip: string }> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-redis-" });
  const port = freePort();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("redis-server", {
      args: [
        "--bind",
        "127.0.0.1",
        "--port",
        String(port),
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
      ],
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
  } catch (e) {
    await Deno.remove(dir, { recursive: true });
    if (e instanceof Deno.errors.NotFound) {
      return { skip: "redis-server is not installed (apt-get install -y redis-server)" };
    }
    throw e;
  }
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* exited */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  };
  for (let i = 0; i < 100; i++) {
    if (await answers(port)) return { uri: `redis://127.0.0.1:${port}`, port, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  return { skip: `redis-server did not answer on port ${port} within 5 s` };
}

// `evtsim serve`: one session layer behind two fronts, HTTP/JSON
// (Deno.serve + hono, http.ts) and DR_EVT's gRPC Session stream (grpc.ts).
// Started in-process by the command and by the tests (port 0 picks a free
// port; the bound ports are returned).

import { EvtsimError } from "../../core/errors.ts";
import { describeFsError } from "../../io/fs_errors.ts";
import { httpApp } from "./http.ts";
import { SessionHost, type SessionHostOptions } from "./session_host.ts";

/** Options of {@link startServer}. */
export interface ServerOptions extends SessionHostOptions {
  /** Interface to bind (default 127.0.0.1). A non-loopback one needs a token. */
  readonly host?: string;
  /** HTTP port (0 = a free one). */
  readonly port: number;
  /** gRPC port (0 = a free one); undefined = no gRPC front. */
  readonly grpcPort?: number;
  /** The shared token both fronts require, if set. */
  readonly token?: string;
  /** Version string for the OpenAPI document. */
  readonly version: string;
}

/** A running server. */
export interface RunningServer {
  readonly host: string;
  readonly httpPort: number;
  readonly grpcPort: number | undefined;
  readonly sessions: SessionHost;
  /** Stops both fronts and ends every session's recording. */
  close(): Promise<void>;
}

/** Whether `host` is a loopback address (only this machine can connect). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" ||
    (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) && host.split(".").every((p) => +p <= 255));
}

/** Checks the options that must hold before anything is bound. */
export function checkServerOptions(options: ServerOptions): void {
  const host = options.host ?? "127.0.0.1";
  // Checked here, not by the resolver: a dotted quad with a part over 255 would
  // otherwise go out to DNS as a host name.
  if (/^\d+(\.\d+){3}$/.test(host) && host.split(".").some((p) => Number(p) > 255)) {
    throw new EvtsimError("usage", `--host ${host} is not an IPv4 address (each part is 0-255)`);
  }
  if (!isLoopback(host) && (options.token === undefined || options.token === "")) {
    throw new EvtsimError(
      "usage",
      `binding ${host} (not loopback) needs --token: anyone who can reach it could drive sessions`,
    );
  }
  if (options.token !== undefined && options.token.length < 8) {
    throw new EvtsimError("usage", "--token must be at least 8 characters");
  }
  for (
    const [name, v] of [
      ["session_idle_timeout", options.sessionIdleTimeout],
      ["call_time_limit", options.callTimeLimit],
    ] as const
  ) {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) {
      throw new EvtsimError("usage", `--${name} must be a number of seconds >= 0, got ${v}`);
    }
  }
  const spares = options.spareWorkers ?? 0;
  if (!Number.isSafeInteger(spares) || spares < 0) {
    throw new EvtsimError("usage", `--spare_workers must be an integer >= 0, got ${spares}`);
  }
  const maxSessions = options.maxSessions ?? 64;
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) {
    throw new EvtsimError("usage", `--max_sessions must be a positive integer, got ${maxSessions}`);
  }
  for (const [name, port] of [["port", options.port], ["grpc_port", options.grpcPort]] as const) {
    if (port !== undefined && (!Number.isSafeInteger(port) || port < 0 || port > 65535)) {
      throw new EvtsimError("usage", `--${name} must be a port number 0-65535, got ${port}`);
    }
  }
}

/** `host` without the brackets of an IPv6 literal (`[::1]` → `::1`). */
export function bareHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** `host:port` as a URL writes it (an IPv6 literal in brackets). */
export function hostPort(host: string, port: number): string {
  const bare = bareHost(host);
  return `${bare.includes(":") ? `[${bare}]` : bare}:${port}`;
}

/** One line for a front that cannot bind (busy port, no such address, unresolvable host). */
function cannotListen(front: string, host: string, port: number, e: unknown): EvtsimError {
  const raw = (e as Error)?.message ?? String(e);
  // grpc-js: "No address added out of total 1 resolved errors: [listen EADDRINUSE: ...]"
  const inner = /errors: \[(.*)\]$/.exec(raw)?.[1] ?? raw;
  const why = /EADDRINUSE|in use/i.test(inner)
    ? "the port is in use"
    : /EADDRNOTAVAIL|not available|cannot assign/i.test(inner)
    ? "no such address on this machine"
    : /lookup|ENOTFOUND|not known|resolve|EAI_/i.test(inner)
    ? "the host name does not resolve"
    : inner.split("\n")[0];
  return new EvtsimError("usage", `cannot listen on ${hostPort(host, port)} (${front}): ${why}`);
}

/** Starts the server; resolves once both fronts listen. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  checkServerOptions(options);
  const host = bareHost(options.host ?? "127.0.0.1");
  if (options.recordDir !== undefined) {
    // A missing folder is made, as simulate makes a missing output folder.
    const info = await Deno.stat(options.recordDir).catch(() => undefined);
    if (info === undefined) {
      try {
        await Deno.mkdir(options.recordDir, { recursive: true });
      } catch (e) {
        throw new EvtsimError(
          "usage",
          `--record_dir ${options.recordDir}: cannot make the folder (${describeFsError(e)})`,
        );
      }
    } else if (!info.isDirectory) {
      throw new EvtsimError("usage", `--record_dir ${options.recordDir} is not a folder`);
    }
  }
  const sessions = new SessionHost(options);
  const app = httpApp(sessions, { token: options.token, version: options.version });
  let http: Deno.HttpServer<Deno.NetAddr>;
  try {
    http = serveHttp(host, options.port, app);
  } catch (e) {
    throw cannotListen("HTTP", host, options.port, e);
  }
  let grpc: { port: number; close(): Promise<void> } | undefined;
  if (options.grpcPort !== undefined) {
    const { startGrpc } = await import("./grpc.ts");
    try {
      grpc = await startGrpc(sessions, { host, port: options.grpcPort, token: options.token });
    } catch (e) {
      await http.shutdown();
      throw cannotListen("gRPC", host, options.grpcPort, e);
    }
  }
  // Both fronts listen: start the spare workers (their warm-up runs off this thread).
  sessions.startSpares();
  let closed: Promise<void> | undefined;
  return {
    host,
    httpPort: http.addr.port,
    grpcPort: grpc?.port,
    sessions,
    close() {
      closed ??= (async () => {
        await Promise.all([http.shutdown(), grpc?.close()]);
        sessions.closeAll();
      })();
      return closed;
    },
  };
}

function serveHttp(
  host: string,
  port: number,
  app: ReturnType<typeof httpApp>,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({
    hostname: host,
    port,
    onListen: () => {},
    onError: (e) => {
      console.error(`evtsim serve: ${(e as Error)?.message ?? e}`);
      return new Response(JSON.stringify({ error: "internal error", kind: "internal" }), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    },
  }, (req) =>
    // A copy without the connection's abort signal: Deno's legacy signal (aborted even
    // after a successful response) warns when a middleware copies the request.
    app.fetch(
      new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        ...(req.body === null ? {} : { duplex: "half" }),
      } as RequestInit),
    ));
}

// Helpers of the `evtsim serve` tests: an in-process server on free ports
// that always shuts down, a JSON client for the HTTP front and a gRPC client
// built from the checked-in proto.

import * as grpc from "@grpc/grpc-js";
import { loadProto } from "../api/service/grpc.ts";
import { type RunningServer, type ServerOptions, startServer } from "../api/service/server.ts";

/** Starts a server on free ports, runs `f`, and always closes it; returns what `f` returns. */
export async function withServer<T>(
  options: Partial<ServerOptions>,
  f: (server: RunningServer, http: HttpClient) => Promise<T>,
): Promise<T> {
  const server = await startServer({ port: 0, grpcPort: 0, version: "test", ...options });
  try {
    return await f(server, new HttpClient(`http://127.0.0.1:${server.httpPort}`, options.token));
  } finally {
    await server.close();
  }
}

/** A reply of the HTTP front: status and parsed JSON body. */
export interface Reply {
  // deno-lint-ignore no-explicit-any
  readonly body: any;
  readonly status: number;
}

/** A small JSON client of the HTTP front. */
export class HttpClient {
  constructor(readonly base: string, readonly token?: string) {}

  /** Sends `body` (JSON-encoded unless a string) and parses the JSON reply. */
  async send(method: string, path: string, body?: unknown, headers?: HeadersInit): Promise<Reply> {
    const h = new Headers(headers);
    if (body !== undefined && !h.has("content-type")) h.set("content-type", "application/json");
    if (this.token !== undefined && !h.has("authorization")) {
      h.set("authorization", `Bearer ${this.token}`);
    }
    const res = await fetch(this.base + path, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path}: ${res.status} with a body that is not JSON: ${text}`);
    }
    return { status: res.status, body: parsed };
  }

  /** Sends and requires a 2xx reply; returns its body. */
  // deno-lint-ignore no-explicit-any
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const r = await this.send(method, path, body);
    if (r.status < 200 || r.status > 299) {
      throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return r.body;
  }
}

// deno-lint-ignore no-explicit-any
type Msg = Record<string, any>;

/** A gRPC client of DR_EVT's Session stream: one request at a time, matched by request_id. */
export class GrpcSession {
  readonly #client: grpc.Client;
  // deno-lint-ignore no-explicit-any
  readonly #call: any;
  readonly #waiting = new Map<string, (m: Msg) => void>();
  #next = 1;
  readonly #unclaimed = new Map<string, Msg[]>();
  /** The status the stream ended with, once it has. */
  ended: Promise<grpc.StatusObject>;

  constructor(port: number, token?: string) {
    const proto = loadProto();
    const Service = proto.SimulationService as grpc.ServiceClientConstructor;
    this.#client = new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    if (token !== undefined) md.set("authorization", `Bearer ${token}`);
    // deno-lint-ignore no-explicit-any
    this.#call = (this.#client as any).Session(md);
    this.#call.on("data", (m: Msg) => {
      const id = String(m.request_id);
      const f = this.#waiting.get(id);
      this.#waiting.delete(id);
      // A second message for one request (an external round after an error): kept for `reply`.
      if (f === undefined) this.#unclaimed.set(id, [...(this.#unclaimed.get(id) ?? []), m]);
      f?.(m);
    });
    this.ended = new Promise((resolve) => {
      this.#call.on("status", (s: grpc.StatusObject) => resolve(s));
      this.#call.on("error", () => {});
    });
  }

  /** Sends one request (`{ advance_to: { target_time: 5 } }`) and waits for its reply. */
  request(body: Msg, requestId = String(this.#next++)): Promise<Msg> {
    return new Promise((resolve) => {
      this.#waiting.set(requestId, resolve);
      this.#call.write({ request_id: requestId, ...body });
    });
  }

  /** The next message for `requestId` that no request waited for (or the next to come). */
  reply(requestId: string): Promise<Msg> {
    const kept = this.#unclaimed.get(requestId);
    if (kept !== undefined && kept.length > 0) return Promise.resolve(kept.shift()!);
    return new Promise((resolve) => this.#waiting.set(requestId, resolve));
  }

  /** Sends a request and returns its reply's payload; throws on an ErrorResponse. */
  async ok(body: Msg): Promise<Msg> {
    const reply = await this.request(body);
    if (reply.response === "error") throw new Error(`gRPC error: ${reply.error.message}`);
    return reply[reply.response];
  }

  /** Half-closes the stream and waits for its status; closes the client. */
  async close(): Promise<grpc.StatusObject> {
    this.#call.end();
    const s = await this.ended;
    this.#client.close();
    return s;
  }
}

/** A seeded generator (mulberry32): the same seed, the same stream. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

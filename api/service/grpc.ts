// The gRPC front of `evtsim serve`: DR_EVT's `dr_evt_grpc.SimulationService/
// Session` bidirectional stream (dr_evt_service.proto, DR_EVT's names and
// numbers), over the same session layer as the HTTP front. Every reply
// echoes its request's `request_id`; a request the session refuses gets
// DR_EVT's `ErrorResponse` and the stream goes on. A missing or wrong
// token ends the call with UNAUTHENTICATED, a message over 1 MiB with
// RESOURCE_EXHAUSTED, one that does not decode with grpc-js's INTERNAL.
//
// As in DR_EVT, `append_job(s)` only stores jobs and `submit_job` submits
// them; the session an `init` creates is an ordinary session, so its id
// (InitResponse.session_id) also works on the HTTP front for what DR_EVT's
// protocol has no message for (cancel, external end, updates, decisions,
// recording control); `change_capacity` is evtsim's own, HTTP's capacity
// call with its decoder (node failures too: `failed`). The session is dropped when the stream ends without
// `finish_simulation` (an external session at a round: as its onDisconnect
// says). An external session's rounds (docs/external-schedulers.md) come as
// `round_request`s echoing the request that reached them, answered by
// `decide` messages, which bypass the queue of requests (that request waits
// for them).

import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import type { JobSpec, RunTimeMode } from "../../core/types.ts";
import { MAX_BODY_BYTES } from "./http.ts";
import { capacityOp, type FinishSummary, type SessionOp } from "./_session_ops.ts";
import type { JobDemandFields } from "./_machine_session.ts";
import { parseMeasureWindow } from "../../io/stats_json.ts";
import { parseTrim } from "../../core/_metrics_breakdowns.ts";
import { AwaitingRound, type SessionHandle, type SessionHost } from "./session_host.ts";
import { DecisionsSchema, ExternalOptionsSchema } from "./external_schemas.ts";
import type { ExternalOptions } from "./_external.ts";
import {
  ServiceError,
  type SessionMetricOptions,
  type SessionParams,
  type SessionStatistics,
} from "./sessions.ts";
import { tokenMatches } from "./token.ts";
import { failureParamsOf, failureStatistics, queueUpdateOp } from "./_grpc_failures.ts";

/** The .proto file of the protocol (checked in beside this module). */
export const PROTO_FILE: URL = new URL("./dr_evt_service.proto", import.meta.url);

/** How the proto is loaded, by the server and by clients in the tests. */
export const PROTO_LOADER_OPTIONS: loader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** The loaded `dr_evt_grpc` package (service constructors and message types). */
export function loadProto(): grpc.GrpcObject {
  const def = loader.loadSync(fileURLToPath(PROTO_FILE), PROTO_LOADER_OPTIONS);
  return grpc.loadPackageDefinition(def).dr_evt_grpc as grpc.GrpcObject;
}

type Msg = Record<string, unknown>;
type Call = grpc.ServerDuplexStream<Msg, Msg>;

const PRIORITY = new Set(["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"]);
const BACKFILL = new Set(["easy", "conservative", "none"]);
const RUN_TIME = new Set(["actual", "limit", "distribution", "external"]);
const CAPACITY_CUT = new Set(["drain", "kill"]);
const CAPACITY_SEMANTICS = new Set(["evtsim", "drevt"]);
const QUEUE_IMPL = new Set(["", "circular", "deque", "multimap", "block"]);

function bad(message: string): never {
  throw new ServiceError(400, "usage", message);
}

function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

/**
 * DR_EVT's statistics message from evtsim's statistics; on a machine with
 * evtsim's own `resource_metrics_json` (the per-resource utilization so far).
 */
function statisticsMessage(s: SessionStatistics, available: number): Msg {
  return {
    jobs_submitted: s.jobsStarted,
    jobs_completed: s.jobsCompleted,
    jobs_running: s.jobsRunning,
    jobs_waiting: s.jobsWaiting,
    current_time: s.currentTime,
    total_nodes: s.totalNodes,
    nodes_in_use: s.nodesInUse,
    nodes_available: available,
    utilization: s.utilization,
    avg_wait_time: s.averageWait,
    avg_turnaround_time: s.averageTurnaround,
    makespan: s.makespan,
    ...(s.resources === undefined ? {} : { resource_metrics_json: JSON.stringify(s.resources) }),
    ...failureStatistics(s),
  };
}

function jobOf(m: Msg): JobSpec {
  const submitTime = num(m.submit_time);
  const numNodes = num(m.num_nodes);
  const timeLimit = num(m.limit_time);
  if (numNodes < 1) bad("num_nodes must be at least 1");
  // Proto3 strings default to "": an empty one is no value.
  const text = (
    k: string,
  ) => (typeof m[k] === "string" && m[k] !== "" ? m[k] as string : undefined);
  const [queue, user, account] = [text("queue"), text("user"), text("account")];
  // Proto3 optional numbers are absent when unset. The demand fields go on
  // under the HTTP front's names: the session reads both by the CSV rules
  // (api/service/_machine_session.ts), one decoder for every front.
  const given = (k: string) => (m[k] === undefined || m[k] === null ? undefined : num(m[k]));
  const demand: JobDemandFields = {
    ...(given("num_cores") === undefined ? {} : { numCores: given("num_cores") }),
    ...(text("memory") === undefined ? {} : { memory: text("memory") }),
    ...(given("gpus") === undefined ? {} : { gpus: given("gpus") }),
    ...(text("partition") === undefined ? {} : { partition: text("partition") }),
    ...(text("topology") === undefined ? {} : { topology: text("topology") }),
    // A proto3 map is an empty object when unset.
    ...(typeof m.resources === "object" && m.resources !== null &&
        Object.keys(m.resources).length > 0
      ? { resources: m.resources as Record<string, number> }
      : {}),
  };
  const actual = given("actual_run_time");
  const power = given("power");
  return {
    submitTime,
    numNodes,
    timeLimit,
    ...(actual === undefined ? {} : { actualRunTime: actual }),
    ...(power === undefined ? {} : { power }),
    ...(queue === undefined ? {} : { queue }),
    ...(user === undefined ? {} : { user }),
    ...(account === undefined ? {} : { account }),
    ...demand,
  } as JobSpec;
}

/** The metric options of an InitRequest (simulate's option names and forms). */
function metricOptionsOf(m: Msg, str: (k: string) => string): SessionMetricOptions {
  const tau = m.bsld_tau === undefined || m.bsld_tau === null ? undefined : num(m.bsld_tau);
  const window = str("measure_window"), trim = str("trim"), columns = str("resource_columns");
  if (window !== "" && trim !== "") bad("give measure_window or trim, not both");
  if (columns !== "" && columns !== "drevt" && columns !== "per_resource") {
    bad(`resource_columns must be drevt or per_resource, got '${columns}'`);
  }
  const parsed = <T>(field: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      // The parsers name simulate's option (--trim: ...): name the field instead.
      return bad(`${field}: ${(e as Error).message.replace(/^--\w+: /, "")}`);
    }
  };
  return {
    ...(tau === undefined ? {} : { bsldTau: tau }),
    ...(window === "" ? {} : {
      measureWindow: parsed("measure_window", () => parseMeasureWindow(window)),
    }),
    ...(trim === "" ? {} : { trim: parsed("trim", () => parseTrim(trim)) }),
    ...(columns === "" ? {} : { resourceColumns: columns as "drevt" | "per_resource" }),
  };
}

/** The proto's name of a job field the session's errors name as HTTP does. */
const PROTO_FIELD: Readonly<Record<string, string>> = {
  numCores: "num_cores",
  numNodes: "num_nodes",
  actualRunTime: "actual_run_time",
  timeLimit: "limit_time",
  submitTime: "submit_time",
};

/** An answer a round waits for: the original request's id and where its reply goes. */
interface RoundWait {
  readonly requestId: string;
  readonly round: number;
  resolve(result: unknown): void;
  reject(e: unknown): void;
}

/** One stream's state: the session its `init` created, if any. */
class StreamSession {
  #id: string | undefined;
  /** The request being answered (its id is echoed by its rounds). */
  #requestId = "0";
  /** A call of an external session at a round: what the next `decide` answers. */
  #wait: RoundWait | undefined;

  constructor(readonly host: SessionHost, readonly send: (m: Msg) => Promise<void>) {}

  /**
   * The stream's session. One that is gone (deleted over HTTP, expired, over
   * its budget) is forgotten here, so the next `init` may create another.
   */
  get session(): SessionHandle {
    if (this.#id === undefined) throw new ServiceError(409, "state", "send init first");
    if (!this.host.has(this.#id)) {
      const id = this.#id;
      this.#id = undefined;
      throw new ServiceError(
        404,
        "not_found",
        `session '${id}' is gone (deleted, expired or over its budget): send init for a new one`,
      );
    }
    return this.host.get(this.#id);
  }

  /**
   * Runs a call; at each round of an external session it sends a
   * round_request (echoing the request's id) and waits for the `decide`
   * that answers it, so the request's own reply comes once the call is done.
   */
  async #run(op: SessionOp): Promise<unknown> {
    const session = this.session;
    let r = await session.run(op);
    while (r instanceof AwaitingRound) {
      const requestId = this.#requestId;
      if (r.invalid !== undefined) {
        await this.send({ request_id: requestId, error: { message: r.invalid } });
      }
      const { round, json } = r;
      const answered = new Promise<unknown>((resolve, reject) => {
        this.#wait = { requestId, round, resolve, reject };
      });
      await this.send({ request_id: requestId, round_request: { round_json: json } });
      r = await answered;
    }
    return r;
  }

  /**
   * A `decide` message: hands the answer to the round awaited. Refused
   * (an ErrorResponse, the round still awaited) when none is awaited, for
   * another request, or malformed; an invalid answer comes back as the
   * round again (reask) or ends the waiting request (fail).
   */
  async decide(requestId: string, body: Msg): Promise<void> {
    const fail = (message: string) => this.send({ request_id: requestId, error: { message } });
    const wait = this.#wait;
    if (wait === undefined) {
      return await fail("no round is awaited (no request is at a scheduling round)");
    }
    const original = String(body.request_id ?? "0");
    if (original !== wait.requestId) {
      return await fail(
        `decide.request_id ${original}: the round awaited is request ${wait.requestId}'s`,
      );
    }
    let answer: { round: number };
    try {
      const parsed = DecisionsSchema.safeParse(JSON.parse(String(body.decisions_json ?? "")));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return await fail(
          `decisions_json: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`,
        );
      }
      answer = parsed.data;
    } catch {
      return await fail("decisions_json is not valid JSON");
    }
    let r: unknown;
    try {
      r = await this.session.decide(answer.round, JSON.stringify(answer));
    } catch (e) {
      if (e instanceof ServiceError && e.kind === "round") return await fail(e.message);
      this.#wait = undefined;
      wait.reject(e);
      return;
    }
    this.#wait = undefined;
    wait.resolve(r);
  }

  /**
   * Stores jobs (DR_EVT's append); a refused job's field is named as the
   * proto names it (the session's decoder names the HTTP field).
   */
  async #append(jobs: JobSpec[]): Promise<number[]> {
    try {
      return (await this.#run({ op: "append", jobs, submit: false }) as { ids: number[] }).ids;
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      const message = e.message.replace(
        /^(job \d+: )(numCores|numNodes|actualRunTime|timeLimit|submitTime)(?=:)/,
        (_m, job: string, field: string) => job + PROTO_FIELD[field],
      );
      throw new ServiceError(e.status, e.kind, message);
    }
  }

  async #monitors(): Promise<Record<string, number>> {
    return await this.#run({ op: "monitors" }) as Record<string, number>;
  }

  /** Answers one request: [response field, response message]. */
  async answer(
    kind: string,
    body: Msg,
    requestId = "0",
  ): Promise<[string, Msg, (() => void)?]> {
    this.#requestId = requestId;
    switch (kind) {
      case "init":
        return ["init", await this.#init(body)];
      case "finish_simulation": {
        const s = this.session;
        const { head } = await this.#run({ op: "finish", runToCompletion: true }) as FinishSummary;
        this.#id = undefined;
        const st = head.statistics;
        // Dropped once the reply was written, not before.
        return ["finish_simulation", {
          statistics: statisticsMessage(st, st.totalNodes - st.nodesInUse),
          session_id: s.id,
          metrics_json: JSON.stringify({
            metrics: head.metrics,
            breakdowns: head.breakdowns,
            fairness: head.fairness,
          }),
          resource_metrics_json: head.resourceMetrics === undefined
            ? ""
            : JSON.stringify(head.resourceMetrics),
        }, () => this.host.end(s.id, "finished")];
      }
      case "initialize_trace":
        this.session; // no trace is preloaded: appended jobs are the trace
        return ["initialize_trace", { num_jobs_loaded: 0 }];
      case "submit_job": {
        const id = num(body.job_idx);
        const t = num(body.submit_time);
        await this.#run({ op: "step", method: "submitJob", args: [id, t] });
        return ["submit_job", {}];
      }
      case "append_job": {
        const r = await this.#append([jobOf(body)]);
        return ["append_job", { job_idx: r[0] }];
      }
      case "append_jobs": {
        const jobs = ((body.requests ?? []) as Msg[]).map(jobOf);
        if (jobs.length === 0) bad("append_jobs needs at least one request");
        return ["append_jobs", { job_idx: await this.#append(jobs) }];
      }
      case "advance_to": {
        const t = num(body.target_time);
        await this.#run({ op: "step", method: "advanceTo", args: [t] });
        return ["advance_to", {}];
      }
      case "run_until_exclusive": {
        const t = num(body.target_time);
        await this.#run({ op: "step", method: "runUntilExclusive", args: [t] });
        return ["run_until_exclusive", {}];
      }
      case "change_capacity": {
        // Proto3 cannot tell an empty list from none: an empty one is no value.
        const names = (k: string) =>
          Array.isArray(body[k]) && (body[k] as string[]).length > 0
            ? body[k] as string[]
            : undefined;
        const given = (k: string) =>
          body[k] === undefined || body[k] === null ? undefined : num(body[k]);
        const [capacity, down, up, failed, time] = [
          given("capacity"),
          names("down"),
          names("up"),
          names("failed"),
          given("time"),
        ];
        await this.#run(capacityOp({
          ...(capacity === undefined ? {} : { capacity }),
          ...(down === undefined ? {} : { down }),
          ...(up === undefined ? {} : { up }),
          ...(failed === undefined ? {} : { failed }),
          ...(time === undefined ? {} : { time }),
        }));
        return ["change_capacity", {}];
      }
      case "update_queue":
        await this.#run(queueUpdateOp(body));
        return ["update_queue", {}];
      case "get_current_time":
        return [kind, { current_time: (await this.#monitors()).currentTime }];
      case "get_nodes_in_use":
        return [kind, { nodes_in_use: (await this.#monitors()).nodesInUse }];
      case "get_available_nodes":
        return [kind, { available_nodes: (await this.#monitors()).availableNodes }];
      case "get_active_job_count":
        return [kind, { active_job_count: (await this.#monitors()).activeJobCount }];
      case "get_fcfs_head_shadow_time":
        return [kind, { shadow_time: (await this.#monitors()).headShadowTime }];
      case "get_statistics": {
        const st = await this.#run({ op: "statistics" }) as SessionStatistics;
        const m = await this.#monitors();
        return [kind, statisticsMessage(st, m.availableNodes)];
      }
      case "get_trace_size":
        return [kind, { trace_size: (await this.#monitors()).totalJobs }];
      default:
        bad("empty request: set one of the ClientMessage request fields");
    }
  }

  async #init(m: Msg): Promise<Msg> {
    if (this.#id !== undefined && !this.host.has(this.#id)) this.#id = undefined;
    if (this.#id !== undefined) {
      throw new ServiceError(409, "state", "already initialized: send finish_simulation first");
    }
    const str = (k: string) => (typeof m[k] === "string" ? m[k] as string : "");
    const name = str("session_name");
    if (name === "") bad("session_name is required");
    if (str("infile") !== "") {
      bad("infile is not supported by evtsim serve: append the jobs (append_job(s))");
    }
    const pick = (k: string, allowed: Set<string>, fallback: string) => {
      const v = str(k) === "" ? fallback : str(k);
      if (!allowed.has(v)) bad(`${k} must be one of ${[...allowed].join(", ")}, got '${v}'`);
      return v;
    };
    if (!QUEUE_IMPL.has(str("queue_impl"))) bad(`queue_impl '${str("queue_impl")}' is unknown`);
    const overflow = str("wait_queue_overflow");
    if (overflow !== "" && overflow !== "abort" && overflow !== "grow") {
      bad(`wait_queue_overflow must be abort or grow, got '${overflow}'`);
    }
    const settingsText = str("picker_settings_json");
    let pickerSettings: Record<string, unknown> | undefined;
    if (settingsText !== "") {
      try {
        pickerSettings = JSON.parse(settingsText);
      } catch {
        bad("picker_settings_json is not valid JSON");
      }
      if (
        typeof pickerSettings !== "object" || pickerSettings === null ||
        Array.isArray(pickerSettings)
      ) {
        bad('picker_settings_json must be a JSON object (e.g. {"fairshare": {"halfLife": 3600}})');
      }
    }
    const admission = str("admission");
    let external: ExternalOptions | undefined;
    if (str("external_json") !== "") {
      let given: unknown;
      try {
        given = JSON.parse(str("external_json"));
      } catch {
        bad("external_json is not valid JSON");
      }
      const parsed = ExternalOptionsSchema.safeParse(given);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        bad(
          `external_json: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`,
        );
      }
      external = parsed.data;
    }
    const cut = str("on_capacity_cut"), semantics = str("capacity_semantics");
    if (cut !== "") pick("on_capacity_cut", CAPACITY_CUT, "drain");
    if (semantics !== "") pick("capacity_semantics", CAPACITY_SEMANTICS, "evtsim");
    // On a --machine server the machine gives the nodes: proto3 cannot tell an
    // unset total_nodes from 0, so 0 leaves it out (another value is refused).
    const totalNodes = num(m.total_nodes);
    const failures = failureParamsOf(m);
    const session = await this.host.create({
      name,
      ...(totalNodes === 0 && this.host.hasMachine ? {} : { totalNodes }),
      backfillPolicy: pick("backfill_policy", BACKFILL, "easy"),
      priorityPolicy: pick("priority_policy", PRIORITY, "fcfs") as "fcfs",
      runTimeMode: pick("run_time_mode", RUN_TIME, "actual") as RunTimeMode,
      ...(str("picker") === "" ? {} : { picker: str("picker") }),
      ...(admission === "" ? {} : { admission }),
      ...(external === undefined ? {} : { external }),
      ...(pickerSettings === undefined ? {} : { pickerSettings }),
      ...metricOptionsOf(m, str),
      ...(cut === "" ? {} : { onCapacityCut: cut as "drain" | "kill" }),
      ...(semantics === "" ? {} : { capacitySemantics: semantics as "evtsim" | "drevt" }),
      ...failures,
      ...powerFieldsOf(m, str),
    });
    this.#id = session.id;
    return { ok: true, session_id: session.id };
  }

  /**
   * The client went away while a request waits at a round: that request
   * ends (its reply an error, if it can still be written) and the session
   * follows its onDisconnect: "suspend" keeps it, its round awaited and
   * answerable over HTTP until --session_idle_timeout; "end" lets `close`
   * end it as any unfinished session.
   */
  abandonRound(): void {
    const wait = this.#wait;
    if (wait === undefined) return;
    this.#wait = undefined;
    wait.reject(new ServiceError(409, "state", "the stream ended at a round"));
    const s = this.#id !== undefined && this.host.has(this.#id)
      ? this.host.get(this.#id)
      : undefined;
    if (s?.external?.onDisconnect === "suspend") {
      s.continuation = undefined;
      this.#id = undefined;
    }
  }

  /** The stream ended or broke: drop a session that was not finished. */
  close(): void {
    this.abandonRound();
    if (this.#id === undefined) return;
    this.host.end(this.#id, "its gRPC stream ended");
    this.#id = undefined;
  }
}

function handle(call: Call, host: SessionHost, token: string | undefined): void {
  if (token !== undefined) {
    const header = String(call.metadata.get("authorization")[0] ?? "");
    const given = header.startsWith("Bearer ") ? header.slice(7) : undefined;
    if (given === undefined || !tokenMatches(given, token)) {
      call.emit("error", {
        code: grpc.status.UNAUTHENTICATED,
        details: "missing or wrong token (metadata authorization: Bearer TOKEN)",
      });
      return;
    }
  }
  const stream = new StreamSession(
    host,
    (reply) =>
      !call.writable || call.destroyed
        ? Promise.resolve()
        : new Promise<void>((resolve) => call.write(reply, () => resolve())),
  );
  // Requests are answered one at a time, in order (a session's calls are ordered anyway).
  let tail: Promise<void> = Promise.resolve();
  call.on("data", (m: Msg) => {
    // An answer to a round goes to the request waiting at it (that request holds the order).
    if (m.request === "decide") {
      void stream.decide(String(m.request_id ?? "0"), (m.decide ?? {}) as Msg).catch((e) =>
        console.error(`evtsim serve: internal error: ${(e as Error)?.stack ?? e}`)
      );
      return;
    }
    tail = tail.then(async () => {
      const requestId = m.request_id ?? "0";
      const kind = typeof m.request === "string" ? m.request : "";
      let reply: Msg;
      let after: (() => void) | undefined;
      try {
        const [field, body, then] = await stream.answer(
          kind,
          (m[kind] ?? {}) as Msg,
          String(requestId),
        );
        reply = { request_id: requestId, [field]: body };
        after = then;
      } catch (e) {
        if (!(e instanceof ServiceError)) {
          console.error(`evtsim serve: internal error: ${(e as Error)?.stack ?? e}`);
        }
        reply = { request_id: requestId, error: { message: (e as Error).message } };
      }
      if (!call.writable || call.destroyed) return;
      await new Promise<void>((resolve) => call.write(reply, () => resolve()));
      after?.();
    });
  });
  call.on("end", () => {
    // A request waiting at a round can never be answered now.
    stream.abandonRound();
    void tail.then(() => {
      stream.close();
      call.end();
    });
  });
  call.on("error", () => stream.close());
  call.on("cancelled", () => stream.close());
  call.on("close", () => stream.close());
}

/** Options of {@link startGrpc}. */
export interface GrpcOptions {
  readonly host: string;
  readonly port: number;
  readonly token?: string;
}

/** Starts the gRPC front on `host:port`; resolves with the bound port. */
export async function startGrpc(
  sessions: SessionHost,
  options: GrpcOptions,
): Promise<{ port: number; close(): Promise<void> }> {
  // grpc-js logs a failed bind to stderr itself; the caller reports it in one line.
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const proto = loadProto();
  const service = (proto.SimulationService as grpc.ServiceClientConstructor).service;
  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_BODY_BYTES,
  });
  server.addService(service, {
    Session: (call: Call) => handle(call, sessions, options.token),
  });
  const address = options.host.includes(":") && !options.host.startsWith("[")
    ? `[${options.host}]:${options.port}`
    : `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      address,
      grpc.ServerCredentials.createInsecure(),
      (e, p) => e ? reject(e) : resolve(p),
    )
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

// The power model of an InitRequest (fields 120-123), as HTTP's session
// fields; the configuration checks the values (one line each).
function powerFieldsOf(
  m: Msg,
  str: (k: string) => string,
): Pick<SessionParams, "powerCap" | "powerCapSchedule" | "idleWatts" | "busyWatts"> {
  const given = (k: string) => (m[k] === undefined || m[k] === null ? undefined : num(m[k]));
  const text = str("power_cap_schedule_json");
  let schedule: unknown;
  if (text !== "") {
    try {
      schedule = JSON.parse(text);
    } catch {
      bad("power_cap_schedule_json is not valid JSON");
    }
    if (!Array.isArray(schedule)) {
      bad('power_cap_schedule_json must be a JSON list (e.g. [{"time": 0, "watts": 1000}])');
    }
  }
  const [cap, idle, busy] = [given("power_cap"), given("idle_watts"), given("busy_watts")];
  return {
    ...(cap === undefined ? {} : { powerCap: cap }),
    ...(schedule === undefined
      ? {}
      : { powerCapSchedule: schedule as SessionParams["powerCapSchedule"] }),
    ...(idle === undefined ? {} : { idleWatts: idle }),
    ...(busy === undefined ? {} : { busyWatts: busy }),
  };
}

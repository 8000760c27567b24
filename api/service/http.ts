// The HTTP/JSON front of `evtsim serve`: hono routes over the session layer,
// each request checked by the zod schemas of http_schemas.ts, and the
// OpenAPI document generated from the same schemas at /openapi.json.
//
// Every error is a JSON object `{ error, kind }` with a 4xx status (5xx only
// when a recording file cannot be opened): 400 for a malformed or invalid
// request, 401 without the token, 404 for an unknown session, job or route,
// 409 for a call the session's state refuses (time going back, a job that
// is not waiting), 413 for a body over 1 MiB, 429 when --max_sessions are open.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { JobSpec } from "../../core/types.ts";
import * as S from "./http_schemas.ts";
import {
  type CapacityChangeRequest,
  capacityOp,
  type FinishSummary,
  type OutputField,
  type SessionOp,
} from "./_session_ops.ts";
import { AwaitingRound, type SessionHandle, type SessionHost } from "./session_host.ts";
import { AwaitingSchema, DecisionsSchema } from "./external_schemas.ts";
import { PROTOCOL_VERSION } from "./_external.ts";
import { ServiceError, type SessionParams } from "./sessions.ts";
import { tokenMatches } from "./token.ts";

/** The largest request body accepted (1 MiB). */
export const MAX_BODY_BYTES = 1 << 20;

/** Options of {@link httpApp}. */
export interface HttpOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** The version reported in the OpenAPI document. */
  readonly version: string;
}

type Method = "get" | "post" | "delete";
type Schema = z.ZodType;

interface RouteSpec {
  readonly method: Method;
  readonly path: string;
  readonly summary: string;
  readonly params?: typeof S.SessionParam | typeof S.JobParam;
  readonly body?: Schema;
  readonly response: Schema;
  readonly status?: 200 | 201;
  readonly handler: (c: Context, session: SessionHandle | undefined) => unknown;
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: S.ErrorSchema } },
});

function json(c: Context, body: unknown, status = 200): Response {
  return c.json(body as never, status as never);
}

function valid<T>(c: Context, target: "json" | "param"): T {
  return (c.req.valid as unknown as (t: string) => T)(target);
}

function jobParam(c: Context): number {
  return Number(valid<{ job: string }>(c, "param").job);
}

/** The routes: method, path, schemas and the session-layer call each makes. */
function routes(host: SessionHost, document: () => unknown): RouteSpec[] {
  // A call of an external session may reach a scheduling round: it is then
  // answered with the round, and its own reply (`finalize`) waits for the
  // answers (POST /sessions/{id}/decisions).
  const op = async (
    session: SessionHandle,
    o: SessionOp,
    finalize: (result: unknown) => unknown = (r) => r,
  ) => {
    const r = await session.run(o);
    if (!(r instanceof AwaitingRound)) return finalize(r);
    session.continuation = finalize;
    return r.response();
  };
  const step = (session: SessionHandle, method: string, ...args: unknown[]) =>
    op(session, { op: "step", method, args });
  return [
    {
      method: "get",
      path: "/openapi.json",
      summary: "This OpenAPI 3.1 document, generated from the schemas that check the requests",
      response: S.DocumentSchema,
      handler: () => document(),
    },
    {
      method: "get",
      path: "/health",
      summary: "Liveness: the server answers, how many sessions are open and spare workers ready",
      response: S.HealthSchema,
      handler: () => ({ ok: true, sessions: host.size, spareWorkers: host.spares }),
    },
    {
      method: "post",
      path: "/sessions",
      summary: "Create a session (DR_EVT's init): policy, picker, queues, nodes, run-time mode",
      body: S.CreateSessionSchema,
      response: S.CreatedSchema,
      status: 201,
      handler: async (c) => {
        const s = await host.create(valid<SessionParams>(c, "json"));
        return {
          sessionId: s.id,
          recording: await op(s, { op: "recordingStatus" }),
          ...(s.external === undefined ? {} : { protocol: PROTOCOL_VERSION }),
        };
      },
    },
    {
      method: "get",
      path: "/sessions",
      summary: "The open sessions: ids, names, age and idle time in seconds, calls in progress",
      response: S.SessionListSchema,
      handler: () => ({ sessions: host.list() }),
    },
    {
      method: "get",
      path: "/sessions/{id}",
      summary: "Monitors: time, nodes in use and free, waiting jobs, the head's shadow time",
      params: S.SessionParam,
      response: S.MonitorsSchema,
      handler: (_c, s) => op(s!, { op: "monitors" }),
    },
    {
      method: "delete",
      path: "/sessions/{id}",
      summary:
        "Drop a session without finishing it (a call running is abandoned; its recording is ended cleanly)",
      params: S.SessionParam,
      response: S.OkSchema,
      handler: (c) => {
        host.discard(valid<{ id: string }>(c, "param").id);
        return { ok: true };
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/jobs",
      summary: "Append a batch of jobs, all or nothing (submit: false only stores them)",
      params: S.SessionParam,
      body: S.AppendJobsSchema,
      response: S.IdsSchema,
      handler: (c, s) => {
        const b = valid<{ jobs: JobSpec[]; submit?: boolean }>(c, "json");
        return op(s!, { op: "append", jobs: b.jobs, submit: b.submit ?? true });
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/job",
      summary: "Append one job (submit: false only stores it)",
      params: S.SessionParam,
      body: S.AppendJobSchema,
      response: S.IdsSchema,
      handler: (c, s) => {
        const b = valid<{ job: JobSpec; submit?: boolean }>(c, "json");
        return op(s!, { op: "append", jobs: [b.job], submit: b.submit ?? true });
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/jobs/{job}/submit",
      summary: "Submit a stored job at a time not before the clock",
      params: S.JobParam,
      body: S.TimeSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time } = valid<{ time: number }>(c, "json");
        const job = jobParam(c);
        return step(s!, "submitJob", job, time);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/advance",
      summary: "Advance to a time, inclusive: every event at or before it is processed",
      params: S.SessionParam,
      body: S.TimeSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time } = valid<{ time: number }>(c, "json");
        return step(s!, "advanceTo", time);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/run_until",
      summary: "Run until a time, exclusive: events at that time are not processed",
      params: S.SessionParam,
      body: S.TimeSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time } = valid<{ time: number }>(c, "json");
        return step(s!, "runUntilExclusive", time);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/jobs/{job}/cancel",
      summary: "Cancel a waiting job (at a time, default the clock)",
      params: S.JobParam,
      body: S.EventTimeSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time } = valid<{ time?: number }>(c, "json");
        const job = jobParam(c);
        return step(s!, "cancelJob", job, time);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/jobs/{job}/end",
      summary: "A running job ended outside (external end): completed, failed or killed",
      params: S.JobParam,
      body: S.EndJobSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time, ...options } = valid<
          { time?: number; outcome?: "completed" | "failed" | "killed"; exitStatus?: number }
        >(c, "json");
        const job = jobParam(c);
        return step(s!, "endJob", job, time, options);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/jobs/{job}/update",
      summary: "Change a waiting job's priority or queue",
      params: S.JobParam,
      body: S.UpdateJobSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const { time, ...update } = valid<{ time?: number; priority?: number; queue?: string }>(
          c,
          "json",
        );
        const job = jobParam(c);
        return step(s!, "updateJob", job, update, time);
      },
    },
    {
      method: "get",
      path: "/sessions/{id}/jobs/{job}/pending_reason",
      summary: "Why a waiting job waits (PEND reason)",
      params: S.JobParam,
      response: S.PendReasonSchema,
      handler: (c, s) => op(s!, { op: "pendingReason", job: jobParam(c) }),
    },
    {
      method: "post",
      path: "/sessions/{id}/queues",
      summary: "Add a queue or change one: priority, maxRunning, open/closed, picker",
      params: S.SessionParam,
      body: S.UpdateQueueSchema,
      response: S.StepSchema,
      handler: (c, s) => {
        const b = valid<{ queue: S.QueueDef; time?: number }>(c, "json");
        return step(s!, "updateQueue", b.queue, b.time);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/capacity",
      summary:
        "Change the usable node count, or take a machine's nodes (or groups) offline and back, from a time on",
      params: S.SessionParam,
      body: S.CapacitySchema,
      response: S.StepSchema,
      handler: (c, s) => {
        return op(s!, capacityOp(valid<CapacityChangeRequest>(c, "json")));
      },
    },
    {
      method: "get",
      path: "/sessions/{id}/statistics",
      summary: "The statistics so far",
      params: S.SessionParam,
      response: S.StatisticsSchema,
      handler: (_c, s) => op(s!, { op: "statistics" }),
    },
    {
      method: "get",
      path: "/sessions/{id}/backfill_window",
      summary: "Free nodes, the head's shadow time and the limit-based releases up to it",
      params: S.SessionParam,
      response: S.BackfillWindowSchema,
      handler: (_c, s) => op(s!, { op: "backfillWindow" }),
    },
    {
      method: "post",
      path: "/sessions/{id}/finish",
      summary: "Finish: run to completion (or stop at the clock), return statistics and outputs",
      params: S.SessionParam,
      body: S.FinishSchema,
      response: S.OutputSchema,
      handler: async (c, s) => {
        const b = valid<{ runToCompletion?: boolean }>(c, "json");
        return await op(
          s!,
          { op: "finish", runToCompletion: b.runToCompletion ?? true },
          (summary) => outputStream(host, s!, summary as FinishSummary),
        );
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/decisions",
      summary:
        "An external session: answer the round awaited; replies with the next round or the waiting call's own reply",
      params: S.SessionParam,
      body: DecisionsSchema,
      response: z.union([AwaitingSchema, z.record(z.string(), z.unknown())]),
      handler: async (c, s) => {
        const body = valid<{ round: number }>(c, "json");
        const r = await s!.decide(body.round, JSON.stringify(body));
        if (r instanceof AwaitingRound) return r.response();
        const finalize = s!.continuation ?? ((x: unknown) => x);
        s!.continuation = undefined;
        return await finalize(r);
      },
    },
    {
      method: "post",
      path: "/sessions/{id}/recording",
      summary: "Start recording the session to a .replay log; returns the file name",
      params: S.SessionParam,
      response: S.StartedSchema,
      status: 201,
      handler: async (_c, s) => ({ file: await op(s!, { op: "startRecording" }) }),
    },
    {
      method: "delete",
      path: "/sessions/{id}/recording",
      summary: "Stop recording; returns the number of events recorded",
      params: S.SessionParam,
      response: S.StoppedSchema,
      handler: async (_c, s) => ({ events: await op(s!, { op: "stopRecording" }) }),
    },
    {
      method: "get",
      path: "/sessions/{id}/recording",
      summary: "Recording status: running, events, file, and why it stopped",
      params: S.SessionParam,
      response: S.RecordingStatusSchema,
      handler: (_c, s) => op(s!, { op: "recordingStatus" }),
    },
  ];
}

/** Rows per page of a finish reply (each page is serialised where the session runs). */
export const OUTPUT_PAGE_ROWS = 5000;

/**
 * The finish reply, streamed: the same JSON object as one body would be, but
 * written a page of rows at a time (so a run with millions of decisions is
 * never one string), and the session is dropped only once the whole reply
 * was handed to the connection. A client that goes away mid-reply leaves the
 * session finished and open: finishing again sends the same output.
 */
function outputStream(host: SessionHost, s: SessionHandle, summary: FinishSummary): Response {
  const { head, counts } = summary;
  const fields: OutputField[] = ["jobs", "resources", "notices", "decisions"];
  const parts: (string | { field: OutputField; from: number })[] = [
    `{"sessionId":${JSON.stringify(head.sessionId)}`,
  ];
  for (const field of fields) {
    parts.push(`,${JSON.stringify(field)}:[`);
    for (let from = 0; from < counts[field]; from += OUTPUT_PAGE_ROWS) {
      parts.push({ field, from });
    }
    parts.push("]");
  }
  parts.push(
    `,"statistics":${JSON.stringify(head.statistics)},"metrics":${
      JSON.stringify(head.metrics)
    },"breakdowns":${JSON.stringify(head.breakdowns)},"fairness":${JSON.stringify(head.fairness)}${
      head.resourceMetrics === undefined
        ? ""
        : `,"resourceMetrics":${JSON.stringify(head.resourceMetrics)}`
    },"recording":${JSON.stringify(head.recording)}}`,
  );
  const encoder = new TextEncoder();
  let i = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (i === parts.length) {
          controller.close();
          host.end(s.id, "finished");
          return;
        }
        const part = parts[i++];
        if (typeof part === "string") {
          controller.enqueue(encoder.encode(part));
          return;
        }
        const text = await s.run({
          op: "page",
          field: part.field,
          from: part.from,
          count: OUTPUT_PAGE_ROWS,
        }) as string;
        controller.enqueue(encoder.encode(part.from === 0 ? text : `,${text}`));
      },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
}

/** The error reply of anything a handler or a check threw. */
function errorReply(c: Context, e: unknown): Response {
  if (e instanceof ServiceError) return json(c, { error: e.message, kind: e.kind }, e.status);
  if (e instanceof HTTPException) {
    const kind = e.status === 413 ? "too_large" : e.status === 401 ? "unauthorized" : "validation";
    const message = e.status === 400 && /JSON/i.test(e.message)
      ? "the body is not valid JSON"
      : e.message || "bad request";
    return json(c, { error: message, kind }, e.status);
  }
  console.error(`evtsim serve: internal error: ${(e as Error)?.stack ?? e}`);
  return json(c, { error: "internal error", kind: "internal" }, 500);
}

/** The hono app of the HTTP front (routes, checks, errors, /openapi.json). */
export function httpApp(host: SessionHost, options: HttpOptions): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
        const target = (result as { target?: string }).target;
        const status = target === "param" ? 404 : 400;
        const message = target === "param"
          ? `no such ${issue?.path[0] === "job" ? "job" : "session"} '${
            c.req.param(String(issue?.path[0] ?? "id"))
          }'`
          : `${where}${issue?.message ?? "invalid request"}`;
        return json(
          c,
          { error: message, kind: status === 404 ? "not_found" : "validation" },
          status,
        );
      }
    },
  });
  app.onError((e, c) => errorReply(c, e));
  app.notFound((c) =>
    json(
      c,
      { error: `no route ${c.req.method} ${new URL(c.req.url).pathname}`, kind: "not_found" },
      404,
    )
  );
  const token = options.token;
  if (token !== undefined) {
    app.use("*", async (c, next) => {
      const header = c.req.header("authorization") ?? "";
      const given = header.startsWith("Bearer ") ? header.slice(7) : undefined;
      if (given === undefined || !tokenMatches(given, token)) {
        c.header("WWW-Authenticate", 'Bearer realm="evtsim"');
        return json(c, { error: "missing or wrong token", kind: "unauthorized" }, 401);
      }
      await next();
    });
  }
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        json(
          c,
          { error: `the body is larger than ${MAX_BODY_BYTES} bytes`, kind: "too_large" },
          413,
        ),
    }),
  );
  const document = () =>
    app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "evtsim serve",
        version: options.version,
        description: "Live scheduling sessions over evtsim's streaming API",
      },
    });
  for (const r of routes(host, document)) {
    const request: Record<string, unknown> = {};
    if (r.params !== undefined) request.params = r.params;
    if (r.body !== undefined) {
      request.body = { required: true, content: { "application/json": { schema: r.body } } };
    }
    const route = createRoute({
      method: r.method,
      path: r.path,
      summary: r.summary,
      request,
      responses: {
        [r.status ?? 200]: {
          description: r.summary,
          content: {
            "application/json": {
              // A call that moves the clock may stop at an external session's round.
              schema: r.response === S.StepSchema || r.response === S.IdsSchema ||
                  r.response === S.OutputSchema
                ? z.union([r.response, AwaitingSchema])
                : r.response,
            },
          },
        },
        400: errorResponse("invalid request"),
        401: errorResponse("missing or wrong token"),
        404: errorResponse("unknown session, job or route"),
        409: errorResponse(
          "refused by the session's state; an external session's answer refused (kind decision), " +
            "for a round not awaited (round), or another call while a round is awaited (awaiting)",
        ),
        413: errorResponse("body over 1 MiB"),
        429: errorResponse("too many sessions, or too many calls waiting on this session"),
        503: errorResponse("the call ran over the session's time budget (--call_time_limit)"),
      },
    });
    const handler = async (c: Context) => {
      const id = r.params === undefined ? undefined : valid<{ id: string }>(c, "param").id;
      const session = id === undefined || r.handler.length < 2 ? undefined : host.get(id);
      const body = await r.handler(c, session);
      if (body instanceof Response) return body;
      return json(c, body, r.status ?? 200);
    };
    app.openapi(route, handler as never);
  }
  return app;
}

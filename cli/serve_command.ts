// `evtsim serve`: live scheduling sessions over HTTP/JSON and DR_EVT's gRPC
// Session stream (api/service/). Loaded only for this command, so
// `simulate` never loads hono or grpc-js.

import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { parseMeasureWindow } from "../io/stats_json.ts";
import { parseTrim } from "../core/_metrics_breakdowns.ts";
import type { SessionMetricOptions } from "../api/service/sessions.ts";
import { optionHelp, optionValue, type ParsedArgs, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import { onShutdown } from "./_shutdown.ts";
import type { Console } from "./simulate.ts";
import { VERSION } from "./version.ts";

/** `evtsim serve`'s options. */
export const SERVE_OPTIONS = [
  {
    name: "port",
    kind: "number",
    default: 8787,
    min: 0,
    placeholder: "N",
    help: "HTTP port (default 8787; 0 = a free one)",
  },
  {
    name: "grpc_port",
    kind: "string",
    placeholder: "N",
    help: "gRPC port of DR_EVT's Session stream (default 50051; 0 = a free one; off = none)",
  },
  {
    name: "host",
    kind: "string",
    placeholder: "ADDR",
    help: "interface to bind (default 127.0.0.1); one that is not loopback needs --token",
  },
  {
    name: "token",
    kind: "string",
    placeholder: "T",
    help: "require this token on both fronts (HTTP Authorization: Bearer T, gRPC metadata " +
      "authorization: Bearer T); also read from EVTSIM_TOKEN",
  },
  {
    name: "record_dir",
    kind: "string",
    placeholder: "DIR",
    help: "record every session from its start into DIR (made if missing) as a .replay log " +
      "(and allow recording control)",
  },
  {
    name: "max_sessions",
    kind: "number",
    min: 1,
    placeholder: "N",
    help: "most sessions open at once (default 64)",
  },
  {
    name: "session_idle_timeout",
    kind: "number",
    min: 0,
    placeholder: "S",
    help: "end a session after S seconds without a call, its recording ended cleanly " +
      "(default 1800; 0 = never)",
  },
  {
    name: "call_time_limit",
    kind: "number",
    min: 0,
    placeholder: "S",
    help: "longest one call of a session may run, in seconds (default 300; 0 = no limit); " +
      "a call over it is answered 503 and its session ended",
  },
  {
    name: "spare_workers",
    kind: "number",
    min: 0,
    placeholder: "N",
    help: "workers kept started and warmed up ahead, so a new session starts at once " +
      "(default 4; 0 = none); they count against --max_sessions",
  },
  {
    name: "policy_module",
    kind: "string",
    placeholder: "FILE",
    help: "a module of your own pickers and admission policies, which sessions may name " +
      "(CreateSession picker / admission)",
  },
  {
    name: "machine",
    kind: "string",
    placeholder: "FILE",
    help: "run every session on this machine (YAML or JSON, as simulate --machine): sessions " +
      "give no totalNodes, and appended jobs may ask numCores, memory, gpus, partition, " +
      "topology and other named resources per replica (HTTP and gRPC)",
  },
  {
    name: "bsld_tau",
    kind: "number",
    placeholder: "S",
    help: "bounded-slowdown threshold tau of every finish reply's metrics, in seconds " +
      "(default 10; a session's bsldTau wins)",
  },
  {
    name: "measure_window",
    kind: "string",
    placeholder: "START:END",
    help: "finish replies' metrics measure only jobs submitted in [START, END) seconds " +
      "(a session's measureWindow or trim wins)",
  },
  {
    name: "trim",
    kind: "string",
    placeholder: "WARMUP,COOLDOWN",
    help: "instead of --measure_window: finish replies' metrics leave out the first WARMUP " +
      "and last COOLDOWN jobs in submit order (as simulate --trim)",
  },
  {
    name: "resource_columns",
    kind: "enum",
    values: ["drevt", "per_resource"],
    help: "finish replies' resource rows: DR_EVT's fields (default), or per_resource: " +
      "NAME_free and NAME_used added per resource type (nodes on whole nodes)",
  },
  {
    name: "extended_output",
    kind: "flag",
    help: "finish replies' job rows gain waitTime, boundedSlowdown and nodes (Slurm hostlist " +
      "form), as simulate --extended_output (a session's extendedOutput wins)",
  },
  { name: "help", kind: "flag", short: "h", help: "show this help" },
] as const satisfies readonly OptionSpec[];

type ServeOption = (typeof SERVE_OPTIONS)[number];

// `--grpc_port N` (N a number unless it is `off`, which the caller reads).
function grpcPortOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const spec = { name: "grpc_port", kind: "number", min: 0, help: "" } as const;
  return optionValue(spec, "--grpc_port", raw, "plain") as number;
}

/**
 * Serve's metric options, as simulate reads them (`--bsld_tau`,
 * `--measure_window`, `--trim`, `--resource_columns`): every session's
 * defaults. Checked here, so a bad one stops the server before it listens.
 */
function metricDefaults(parsed: ParsedArgs<ServeOption>): SessionMetricOptions {
  const tau = parsed.options.get("bsld_tau");
  const window = parsed.options.get("measure_window");
  const trim = parsed.options.get("trim");
  if (window !== undefined && trim !== undefined) {
    throw new EvtsimError("usage", "--trim and --measure_window: give one of them, not both");
  }
  if (tau !== undefined && !(tau > 0)) {
    throw new EvtsimError("usage", `--bsld_tau must be a number of seconds > 0, got ${tau}`);
  }
  const columns = parsed.options.get("resource_columns");
  return {
    ...(tau !== undefined ? { bsldTau: tau } : {}),
    ...(window !== undefined ? { measureWindow: parseMeasureWindow(window) } : {}),
    ...(trim !== undefined ? { trim: parseTrim(trim) } : {}),
    ...(columns !== undefined ? { resourceColumns: columns } : {}),
    ...(parsed.options.get("extended_output") === true ? { extendedOutput: true } : {}),
  };
}

function help(): string {
  return [
    "usage: evtsim serve [options]",
    "",
    "Serves live scheduling sessions: each is a Simulation (DR_EVT's streaming API plus live",
    "events, decisions and recording control) created, driven and finished over HTTP/JSON",
    "(OpenAPI document at /openapi.json) or over DR_EVT's gRPC stream",
    "dr_evt_grpc.SimulationService/Session (api/service/dr_evt_service.proto). Prints the",
    "addresses it listens on, then serves until SIGINT or SIGTERM.",
    "",
    "Each session runs in a worker of its own (about 12 MB), so no session's work holds up",
    "another or /health; a worker serves one session only, and --spare_workers of them are",
    "started and warmed up ahead; DELETE /sessions/ID abandons a call that runs; GET /sessions",
    "lists the open sessions; idle ones end after --session_idle_timeout.",
    "",
    "A session created with admission external is scheduled by its client: a call that reaches",
    "a scheduling round is answered with the round (awaitingDecisions; gRPC round_request) and",
    "the client answers with DISPATCH / PEND decisions (POST /sessions/ID/decisions; gRPC",
    "decide), checked as any policy's and recorded (docs/external-schedulers.md).",
    "",
    "options:",
    ...optionHelp(SERVE_OPTIONS),
    "",
    "The metric and output options (--bsld_tau, --measure_window, --trim, --resource_columns,",
    "--extended_output) are every session's defaults; a session may give its own (HTTP",
    "CreateSession bsldTau, measureWindow, trim, resourceColumns, extendedOutput; gRPC",
    "InitRequest bsld_tau, measure_window, trim, resource_columns), so a finish reply's",
    "metrics and rows equal simulate's --stats_json and outputs for the same jobs and options.",
    "",
    "A session's capacity changes live (a node count, or a --machine's nodes and groups going",
    "down and up): HTTP POST /sessions/ID/capacity, gRPC change_capacity (evtsim's own).",
    "",
    "example:",
    "  evtsim serve --port 8787 --record_dir recordings",
  ].join("\n");
}

/**
 * The policy registry of serve's `--policy_module FILE`: the one place serve
 * resolves it (at start-up, to refuse a bad module in one line, and in every
 * session's worker).
 */
export async function serveRegistry(file: string): Promise<PolicyRegistry> {
  const { loadPolicyModule } = await import("./policy_module.ts");
  return await loadPolicyModule(file);
}

/** Runs `evtsim serve ARGS`; returns the exit code once the server stops. */
export async function serveCommand(args: readonly string[], con: Console): Promise<number> {
  const parsed = parseOptions(args, SERVE_OPTIONS, { command: "serve", dialect: "plain" });
  if (parsed.options.get("help") === true) {
    con.out(help());
    return 0;
  }
  if (parsed.positional.length > 0) {
    throw new EvtsimError("usage", `unexpected argument '${parsed.positional[0]}'`);
  }
  const port = parsed.value("port");
  const grpcRaw = parsed.options.get("grpc_port");
  const grpcPort = grpcRaw === "off" ? undefined : grpcPortOf(grpcRaw) ?? 50051;
  let token = parsed.options.get("token");
  if (token === undefined) {
    try {
      token = Deno.env.get("EVTSIM_TOKEN") || undefined;
    } catch { /* no env permission: no token from the environment */ }
  }
  const module = parsed.options.get("policy_module");
  // Checked once here; each session's worker loads it from its absolute path.
  const policyModule = module === undefined
    ? undefined
    : decodeURIComponent(new URL(module, `file://${Deno.cwd()}/`).pathname);
  const registry = policyModule === undefined ? undefined : await serveRegistry(module!);
  const metrics = metricDefaults(parsed);
  const machineFile = parsed.options.get("machine");
  // Read and checked once here (one line naming the file, line and field);
  // each session's worker builds the resource model from this description.
  const machine = machineFile === undefined
    ? undefined
    : await (await import("../io/machine_file.ts")).readMachine(machineFile);
  const { hostPort, startServer } = await import("../api/service/server.ts");
  const server = await startServer({
    host: parsed.options.get("host"),
    port,
    grpcPort,
    token,
    recordDir: parsed.options.get("record_dir"),
    maxSessions: parsed.options.get("max_sessions"),
    sessionIdleTimeout: parsed.options.get("session_idle_timeout"),
    callTimeLimit: parsed.options.get("call_time_limit"),
    spareWorkers: parsed.options.get("spare_workers"),
    policyModule,
    registry,
    ...(machine !== undefined ? { machine } : {}),
    metricDefaults: metrics,
    version: VERSION,
  });
  con.out(`HTTP: http://${hostPort(server.host, server.httpPort)}`);
  if (server.grpcPort !== undefined) con.out(`gRPC: ${hostPort(server.host, server.grpcPort)}`);
  // SIGINT/SIGTERM exit at once (cli/main.ts); end the recordings cleanly first.
  onShutdown(() => server.sessions.closeAll());
  await new Promise<never>(() => {});
  return 0;
}

// Fault rows of the external-decision protocol (issue 31 items 1 and 4, ext):
// `evtsim serve` sessions with admission "external" and their recordings.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { runCli } from "./_cli.ts";
import { GrpcSession, withServer } from "./_service_helpers.ts";
import { SessionHost } from "../api/service/session_host.ts";
import type { ServiceError } from "../api/service/sessions.ts";

// Sends `body` to `path` of a fresh external session (10 nodes) on an HTTP-only server.
async function external(
  path: string,
  body: unknown,
  create: Record<string, unknown> = { admission: "external" },
) {
  return await withServer({ grpcPort: undefined }, async (_s, api) => {
    const made = await api.send("POST", "/sessions", { totalNodes: 10, ...create });
    if (made.status !== 201) return { code: made.status, error: made.body.error };
    const r = await api.send("POST", `/sessions/${made.body.sessionId}${path}`, body);
    return { code: r.status, error: r.body.error };
  });
}

export const EXT_ROWS: FaultRow[] = [
  {
    surface: "http",
    input: "serve: external options on a session whose admission is not external",
    run: () => external("", {}, { external: { roundTimeout: 5 } }),
    expected: /^external: only with admission "external"$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: external onInvalid 'maybe'",
    run: () => external("", {}, { admission: "external", external: { onInvalid: "maybe" } }),
    expected: /^external\.onInvalid: Invalid option: expected one of "reask"\|"fail"$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: decisions for an external session at no round",
    run: () => external("/decisions", { round: 1, decisions: [] }),
    expected: /^session '[0-9a-f]{32}' awaits no decisions \(no call is at a scheduling round\)$/,
    code: 409,
  },
  {
    surface: "http",
    input: "serve: a decision of an unknown type",
    run: () => external("/decisions", { round: 1, decisions: [{ type: "START", jobId: 0 }] }),
    expected: /^decisions\.0\.type: Invalid option: expected one of "DISPATCH"\|"PEND"$/,
    code: 400,
  },
  {
    surface: "library",
    input: "SessionHost isolation inline: a session with admission external",
    run: async () => {
      try {
        await new SessionHost({ isolation: "inline" }).create({
          totalNodes: 4,
          admission: "external",
        });
        return { code: 0, error: "" };
      } catch (e) {
        return { code: (e as ServiceError).status, error: (e as Error).message };
      }
    },
    expected:
      /^admission external needs sessions in workers \(an inline session cannot pause a call for its client\)$/,
    code: 400,
  },
  {
    surface: "grpc",
    input: "serve gRPC: init with external_json that is not JSON",
    run: () =>
      withServer({}, async (server) => {
        const g = new GrpcSession(server.grpcPort!);
        try {
          const r = await g.request({
            init: { session_name: "x", total_nodes: 4, admission: "external", external_json: "{" },
          });
          return { code: 1, error: r.error?.message ?? "" };
        } finally {
          await g.close();
        }
      }),
    expected: /^external_json is not valid JSON$/,
  },
  {
    surface: "in-process",
    input: "replay --verify: an external session's log whose DISPATCH no longer fits",
    run: async (dir) => {
      const lines = await externalLog(dir);
      const at = lines.findIndex((l) => l.includes('"decisions":[["DISPATCH",0,6]'));
      lines[at] = lines[at].replace('["DISPATCH",0,6]', '["DISPATCH",0,6],["DISPATCH",1,8]');
      Deno.writeTextFileSync(`${dir}/edited.replay`, lines.join("\n"));
      const r = await runCli(["replay", `${dir}/edited.replay`, "--verify"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected:
      /edited\.replay:\d+: event seq \d+ \(advanceTo\): admission policy external started job 1 needing 8 nodes with 4 free$/,
  },
  {
    surface: "in-process",
    input: "simulate --admission external without --external_command",
    run: (dir) => simulateExternal(dir, []),
    expected:
      /^evtsim: --admission external and --external_command CMD go together: the command decides every round$/,
  },
  {
    surface: "in-process",
    input: "simulate --external_command: a command that ends without answering",
    run: (dir) => simulateExternal(dir, ["--external_command", "true"]),
    expected:
      /^evtsim: --external_command: it ended \(exit status 0\) without answering \(round 1\)$/,
  },
  {
    surface: "in-process",
    input: "simulate --external_command: an answer that is not a JSON line",
    run: (dir) =>
      simulateExternal(dir, ["--external_command", "while read l; do echo hello; done"]),
    expected: /^evtsim: --external_command: its answer to round 1 is not a JSON line: hello$/,
  },
];

// Runs simulate --admission external on a two-job trace with `extra` options; no output file may stay.
async function simulateExternal(dir: string, extra: string[]) {
  Deno.writeTextFileSync(
    `${dir}/t.csv`,
    "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,10,5\n0,4,10,5\n",
  );
  const r = await runCli([
    "simulate",
    `${dir}/t.csv`,
    "-n",
    "4",
    "--admission",
    "external",
    ...extra,
    "--outfile",
    `${dir}/out.csv`,
  ]);
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "t.csv");
  return { code: r.code, error: [...r.err, ...left.map((n) => `left behind: ${n}`)].join("\n") };
}

// Records an external session (10 nodes) that starts job 0 (6 nodes) at 0
// while job 1 (8 nodes) waits; returns its log's lines.
async function externalLog(dir: string): Promise<string[]> {
  return await withServer({ grpcPort: undefined, recordDir: dir }, async (_s, api) => {
    const { sessionId: id, recording } = await api.ok("POST", "/sessions", {
      totalNodes: 10,
      admission: "external",
    });
    await api.ok("POST", `/sessions/${id}/jobs`, {
      jobs: [
        { submitTime: 0, numNodes: 6, timeLimit: 100 },
        { submitTime: 0, numNodes: 8, timeLimit: 10 },
      ],
    });
    await api.ok("POST", `/sessions/${id}/advance`, { time: 0 });
    await api.ok("POST", `/sessions/${id}/decisions`, {
      round: 1,
      decisions: [{ type: "DISPATCH", jobId: 0 }],
    });
    await api.ok("DELETE", `/sessions/${id}/recording`);
    return Deno.readTextFileSync(recording.file).split("\n");
  });
}

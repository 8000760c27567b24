// An external scheduler in TypeScript: DR_EVT's FCFS + EASY rule written
// against the external-decision protocol (docs/external-schedulers.md), and a
// small HTTP driver that answers an `admission: "external"` session's rounds
// with it. It gives the schedule `evtsim simulate -b easy` gives: the round
// carries everything EASY needs (the waiting jobs in order, the free nodes,
// the running jobs with their projected ends).
//
//   deno run -A examples/external_easy.ts http://127.0.0.1:8080 trace.csv 100
//   evtsim simulate trace.csv -n 100 --admission external \
//     --external_command "deno run examples/external_easy.ts --stdio"

/** A round as the server sends it (the fields EASY reads). */
export interface Round {
  readonly round: number;
  readonly time: number;
  readonly free: number;
  readonly waiting: readonly { jobId: number; numNodes: number; timeLimit: number }[];
  readonly running: readonly { numNodes: number; projectedEnd: number }[];
}

/** An answer to a round. */
export interface Answer {
  round: number;
  decisions: { type: "DISPATCH"; jobId: number; backfill: boolean }[];
}

/**
 * EASY's decisions for one round: start the waiting jobs in order while they
 * fit; the first that does not (the head) gets a reservation at its shadow
 * time (the earliest projected end at which enough nodes are free); a later
 * job starts if it fits now and ends, by its limit, before the shadow. No
 * backfill pass when no node is free (DR_EVT's FCFS EASY).
 */
export function easyAnswer(r: Round): Answer {
  const decisions: Answer["decisions"] = [];
  let free = r.free;
  let i = 0;
  for (; i < r.waiting.length; i++) {
    const j = r.waiting[i];
    if (j.numNodes > free) break;
    decisions.push({ type: "DISPATCH", jobId: j.jobId, backfill: false });
    free -= j.numNodes;
  }
  if (i < r.waiting.length && free > 0) {
    const head = r.waiting[i];
    // The running jobs (those started above included) by projected end: the
    // shadow is where their releases after now first cover the deficit.
    const ends = [
      ...r.running,
      ...decisions.map((d) => {
        const j = r.waiting.find((w) => w.jobId === d.jobId)!;
        return { numNodes: j.numNodes, projectedEnd: r.time + j.timeLimit };
      }),
    ].filter((x) => x.projectedEnd > r.time).sort((a, b) => a.projectedEnd - b.projectedEnd);
    let shadow = r.time;
    let released = 0;
    for (const x of ends) {
      released += x.numNodes;
      if (released >= head.numNodes - free) {
        shadow = x.projectedEnd;
        break;
      }
    }
    for (const j of r.waiting.slice(i + 1)) {
      if (j.numNodes <= free && r.time + j.timeLimit < shadow) {
        decisions.push({ type: "DISPATCH", jobId: j.jobId, backfill: true });
        free -= j.numNodes;
        if (free <= 0) break;
      }
    }
  }
  return { round: r.round, decisions };
}

/** Answers every round a call reaches with `decide`; returns the call's own reply. */
export async function answerRounds(
  base: string,
  sessionId: string,
  reply: unknown,
  decide: (r: Round) => unknown,
): Promise<unknown> {
  let body = reply as { awaitingDecisions?: boolean; round?: Round };
  while (body.awaitingDecisions === true) {
    const res = await fetch(`${base}/sessions/${sessionId}/decisions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(decide(body.round!)),
    });
    body = await res.json();
    if (!res.ok) throw new Error(`decisions: ${res.status} ${JSON.stringify(body)}`);
  }
  return body;
}

/**
 * The line protocol of `evtsim simulate --admission external --external_command
 * CMD`: a round per line on stdin, an answer per line on stdout.
 */
async function stdio(): Promise<void> {
  const encoder = new TextEncoder();
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl)) as { round: Round; error?: string };
      buffer = buffer.slice(nl + 1);
      if (message.error !== undefined) throw new Error(message.error);
      await Deno.stdout.write(encoder.encode(JSON.stringify(easyAnswer(message.round)) + "\n"));
    }
  }
}

if (import.meta.main && Deno.args[0] === "--stdio") {
  await stdio();
} else if (import.meta.main) {
  const [base, trace, nodes] = Deno.args;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return await res.json();
  };
  const lines = Deno.readTextFileSync(trace).trim().split("\n");
  const head = lines[0].split(",");
  const col = (name: string) => head.indexOf(name);
  const jobs = lines.slice(1).map((l) => {
    const c = l.split(",");
    return {
      submitTime: Number(c[col("job_submit_time")]),
      numNodes: Number(c[col("num_nodes")]),
      timeLimit: Number(c[col("time_limit")]),
    };
  });
  const { sessionId } = await post("/sessions", {
    totalNodes: Number(nodes),
    admission: "external",
    runTimeMode: "limit",
  });
  await answerRounds(
    base,
    sessionId,
    await post(`/sessions/${sessionId}/jobs`, { jobs }),
    easyAnswer,
  );
  const out = await answerRounds(
    base,
    sessionId,
    await post(`/sessions/${sessionId}/finish`, {}),
    easyAnswer,
  ) as {
    jobs: { jobId: number; beginTime: number; endTime: number }[];
  };
  for (const j of out.jobs) console.log(`${j.jobId},${j.beginTime},${j.endTime}`);
}

// One load session of `evtsim serve` (used by bench/serve_load.ts and by
// tests/serve/service_faults_test.ts at a small size): append a seeded job stream
// in batches over HTTP, advancing after each batch, finish, and the batch
// run of the same jobs by the library, with the latency of every append and
// advance.

import { Simulation } from "../api/simulation.ts";
import type { JobRow, JobSpec } from "../core/types.ts";

/** The nodes of every load session's machine. */
export const LOAD_NODES = 64;

/**
 * `n` jobs with strictly increasing integer submit times (so an advance to a
 * batch's last submit time never races a later arrival at that time), a
 * limit and an actual run time of at least 1 s.
 */
export function loadJobs(seed: number, n: number, nodes = LOAD_NODES): JobSpec[] {
  let a = (seed * 2654435761) >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const jobs: JobSpec[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += 1 + Math.floor(rand() * 20);
    const timeLimit = 10 + Math.floor(rand() * 600);
    jobs.push({
      submitTime: t,
      numNodes: 1 + Math.floor(rand() ** 2 * nodes),
      timeLimit,
      actualRunTime: 1 + Math.floor(rand() * timeLimit),
    });
  }
  return jobs;
}

/** What one load session measured and produced. */
export interface LoadResult {
  readonly seed: number;
  /** The schedule the server wrote. */
  readonly live: readonly JobRow[];
  /** The library's batch run of the same jobs. */
  readonly batch: readonly JobRow[];
  /** Milliseconds of the create request. */
  readonly createMs: number;
  /** Milliseconds of each append request, and of each advance request. */
  readonly appendMs: number[];
  readonly advanceMs: number[];
}

/** A client of the HTTP front: `base` URL and optional token. */
export interface LoadClient {
  readonly base: string;
  readonly token?: string;
}

async function post(client: LoadClient, path: string, body: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (client.token !== undefined) headers.authorization = `Bearer ${client.token}`;
  const res = await fetch(client.base + path, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Drives one session of `n` jobs in batches of `batch`; returns its schedule and timings. */
export async function driveLoadSession(
  client: LoadClient,
  seed: number,
  n: number,
  batch: number,
): Promise<LoadResult> {
  const jobs = loadJobs(seed, n);
  const created = performance.now();
  const { sessionId } = await post(client, "/sessions", {
    totalNodes: LOAD_NODES,
    backfillPolicy: "easy",
    name: `load${seed}`,
  }) as { sessionId: string };
  const createMs = performance.now() - created;
  const appendMs: number[] = [];
  const advanceMs: number[] = [];
  for (let i = 0; i < jobs.length; i += batch) {
    const part = jobs.slice(i, i + batch);
    let t0 = performance.now();
    await post(client, `/sessions/${sessionId}/jobs`, { jobs: part });
    appendMs.push(performance.now() - t0);
    t0 = performance.now();
    await post(client, `/sessions/${sessionId}/advance`, { time: part.at(-1)!.submitTime });
    advanceMs.push(performance.now() - t0);
  }
  const out = await post(client, `/sessions/${sessionId}/finish`, {}) as { jobs: JobRow[] };
  const sim = new Simulation({ totalNodes: LOAD_NODES, backfillPolicy: "easy" });
  sim.appendJobs(jobs);
  const batchRows = JSON.parse(JSON.stringify(sim.finish().jobs));
  return { seed, live: out.jobs, batch: batchRows, createMs, appendMs, advanceMs };
}

// `evtsim simulate --redis_uri URI --redis_key_prefix P`: the schedule, the
// resource timeline and the statistics go to Redis instead of files, under
// DR_EVT's key layout (its src/utils/redis_output.cpp and
// docs/user-guide/redis-output.md):
//
//   P:csv                  string      the schedule CSV, as --outfile would hold it
//   P:resources:csv        string      the resource CSV, as --resource_trace would hold it
//   P:job:<id>             hash        job_id and the schedule's columns for one job
//   P:job_ids              set         the ids written
//   P:by_submit|by_start|by_completion  sorted sets of ids by submit, begin, end time
//   P:by_resources         sorted set  ids by num_nodes
//   P:resource:<n>         hash        sample_id, time, free_nodes, allocated_nodes
//   P:resources:by_time    sorted set  sample ids by time
//   P:stats_json           string      the statistics JSON (evtsim's; DR_EVT has no such key)
//
// Times in the hashes are the CSV's text; scores are the times as numbers,
// truncated to whole seconds (DR_EVT's timestamp_score), or rounded to
// milliseconds with --msec_output. A reused prefix starts afresh: the old
// run's job and sample hashes and indexes are deleted, as DR_EVT does.
//
// Unlike DR_EVT, which writes as it flushes, evtsim connects before the run
// (an unreachable server is one line, exit 1, before anything is read) and
// writes everything in one MULTI/EXEC transaction after it: a failed or
// interrupted run leaves the prefix as it was. The run's outputs are made by
// the same writers as the files (cli/outputs.ts) into memory (RedisCapture).
//
// The npm client is loaded only when --redis_uri is given.

import { EvtsimError } from "../core/errors.ts";
import type { JobRow, ResourceRow } from "../core/types.ts";
import { DENO_OUTPUT_FS, type OutputFile, type OutputFileSystem } from "../io/atomic_writer.ts";

/** Where the in-memory outputs live: never a real folder, so nothing of them reaches the disk. */
const MEMORY_ROOT = "/.evtsim-redis-memory";

/** The in-memory paths of the schedule, the resource CSV and the statistics JSON. */
export const REDIS_PATHS = {
  schedule: `${MEMORY_ROOT}/schedule.csv`,
  resources: `${MEMORY_ROOT}/resources.csv`,
  statsJson: `${MEMORY_ROOT}/stats.json`,
} as const;

/**
 * An {@link OutputFileSystem} that keeps the files under the memory root in
 * memory and passes every other path to the real file system (so that
 * `--stats_json`, `--decisions` and the like are still files).
 *
 * @example
 * ```ts
 * import { REDIS_PATHS, RedisCapture } from "./_redis_output.ts";
 * const fs = new RedisCapture();
 * const f = fs.create(`${REDIS_PATHS.schedule}.tmp-1`);
 * f.write(new TextEncoder().encode("a,b\n"));
 * fs.rename(`${REDIS_PATHS.schedule}.tmp-1`, REDIS_PATHS.schedule);
 * console.assert(fs.text(REDIS_PATHS.schedule) === "a,b\n" && !fs.exists(REDIS_PATHS.resources));
 * ```
 */
export class RedisCapture implements OutputFileSystem {
  readonly #files = new Map<string, Uint8Array[]>();

  #inMemory(path: string): boolean {
    return path === MEMORY_ROOT || path.startsWith(`${MEMORY_ROOT}/`);
  }

  /** A kept file's text ("" when it was never made). */
  text(path: string): string {
    const chunks = this.#files.get(path) ?? [];
    const decoder = new TextDecoder();
    return chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
  }

  create(path: string): OutputFile {
    if (!this.#inMemory(path)) return DENO_OUTPUT_FS.create(path);
    if (this.#files.has(path)) throw new Deno.errors.AlreadyExists(`file exists: '${path}'`);
    const chunks: Uint8Array[] = [];
    this.#files.set(path, chunks);
    return {
      write: (bytes) => {
        chunks.push(bytes.slice());
        return bytes.length;
      },
      sync: () => {},
      close: () => {},
    };
  }

  rename(from: string, to: string): void {
    if (!this.#inMemory(from)) return DENO_OUTPUT_FS.rename(from, to);
    const chunks = this.#files.get(from);
    if (chunks === undefined) throw new Deno.errors.NotFound(`no such file: '${from}'`);
    this.#files.set(to, chunks);
    this.#files.delete(from);
  }

  remove(path: string): void {
    if (!this.#inMemory(path)) return DENO_OUTPUT_FS.remove(path);
    this.#files.delete(path);
  }

  link(from: string, to: string): void {
    if (!this.#inMemory(from)) return DENO_OUTPUT_FS.link(from, to);
    const chunks = this.#files.get(from);
    if (chunks === undefined) throw new Deno.errors.NotFound(`no such file: '${from}'`);
    this.#files.set(to, chunks);
  }

  exists(path: string): boolean {
    if (!this.#inMemory(path)) return DENO_OUTPUT_FS.exists(path);
    return path === MEMORY_ROOT || this.#files.has(path);
  }

  mkdir(path: string): void {
    if (!this.#inMemory(path)) DENO_OUTPUT_FS.mkdir(path);
  }
}

/** DR_EVT's sorted-set score of a time: whole seconds (truncated), or milliseconds rounded. */
export function timestampScore(t: number, msec: boolean): number {
  return msec ? Math.round(t * 1000) / 1000 : Math.trunc(t);
}

/** Splits one CSV line into its fields (quoted fields as the schedule writer quotes them). */
export function csvFields(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      out.push(field);
      field = "";
    } else field += c;
  }
  out.push(field);
  return out;
}

/** What one run hands to Redis. */
export interface RedisRun {
  /** The schedule CSV (header and rows), as the file would hold it. */
  readonly scheduleCsv: string;
  /** The resource CSV, as the file would hold it. */
  readonly resourceCsv: string;
  /** The statistics JSON. */
  readonly statsJson: string;
  /** The job rows in the order the schedule lists them. */
  readonly jobs: readonly Pick<
    JobRow,
    "jobId" | "submitTime" | "beginTime" | "endTime" | "numNodes"
  >[];
  /** The resource rows' times, in the order the resource CSV lists them. */
  readonly resourceTimes: readonly number[];
  /** `--msec_output`: scores to the millisecond. */
  readonly msec: boolean;
}

/** The few client calls the sink makes (the npm client's, narrowed). */
interface Client {
  sMembers(key: string): Promise<string[]>;
  zRange(key: string, start: number, stop: number): Promise<string[]>;
  multi(): Multi;
  close(): Promise<unknown>;
  destroy(): void;
}
interface Multi {
  del(key: string | string[]): Multi;
  set(key: string, value: string): Multi;
  hSet(key: string, value: Record<string, string>): Multi;
  sAdd(key: string, members: string[]): Multi;
  zAdd(key: string, members: { score: number; value: string }[]): Multi;
  exec(): Promise<unknown>;
}

/** A connected Redis and the prefix the run writes under. */
export class RedisSink {
  private constructor(
    private readonly client: Client,
    readonly uri: string,
    readonly prefix: string,
  ) {}

  /**
   * Connects (no retry) and checks the server answers; an unreachable or
   * refused server, or a URI that is not redis:// or rediss://, is an
   * {@link EvtsimError} of kind "input" naming the URI.
   */
  static async connect(uri: string, prefix: string): Promise<RedisSink> {
    if (prefix === "") {
      throw new EvtsimError("usage", "--redis_key_prefix: the Redis key prefix cannot be empty");
    }
    const { createClient } = await import("redis");
    const fail = (e: unknown) =>
      new EvtsimError(
        "input",
        `cannot connect to Redis at ${redact(uri)}: ${(e as Error).message || String(e)}`,
      );
    // deno-lint-ignore no-explicit-any
    let client: any;
    try {
      client = createClient({
        url: uri,
        socket: { reconnectStrategy: false, connectTimeout: 5000 },
      });
    } catch (e) {
      throw fail(e);
    }
    // The client reports a lost connection as an event too; the awaited calls throw it.
    client.on("error", () => {});
    try {
      await client.connect();
      await client.ping();
    } catch (e) {
      try {
        client.destroy();
      } catch { /* already closed */ }
      throw fail(e);
    }
    return new RedisSink(client as Client, uri, prefix);
  }

  /** The key of one name under the prefix. */
  key(name: string): string {
    return `${this.prefix}:${name}`;
  }

  /**
   * Replaces what the prefix holds with the run's outputs, in one
   * transaction (DR_EVT clears the old run's keys the same way).
   */
  async publish(run: RedisRun): Promise<void> {
    const k = (name: string) => this.key(name);
    try {
      const oldJobs = await this.client.sMembers(k("job_ids"));
      const oldSamples = await this.client.zRange(k("resources:by_time"), 0, -1);
      const m = this.client.multi();
      for (const id of oldJobs) m.del(k(`job:${id}`));
      for (const id of oldSamples) m.del(k(`resource:${id}`));
      m.del([
        k("job_ids"),
        k("by_submit"),
        k("by_start"),
        k("by_completion"),
        k("by_resources"),
        k("resources:by_time"),
        k("resources:csv"),
        k("stats_json"),
      ]);
      m.set(k("csv"), run.scheduleCsv);
      m.set(k("resources:csv"), run.resourceCsv);
      m.set(k("stats_json"), run.statsJson);
      this.jobCommands(m, run);
      this.resourceCommands(m, run);
      await m.exec();
    } catch (e) {
      if (e instanceof EvtsimError) throw e;
      throw new EvtsimError(
        "input",
        `cannot write to Redis at ${redact(this.uri)}: ${(e as Error).message || String(e)}`,
      );
    }
  }

  private jobCommands(m: Multi, run: RedisRun): void {
    const lines = run.scheduleCsv.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const header = csvFields(lines[0] ?? "");
    if (lines.length - 1 !== run.jobs.length) {
      throw new EvtsimError(
        "state",
        `Redis output: ${lines.length - 1} schedule rows for ${run.jobs.length} jobs`,
      );
    }
    const ids: string[] = [];
    const submit: { score: number; value: string }[] = [];
    const start: { score: number; value: string }[] = [];
    const end: { score: number; value: string }[] = [];
    const nodes: { score: number; value: string }[] = [];
    run.jobs.forEach((j, i) => {
      const id = String(j.jobId);
      const fields = csvFields(lines[i + 1]);
      const hash: Record<string, string> = { job_id: id };
      header.forEach((name, c) => hash[name] = fields[c] ?? "");
      m.hSet(this.key(`job:${id}`), hash);
      ids.push(id);
      submit.push({ score: timestampScore(j.submitTime, run.msec), value: id });
      start.push({ score: timestampScore(j.beginTime, run.msec), value: id });
      end.push({ score: timestampScore(j.endTime, run.msec), value: id });
      nodes.push({ score: j.numNodes, value: id });
    });
    if (ids.length === 0) return;
    m.sAdd(this.key("job_ids"), ids);
    m.zAdd(this.key("by_submit"), submit);
    m.zAdd(this.key("by_start"), start);
    m.zAdd(this.key("by_completion"), end);
    m.zAdd(this.key("by_resources"), nodes);
  }

  private resourceCommands(m: Multi, run: RedisRun): void {
    const lines = run.resourceCsv.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (lines.length - 1 !== run.resourceTimes.length) {
      throw new EvtsimError(
        "state",
        `Redis output: ${lines.length - 1} resource rows for ${run.resourceTimes.length} samples`,
      );
    }
    // time, free_nodes, allocated_nodes (and avgpcon, minpcon, maxpcon with --trace_type pcon).
    const header = csvFields(lines[0] ?? "");
    const byTime: { score: number; value: string }[] = [];
    run.resourceTimes.forEach((t, n) => {
      const id = String(n);
      const fields = csvFields(lines[n + 1]);
      const hash: Record<string, string> = { sample_id: id };
      header.forEach((name, c) => hash[name] = fields[c] ?? "");
      m.hSet(this.key(`resource:${id}`), hash);
      byTime.push({ score: timestampScore(t, run.msec), value: id });
    });
    if (byTime.length > 0) m.zAdd(this.key("resources:by_time"), byTime);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    try {
      await this.client.close();
    } catch {
      this.client.destroy();
    }
  }

  /** Drops the connection at once (a failed run). */
  destroy(): void {
    try {
      this.client.destroy();
    } catch { /* already closed */ }
  }
}

/** The URI without its password, for messages (it may be in the user's shell history, not in ours). */
export function redact(uri: string): string {
  return uri.replace(/^(\w+:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}

/** The resource rows' times collected as a run writes them (for the sample scores). */
export function resourceTimes(rows: readonly ResourceRow[], into: number[]): void {
  for (const r of rows) into.push(r.time);
}

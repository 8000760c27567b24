// Where a sweep cell's `simulate` run writes its outputs: nowhere on disk.
// A cell's result is one row read from the run's statistics JSON; the
// schedule and the resource timeline it also writes were made in a temporary
// folder, fsynced, renamed into place and removed again, a tenth of a warm
// KTH cell. The run now goes through the same `simulate` code with an output
// file system in memory that drops every file's bytes but the statistics
// JSON's; a sweep cell or compare's run is stats-only besides (cli/simulate.ts:
// the figures a row reads, as that JSON would write them: `figuresJson`), so
// the row is still exactly the one `evtsim simulate --stats_json` gives.

import type { OutputFile, OutputFileSystem } from "../io/atomic_writer.ts";
import type { RunFigures } from "./simulate.ts";

/**
 * A stats-only run's figures (cli/simulate.ts) as its statistics JSON
 * writes them (an infinite or NaN number is null): what a sweep or compare
 * row reads back.
 *
 * @example
 * ```ts
 * import { figuresJson } from "./_cell_outputs.ts";
 * const f = { metrics: { slowdown_max: Infinity } } as never;
 * console.assert(figuresJson(f) === '{"metrics":{"slowdown_max":null}}');
 * ```
 */
export function figuresJson(figures: RunFigures): string {
  return JSON.stringify(
    figures,
    (_key, v) => typeof v === "number" && !Number.isFinite(v) ? null : v,
  );
}

/**
 * An in-memory {@link OutputFileSystem} that keeps only the files named
 * `keep` (their bytes, once committed) and discards what is written to any
 * other. The folders above `keep` exist (none is made, so none is announced
 * as a temporary); nothing else exists but what is made through it, and
 * nothing of it is on disk.
 *
 * @example
 * ```ts
 * import { KeepOneOutput } from "./_cell_outputs.ts";
 * const fs = new KeepOneOutput("/cell/stats.json");
 * const f = fs.create("/cell/stats.json.tmp-1"); // the atomic writer's temporary name
 * f.write(new TextEncoder().encode("{}"));
 * f.close();
 * fs.rename("/cell/stats.json.tmp-1", "/cell/stats.json");
 * console.assert(fs.text() === "{}" && fs.exists("/cell") && fs.discards("/cell/x.csv"));
 * ```
 */
export class KeepOneOutput implements OutputFileSystem {
  /** Every path made: a folder (true) or a file (its chunks, or undefined when discarded). */
  readonly #paths = new Map<string, Uint8Array[] | undefined | true>();

  constructor(private readonly keep: string) {}

  /** The kept file's text (empty when it was never committed). */
  text(): string {
    const chunks = this.#paths.get(this.keep);
    if (chunks === undefined || chunks === true) return "";
    const decoder = new TextDecoder();
    return chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
  }

  create(path: string): OutputFile {
    if (this.#paths.has(path)) throw new Deno.errors.AlreadyExists(`file exists: '${path}'`);
    // The temporary is `keep` plus a suffix (io/atomic_writer.ts).
    const chunks: Uint8Array[] | undefined = path.startsWith(`${this.keep}.tmp-`) ? [] : undefined;
    this.#paths.set(path, chunks);
    return {
      write: (bytes) => {
        chunks?.push(bytes.slice());
        return bytes.length;
      },
      sync: () => {},
      close: () => {},
    };
  }

  rename(from: string, to: string): void {
    if (!this.#paths.has(from)) throw new Deno.errors.NotFound(`no such file: '${from}'`);
    this.#paths.set(to, this.#paths.get(from));
    this.#paths.delete(from);
  }

  remove(path: string): void {
    this.#paths.delete(path);
  }

  link(from: string, to: string): void {
    if (!this.#paths.has(from)) throw new Deno.errors.NotFound(`no such file: '${from}'`);
    this.#paths.set(to, this.#paths.get(from));
  }

  exists(path: string): boolean {
    return this.#paths.has(path) || this.keep.startsWith(path.endsWith("/") ? path : `${path}/`);
  }

  mkdir(path: string): void {
    this.#paths.set(path, true);
  }

  discards(path: string): boolean {
    return path !== this.keep;
  }
}

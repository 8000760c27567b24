// The memory-pressure limit of DR_EVT's `--check_memory_pressure F`: the job
// store may not grow to a size whose projected memory use exceeds F × the
// memory the system reports as available. The core cannot read the system,
// so the shell turns the fraction into a record count (`maxStoreCapacity`)
// right before an append that may grow the store.

import { EvtsimError } from "../core/errors.ts";

/**
 * Rough heap bytes one job costs while it is held in the job store:
 * the record in the store's list (measured ≈130 B) plus its node in the
 * future-arrival or wait-queue tree (≈65 B), rounded up to leave room for
 * queue-name strings and the per-step copies. Measured with Deno 2.9 /
 * V8 15: `heapUsed` after `gc()` around one `appendJobs` of 10^5 and
 * 4·10^5 jobs gave 128–130 B per stored job and 192–193 B per stored and
 * submitted job.
 *
 * @example
 * ```ts
 * import { ESTIMATED_BYTES_PER_JOB_RECORD, memoryPressureLimit } from "@evtsim/evtsim";
 * // With 1 GiB available and F = 0.5, the store may hold about two million jobs.
 * const n = memoryPressureLimit(0.5, { availableBytes: 2 ** 30 });
 * if (n !== Math.floor(2 ** 29 / ESTIMATED_BYTES_PER_JOB_RECORD)) throw new Error(`got ${n}`);
 * ```
 */
export const ESTIMATED_BYTES_PER_JOB_RECORD = 256;

/**
 * Checks a `--check_memory_pressure` fraction: a number with 0 < F ≤ 1.
 *
 * @example
 * ```ts
 * import { checkMemoryPressureFraction } from "@evtsim/evtsim";
 * console.assert(checkMemoryPressureFraction(0.5) === 0.5);
 * ```
 */
export function checkMemoryPressureFraction(fraction: number): number {
  if (typeof fraction !== "number" || !(fraction > 0 && fraction <= 1)) {
    throw new EvtsimError(
      "usage",
      `check memory pressure must be a fraction with 0 < F <= 1, got ${fraction}`,
    );
  }
  return fraction;
}

/**
 * Where {@link memoryPressureLimit} gets its numbers; injectable for tests.
 *
 * @example
 * ```ts
 * import { appendJobs, EvtsimError, initialState, memoryPressureLimit, type MemoryPressureOptions, step } from "@evtsim/evtsim";
 * const tiny: MemoryPressureOptions = { availableBytes: 1024, bytesPerRecord: 256 };
 * const limit = memoryPressureLimit(1, tiny); // 4 records
 * const jobs = Array.from({ length: 5 }, () => ({ submitTime: 0, numNodes: 1, timeLimit: 1 }));
 * try {
 *   step(initialState({ totalNodes: 8 }), appendJobs(jobs, { maxStoreCapacity: limit }));
 *   throw new Error("5 jobs should not fit a 4-record limit");
 * } catch (e) {
 *   if (!(e instanceof EvtsimError)) throw e;
 * }
 * ```
 */
export interface MemoryPressureOptions {
  /** Bytes available now; default `Deno.systemMemoryInfo().available` (Linux MemAvailable). */
  readonly availableBytes?: number;
  /** Bytes one job record costs; default {@link ESTIMATED_BYTES_PER_JOB_RECORD}. */
  readonly bytesPerRecord?: number;
}

/**
 * The largest job-store size, in records, whose projected use stays within
 * `fraction` × available memory: `floor(available × F / bytesPerRecord)`.
 * Pass it as the `maxStoreCapacity` of an `appendJobs` input. Reading the
 * system memory needs `--allow-sys`.
 *
 * @example
 * ```ts
 * import { memoryPressureLimit } from "@evtsim/evtsim";
 * const n = memoryPressureLimit(0.5, { availableBytes: 1 << 20, bytesPerRecord: 256 });
 * console.assert(n === 2048);
 * ```
 */
export function memoryPressureLimit(fraction: number, options: MemoryPressureOptions = {}): number {
  checkMemoryPressureFraction(fraction);
  const bytes = options.bytesPerRecord ?? ESTIMATED_BYTES_PER_JOB_RECORD;
  return Math.floor((options.availableBytes ?? systemAvailableBytes()) * fraction / bytes);
}

function systemAvailableBytes(): number {
  try {
    return Deno.systemMemoryInfo().available;
  } catch (e) {
    throw new EvtsimError(
      "usage",
      `check memory pressure needs the available system memory, which could not be read (${
        e instanceof Error ? e.message : String(e)
      }); run with --allow-sys`,
    );
  }
}

// A parsed trace sent from `evtsim compare`'s thread to its workers
// (cli/_compare_pool.ts) as a few typed columns, so that a worker neither
// reads the file again nor receives 100k+ job objects by structured clone
// (which costs about what parsing does). Each job comes back with the same
// keys in the same order and the same values; a trace whose jobs carry
// anything but numbers and strings (a resource demand) is not sent, and the
// worker reads the file itself as before.

import type { LoadedInput } from "./load.ts";
import type { JobSpec } from "../core/types.ts";

/** A parsed trace as its cache key, the input without its jobs, and the jobs as columns. */
export interface SharedTrace {
  /** The key of cli/_trace_cache.ts the trace was read under. */
  readonly key: string;
  /** The input, `jobs` emptied. */
  readonly rest: LoadedInput;
  /** Key lists of the jobs (a job's keys are `shapes[shape[j]]`). */
  readonly shapes: readonly (readonly string[])[];
  readonly shape: Uint16Array;
  /** Per key of a shape, in order: the job's value (a number, or a string's index in `strings`). */
  readonly values: Float64Array;
  /** Per value: 0 a number, 1 a string, 2 undefined. */
  readonly kinds: Uint8Array;
  readonly strings: readonly string[];
}

/** The trace `input` read under `key` as a {@link SharedTrace}, or undefined when it cannot be one. */
export function shareTrace(key: string, input: LoadedInput): SharedTrace | undefined {
  if (input.mode !== "simulation" || input.recorded.length > 0) return undefined;
  const jobs = input.jobs;
  const shapes: string[][] = [];
  const shapeOf = new Map<string, number>();
  const shape = new Uint16Array(jobs.length);
  let size = 0, last = -1;
  for (let j = 0; j < jobs.length; j++) {
    // Jobs come in runs of one shape: the previous one is tried first.
    if (last < 0 || !hasKeys(jobs[j], shapes[last])) {
      const keys = Object.keys(jobs[j]);
      const name = keys.join(",");
      let s = shapeOf.get(name);
      if (s === undefined) {
        if (shapes.length === 0xffff) return undefined;
        s = shapes.push(keys) - 1;
        shapeOf.set(name, s);
      }
      last = s;
    }
    shape[j] = last;
    size += shapes[last].length;
  }
  const values = new Float64Array(size), kinds = new Uint8Array(size);
  const strings: string[] = [];
  const stringOf = new Map<string, number>();
  let v = 0, lastString: string | undefined, lastIndex = 0;
  for (let j = 0; j < jobs.length; j++) {
    const job = jobs[j] as unknown as Record<string, unknown>;
    for (const k of shapes[shape[j]]) {
      const x = job[k];
      if (typeof x === "number") values[v] = x;
      else if (typeof x === "string") {
        if (x !== lastString) {
          let i = stringOf.get(x);
          if (i === undefined) {
            i = strings.push(x) - 1;
            stringOf.set(x, i);
          }
          lastString = x;
          lastIndex = i;
        }
        values[v] = lastIndex;
        kinds[v] = 1;
      } else if (x === undefined) kinds[v] = 2;
      else return undefined;
      v++;
    }
  }
  const rest = { ...input, jobs: [] };
  try {
    structuredClone(rest); // (small: what a worker could not receive is not sent)
  } catch {
    return undefined;
  }
  return { key, rest, shapes, shape, values, kinds, strings };
}

// Whether `o`'s own enumerable keys are `keys`, in order.
function hasKeys(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

/** The input a {@link SharedTrace} was made of (equal jobs, keys in the same order). */
export function sharedInput(t: SharedTrace): LoadedInput {
  const { shapes, shape, values, kinds, strings } = t;
  const jobs: JobSpec[] = new Array(shape.length);
  // One object per shape with its keys in order: each job is a copy of it
  // (the same hidden class, no property added one by one).
  const templates = shapes.map((keys) => {
    const o: Record<string, unknown> = {};
    for (const k of keys) o[k] = 0;
    return o;
  });
  let v = 0;
  for (let j = 0; j < shape.length; j++) {
    const job: Record<string, unknown> = { ...templates[shape[j]] };
    for (const k of shapes[shape[j]]) {
      const kind = kinds[v];
      job[k] = kind === 0 ? values[v] : kind === 1 ? strings[values[v]] : undefined;
      v++;
    }
    jobs[j] = job as unknown as JobSpec;
  }
  return { ...t.rest, jobs };
}

// Minimal assertions (jsr:@std/assert cannot be fetched offline).

/** Throws unless `actual` and `expected` are deeply equal (structural, via node:util). */
export { deepStrictEqual as assertEquals } from "node:assert";

/** Throws unless `cond` is truthy. */
export function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new Error(message);
}

/** Throws unless `fn` throws an error whose message includes `includes`. */
export function assertThrows(fn: () => unknown, includes?: string): Error {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof Error)) throw new Error(`expected an Error, got ${String(e)}`);
    if (includes !== undefined && !e.message.includes(includes)) {
      throw new Error(`expected error message to include "${includes}", got "${e.message}"`);
    }
    return e;
  }
  throw new Error("expected function to throw");
}

/** Async version of assertThrows. */
export async function assertRejects(fn: () => Promise<unknown>, includes?: string): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof Error)) throw new Error(`expected an Error, got ${String(e)}`);
    if (includes !== undefined && !e.message.includes(includes)) {
      throw new Error(`expected error message to include "${includes}", got "${e.message}"`);
    }
    return e;
  }
  throw new Error("expected promise to reject");
}

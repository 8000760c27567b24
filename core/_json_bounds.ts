// Bounds on the free-form JSON evtsim accepts (picker settings, a picker's
// saved memory): every later step that walks such a value (the frozen copy,
// the recording's JSON, the config hash) recurses, so a value nested
// thousands deep would overflow the stack, and one with millions of entries
// would hold the engine's memory. The walk here is iterative, so it is safe
// on any value, and it stops at the first excess.

import { EvtsimError } from "./errors.ts";

/** Deepest nesting of arrays and objects in a free-form JSON value. */
export const MAX_JSON_DEPTH = 64;

/** Most values (numbers, strings, arrays, objects…, counted one each) in a free-form JSON value. */
export const MAX_JSON_VALUES = 1_000_000;

/** Longest string (or object key) in a free-form JSON value, in characters. */
export const MAX_JSON_STRING = 1_000_000;

// One value met on the walk; its path is built only for a message.
interface Item {
  readonly value: unknown;
  readonly parent: Item | undefined;
  readonly key: string | number;
  readonly depth: number;
}

// The path of an item as messages show it (`a.b[3].c`), cut short when the
// nesting made it long.
function pathOf(item: Item, root: string): string {
  const parts: string[] = [];
  for (let i: Item | undefined = item; i !== undefined && i.parent !== undefined; i = i.parent) {
    parts.push(typeof i.key === "number" ? `[${i.key}]` : `.${i.key}`);
  }
  let path = root + parts.reverse().join("");
  if (path.startsWith(".")) path = path.slice(1);
  if (path === "") return "the value";
  return path.length > 60 ? `${path.slice(0, 57)}...` : path;
}

/**
 * What is wrong with `value`'s size, as `path: text` (or `text` when the
 * whole value is at fault), or undefined when it is within the bounds. Only the size is checked (depth, count, string
 * lengths), not that the values are JSON data.
 */
export function jsonBoundProblem(value: unknown, root = ""): string | undefined {
  const stack: Item[] = [{ value, parent: undefined, key: "", depth: 0 }];
  let count = 1;
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === "string") {
      if (v.length > MAX_JSON_STRING) {
        return `${pathOf(item, root)}: a string longer than ${MAX_JSON_STRING} characters`;
      }
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (item.depth >= MAX_JSON_DEPTH) {
      return `${pathOf(item, root)}: nested more than ${MAX_JSON_DEPTH} levels deep`;
    }
    const keys = Array.isArray(v) ? undefined : Object.keys(v);
    count += keys === undefined ? (v as unknown[]).length : keys.length;
    if (count > MAX_JSON_VALUES) {
      return `${root === "" ? "" : `${root}: `}more than ${MAX_JSON_VALUES} values`;
    }
    const depth = item.depth + 1;
    if (keys === undefined) {
      const a = v as unknown[];
      for (let i = a.length - 1; i >= 0; i--) {
        stack.push({ value: a[i], parent: item, key: i, depth });
      }
      continue;
    }
    for (const k of keys) {
      if (k.length > MAX_JSON_STRING) {
        return `${pathOf(item, root)}: a key longer than ${MAX_JSON_STRING} characters`;
      }
      stack.push({ value: (v as Record<string, unknown>)[k], parent: item, key: k, depth });
    }
  }
  return undefined;
}

/**
 * Throws a usage error naming `what` unless `value` is within the bounds
 * of free-form JSON ({@link MAX_JSON_DEPTH}, {@link MAX_JSON_VALUES},
 * {@link MAX_JSON_STRING}).
 */
export function checkJsonBounds(value: unknown, what: string): void {
  const problem = jsonBoundProblem(value);
  if (problem !== undefined) throw new EvtsimError("usage", `${what}: ${problem}`);
}

// Slurm's hostlist form of a set of node names: names sharing a prefix and a
// numeric suffix of one width are written as ranges in brackets
// (`n[001-004,007]`). The schedule's `nodes` column is written in it, so
// that Slurm users (and `scontrol show hostnames`) read it as they read
// their own accounting. Names with no numeric suffix are written as they
// are; a name holding `[`, `]` or `,` cannot be written unambiguously and is
// written as it is too (expanding such a list does not give it back).

import { EvtsimError } from "../core/errors.ts";

/** Prefix, digit string of a name ending in digits (undefined otherwise). */
function split(name: string): [string, string] | undefined {
  const m = /^(.*?)(\d+)$/.exec(name);
  return m === null ? undefined : [m[1], m[2]];
}

/**
 * The hostlist of `names`: names with the same prefix and a numeric suffix
 * of the same width are merged into one bracketed list of ranges (numbers
 * ascending, duplicates dropped); groups keep the order of their first name.
 *
 * @example
 * ```ts
 * import { compressHostlist } from "./hostlist.ts";
 * console.assert(compressHostlist(["n001", "n002", "n003", "n004"]) === "n[001-004]");
 * console.assert(compressHostlist(["n004", "n001", "n002", "gpu7"]) === "n[001-002,004],gpu7");
 * console.assert(compressHostlist(["login"]) === "login");
 * ```
 */
export function compressHostlist(names: readonly string[]): string {
  // Group key: prefix and width ("\u0000" + name for a name without digits).
  const groups = new Map<string, { prefix: string; width: number; numbers: number[] }>();
  const literal = new Set<string>();
  const order: string[] = [];
  for (const name of names) {
    const parts = split(name);
    // Numbers beyond 2^53 cannot be ranged exactly: written as they are.
    if (parts === undefined || parts[1].length > 15) {
      if (!literal.has(name)) {
        literal.add(name);
        order.push("\u0000" + name);
      }
      continue;
    }
    const [prefix, digits] = parts;
    const key = `${digits.length}\u0001${prefix}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = { prefix, width: digits.length, numbers: [] };
      groups.set(key, g);
      order.push(key);
    }
    g.numbers.push(Number(digits));
  }
  return order.map((key) => {
    if (key.startsWith("\u0000")) return key.slice(1);
    const g = groups.get(key)!;
    return numberedHostlist(g.prefix, g.width, [...new Set(g.numbers)].sort((a, b) => a - b));
  }).join(",");
}

/**
 * The hostlist of the names `prefix` + each of `numbers` (ascending, no
 * duplicates) zero-padded to `width` digits: what {@link compressHostlist}
 * gives for those names, without making them (a whole-node job's nodes).
 *
 * @example
 * ```ts
 * import { numberedHostlist } from "./hostlist.ts";
 * console.assert(numberedHostlist("n", 3, [1, 2, 3, 7]) === "n[001-003,007]");
 * console.assert(numberedHostlist("n", 3, [5]) === "n005");
 * ```
 */
export function numberedHostlist(
  prefix: string,
  width: number,
  numbers: ArrayLike<number>,
): string {
  const pad = (n: number) => String(n).padStart(width, "0");
  if (numbers.length === 0) return "";
  if (numbers.length === 1) return prefix + pad(numbers[0]);
  let ranges = "";
  for (let i = 0; i < numbers.length;) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    ranges += (i === 0 ? "" : ",") +
      (i === j ? pad(numbers[i]) : `${pad(numbers[i])}-${pad(numbers[j])}`);
    i = j + 1;
  }
  return `${prefix}[${ranges}]`;
}

/**
 * The names of a hostlist, in the order written (ranges ascending, each
 * number padded to the width of its range's first bound, as Slurm does).
 * Throws an `EvtsimError` naming what is wrong in a malformed list.
 *
 * @example
 * ```ts
 * import { expandHostlist } from "./hostlist.ts";
 * console.assert(expandHostlist("n[001-003],gpu7").join(" ") === "n001 n002 n003 gpu7");
 * console.assert(expandHostlist("").length === 0);
 * ```
 */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  for (const item of itemsOf(list)) {
    const { prefix, suffix, ranges } = rangesOf(item, list);
    if (ranges === undefined) {
      out.push(item);
      continue;
    }
    for (const [lo, hi, width] of ranges) {
      for (let n = lo; n <= hi; n++) out.push(prefix + String(n).padStart(width, "0") + suffix);
    }
  }
  return out;
}

/**
 * How many names a hostlist holds, without making them (a well-formed check
 * before expanding a list that might name millions). Throws as
 * {@link expandHostlist} does for a malformed list.
 *
 * @example
 * ```ts
 * import { hostlistSize } from "./hostlist.ts";
 * console.assert(hostlistSize("n[001-003,007],gpu7") === 5);
 * console.assert(hostlistSize("") === 0);
 * ```
 */
export function hostlistSize(list: string): number {
  let size = 0;
  for (const item of itemsOf(list)) {
    const { ranges } = rangesOf(item, list);
    if (ranges === undefined) size++;
    else for (const [lo, hi] of ranges) size += hi - lo + 1;
  }
  return size;
}

// The items of a hostlist: text up to each top-level comma (commas inside
// brackets belong to the item).
function itemsOf(list: string): string[] {
  const items: string[] = [];
  if (list === "") return items;
  let i = 0;
  while (i <= list.length) {
    let j = i;
    let open = -1;
    while (j < list.length && !(list[j] === "," && open < 0)) {
      if (list[j] === "[") {
        if (open >= 0) throw bad(list, "a bracket inside a bracket");
        open = j;
      } else if (list[j] === "]") {
        if (open < 0) throw bad(list, "a ']' without '['");
        open = -1;
      }
      j++;
    }
    if (open >= 0) throw bad(list, "a '[' without ']'");
    const item = list.slice(i, j);
    if (item === "") throw bad(list, "an empty name");
    items.push(item);
    i = j + 1;
  }
  return items;
}

// An item's prefix, suffix and bracketed ranges ([first, last, digits]), or
// no ranges for a plain name.
function rangesOf(
  item: string,
  list: string,
): { prefix: string; suffix: string; ranges?: [number, number, number][] } {
  const lb = item.indexOf("[");
  if (lb < 0) return { prefix: item, suffix: "" };
  const rb = item.indexOf("]");
  const ranges: [number, number, number][] = [];
  for (const range of item.slice(lb + 1, rb).split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(range);
    if (m === null) throw bad(list, `range '${range}' is not N or N-M`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) throw bad(list, `range '${range}' ends before it starts`);
    ranges.push([lo, hi, m[1].length]);
  }
  return { prefix: item.slice(0, lb), suffix: item.slice(rb + 1), ranges };
}

function bad(list: string, what: string): EvtsimError {
  return new EvtsimError("input", `hostlist ${JSON.stringify(list)}: ${what}`);
}

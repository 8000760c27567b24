// The low-level part of the SWF reader: splitting a data line into its 18
// numbers in place (no regex, no per-field strings on the common path) and
// reading `; Key: value` header comments.

import { EvtsimError } from "../core/errors.ts";

/** Number of fields on every SWF data line. */
export const SWF_FIELD_COUNT = 18;

/** The SWF field names, 1-based positions minus one, as error messages name them. */
export const SWF_FIELD_NAMES: readonly string[] = [
  "job number",
  "submit time",
  "wait time",
  "run time",
  "allocated processors",
  "average CPU time",
  "used memory",
  "requested processors",
  "requested time",
  "requested memory",
  "status",
  "user id",
  "group id",
  "executable number",
  "queue number",
  "partition number",
  "preceding job number",
  "think time",
];

/** `field 4 (run time)` for index 3. */
export function fieldLabel(index: number): string {
  return `field ${index + 1} (${SWF_FIELD_NAMES[index] ?? "extra"})`;
}

// A plain decimal such as `-1`, `12`, `3.25`, `.5` or `1e3`; what Number()
// would also accept but hex, `Infinity` and empty strings are not.
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Parses the whitespace-separated numbers of `text[start, end)` into `out`
 * (which must hold at least 18 values). Throws an `EvtsimError` at `file` /
 * `line` unless there are exactly 18 fields and all are numbers; a wrong
 * count is reported before a bad value because it usually explains it.
 */
export function scanDataLine(
  text: string,
  start: number,
  end: number,
  out: Float64Array,
  file: string,
  line: number,
): void {
  let count = 0;
  let bad = -1;
  let badText = "";
  let big = -1;
  let bigText = "";
  let i = start;
  while (true) {
    while (i < end && text.charCodeAt(i) <= 32) i++;
    if (i >= end) break;
    const tokenStart = i;
    // Fast path: optional minus sign and digits, which is nearly every field.
    let negative = false;
    if (text.charCodeAt(i) === 45) {
      negative = true;
      i++;
    }
    let value = 0;
    let digits = 0;
    let c = 0;
    while (i < end && (c = text.charCodeAt(i)) >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
      i++;
    }
    let ok = digits > 0 && (i >= end || c <= 32);
    if (!ok) {
      // Anything else (fractions, exponents, junk): take the whole token.
      while (i < end && text.charCodeAt(i) > 32) i++;
      const token = text.slice(tokenStart, i);
      ok = DECIMAL.test(token);
      value = ok ? Number(token) : NaN;
      negative = false;
      if (!ok && bad < 0) {
        bad = count;
        badText = token;
      }
    }
    // Beyond 2^53 − 1 a double no longer holds every integer: refuse, do not round.
    if (ok && !(Math.abs(value) <= Number.MAX_SAFE_INTEGER) && big < 0) {
      big = count;
      bigText = text.slice(tokenStart, i);
    }
    if (count < out.length) out[count] = negative ? -value : value;
    count++;
  }
  if (count !== SWF_FIELD_COUNT) {
    throw new EvtsimError(
      "input",
      `expected ${SWF_FIELD_COUNT} whitespace-separated fields, got ${count}`,
      { file, line, field: "field count" },
    );
  }
  if (bad >= 0 || big >= 0) {
    const raw = bad >= 0 ? badText : bigText;
    const shown = raw.length > 24 ? raw.slice(0, 24) + "…" : raw;
    const expected = bad >= 0 ? "a number" : "a number of at most 2^53 - 1 in magnitude";
    throw new EvtsimError("input", `expected ${expected}, got '${shown}'`, {
      file,
      line,
      field: fieldLabel(bad >= 0 ? bad : big),
    });
  }
}

const HEADER_ENTRY = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$/;

/**
 * Splits the text after a header comment's `;` into a key and value, or
 * returns undefined for free-text continuation lines (`;   filters used…`).
 */
export function parseHeaderEntry(comment: string): [string, string] | undefined {
  const m = HEADER_ENTRY.exec(comment);
  return m ? [m[1], m[2]] : undefined;
}

/** A header value as a positive number, or undefined (SWF writes -1 for unknown). */
export function positiveNumber(value: string): number | undefined {
  if (!DECIMAL.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}

/** `Queue: 3  normal` values → [3, "normal"]; undefined when not of that shape. */
export function parseQueueEntry(value: string): [number, string] | undefined {
  const m = /^(-?\d+)\s+(\S+)/.exec(value);
  return m ? [Number(m[1]), m[2]] : undefined;
}

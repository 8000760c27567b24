// Turning the fields of a trace row into numbers, with one-line errors that
// name the file, line and column (used by the trace reader, trace_csv.ts).

import { EvtsimError } from "../core/errors.ts";
import type { TimestampParser } from "./timestamps.ts";

/** A column the reader uses: its 0-based position and the name messages give it. */
export interface NamedColumn {
  /** Header name (or canonical name for `lassen`). */
  readonly name: string;
}

/** Largest value a double holds exactly together with its neighbours (2^53 − 1). */
const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** A value as messages quote it, shortened. */
export function show(v: string): string {
  return v.length > 60 ? `'${v.slice(0, 57)}...'` : `'${v}'`;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Turns field values into numbers, naming the file, line and column on failure. */
export class FieldReader {
  /** 1-based number of the line being read. */
  line = 0;
  constructor(readonly file: string, private readonly ts: TimestampParser) {}

  /** An input error at the current line. */
  fail(detail: string, field: string): EvtsimError {
    return new EvtsimError("input", detail, { file: this.file, line: this.line, field });
  }

  /** A timestamp in epoch seconds; required, and not before 1970 (the clock starts at 0). */
  time(v: string, col: NamedColumn): number {
    let t: number;
    try {
      t = this.ts(v);
    } catch (e) {
      throw this.fail((e as Error).message, col.name);
    }
    if (t < 0) {
      throw this.fail(
        `expected a time at or after 1970-01-01 00:00:00 UTC (epoch 0), got ${show(v)} (${t} s)`,
        col.name,
      );
    }
    return t;
  }

  /** A non-negative integer of at most 2^53 − 1. */
  count(v: string, col: NamedColumn): number {
    let x = 0;
    let ok = v.length > 0;
    for (let i = 0; ok && i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) ok = false;
      else x = x * 10 + (c - 48);
    }
    if (!ok) throw this.fail(`expected a non-negative integer, got ${show(v)}`, col.name);
    if (x > MAX_EXACT) {
      throw this.fail(
        `expected an integer of at most 2^53 - 1 (9007199254740991), got ${show(v)}`,
        col.name,
      );
    }
    return x;
  }

  /** An integer (of either sign) of magnitude at most 2^53 − 1. */
  integer(v: string, col: NamedColumn): number {
    const negative = v.startsWith("-");
    const digits = negative || v.startsWith("+") ? v.slice(1) : v;
    if (!/^\d+$/.test(digits)) throw this.fail(`expected an integer, got ${show(v)}`, col.name);
    const x = Number(digits);
    if (x > MAX_EXACT) {
      throw this.fail(
        `expected an integer of magnitude at most 2^53 - 1 (9007199254740991), got ${show(v)}`,
        col.name,
      );
    }
    return negative ? -x : x;
  }

  /** A non-negative number of seconds of at most 2^53 − 1. */
  seconds(v: string, col: NamedColumn): number {
    // Whole seconds (nearly every trace) skip the regular expression.
    let whole = 0;
    let i = 0;
    const n = v.length;
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) break;
      whole = whole * 10 + (c - 48);
    }
    if (i === n && n > 0 && n < 16) return whole;
    const x = DECIMAL.test(v) ? Number(v) : NaN;
    if (!(x >= 0 && x < Infinity)) {
      throw this.fail(`expected a non-negative number of seconds, got ${show(v)}`, col.name);
    }
    if (x > MAX_EXACT) {
      throw this.fail(
        `expected at most 2^53 - 1 (9007199254740991) seconds, got ${show(v)}`,
        col.name,
      );
    }
    return x + 0; // turns -0 into 0
  }

  /** `submit` unless it is before `prev` (progressive input must be sorted). */
  ordered(submit: number, prev: number, raw: string, col: NamedColumn): number {
    if (submit < prev) {
      const what = "expected submit times in non-decreasing order (progressive input)";
      throw this.fail(`${what}, got ${show(raw)} after ${prev}`, col.name);
    }
    return submit;
  }
}

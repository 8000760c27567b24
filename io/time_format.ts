// Output timestamps as DR_EVT writes them: whole seconds truncated toward
// zero, or with --msec_output three decimals (also truncated).

/**
 * Formats a time in seconds for an output file.
 *
 * @example
 * ```ts
 * import { formatTime } from "./time_format.ts";
 * console.assert(formatTime(100.9, false) === "100");
 * console.assert(formatTime(100.9, true) === "100.900");
 * ```
 */
export function formatTime(t: number, msec: boolean): string {
  if (!msec) return String(wholeSeconds(t));
  // Round to microseconds first so 0.1 + 0.2 style noise does not truncate
  // a whole millisecond away, then truncate to milliseconds.
  const ms = Math.trunc(Math.round(t * 1e6) / 1e3);
  const neg = ms < 0;
  const abs = Math.abs(ms);
  const whole = Math.floor(abs / 1000);
  const frac = String(abs - whole * 1000).padStart(3, "0");
  return `${neg ? "-" : ""}${whole}.${frac}`;
}

/**
 * A time in whole seconds as the outputs write it: truncated toward zero,
 * and -0 as 0 (what {@link formatTime} prints without `msec`).
 *
 * @example
 * ```ts
 * import { wholeSeconds } from "./time_format.ts";
 * console.assert(wholeSeconds(-0.5) === 0 && !Object.is(wholeSeconds(-0.5), -0));
 * console.assert(wholeSeconds(100.9) === 100 && wholeSeconds(-3.5) === -3);
 * ```
 */
export function wholeSeconds(t: number): number {
  const i = Math.trunc(t);
  return i === 0 ? 0 : i;
}

// Timestamp values of DR_EVT traces, auto-detected per value: epoch seconds,
// an ISO date-time with an offset, or a calendar date-time in a named zone.
// Traces hold hundreds of thousands of these, so the common shapes are parsed
// by hand and Temporal is consulted only once per local hour of a zone.

/** Parses one timestamp value to epoch seconds; throws `Error` with a short reason. */
export type TimestampParser = (value: string) => number;

const CALENDAR_SHAPE = "a date-time YYYY-MM-DD[T ]HH:MM:SS[.fff]";
const parsers = new Map<string, TimestampParser>();

/**
 * Converts a trace timestamp to epoch seconds (fractions kept).
 *
 * - `""` → an error (DR_EVT reads it as 0, which puts a job in 1970);
 * - only digits, `-` and `.` → epoch seconds (`"1700000000.5"`), at most 2^53 − 1 in magnitude;
 * - a `+`, `-` or `Z` after character index 10 → ISO date-time with offset, converted to UTC
 *   (`"2024-01-01T00:00:00Z"`, `"2024-01-01 02:00:00+02:00"`);
 * - otherwise `YYYY-MM-DDTHH:MM:SS` or `YYYY-MM-DD HH:MM:SS` (fractional seconds allowed) in the
 *   IANA zone `timezone`. Local times in a DST gap or fold resolve as Temporal's `"compatible"`.
 *
 * Throws a plain `Error` whose message is a short reason ("expected ..., got '...'"); an unknown
 * zone name is an error even when the value would not need it.
 *
 * @example
 * ```ts
 * import { parseTimestamp } from "./timestamps.ts";
 * console.assert(parseTimestamp("2024-01-01 00:00:00", "America/Los_Angeles") === 1704096000);
 * ```
 */
export function parseTimestamp(value: string, timezone: string): number {
  let parser = parsers.get(timezone);
  if (parser === undefined) {
    parser = createTimestampParser(timezone);
    parsers.set(timezone, parser);
  }
  return parser(value);
}

/**
 * Returns a parser bound to `timezone` (see {@link parseTimestamp}) with its own cache of zone
 * offsets. Throws `Error` at once if the zone name is unknown.
 */
export function createTimestampParser(timezone: string): TimestampParser {
  checkZone(timezone);
  // Local hour index → (naive seconds − epoch seconds), or NaN when the zone's offset
  // changes inside that local hour (then each value goes through Temporal).
  const hourShift = new Map<number, number>();

  function calendar(value: string): number {
    const p = parseDateTime(value);
    if (p === undefined || p.end !== value.length) {
      throw new Error(`expected epoch seconds or ${CALENDAR_SHAPE}, got '${value}'`);
    }
    const hour = Math.floor(p.naive / 3600);
    let shift = hourShift.get(hour);
    if (shift === undefined) {
      const first = zonedSeconds(p.y, p.mo, p.d, p.h, 0, 0, timezone);
      const last = zonedSeconds(p.y, p.mo, p.d, p.h, 59, 59, timezone);
      shift = last - first === 3599 ? hour * 3600 - first : NaN;
      hourShift.set(hour, shift);
    }
    if (!Number.isNaN(shift)) return p.naive - shift + p.frac;
    return zonedSeconds(p.y, p.mo, p.d, p.h, p.mi, p.s, timezone) + p.frac;
  }

  return (value: string): number => {
    const n = value.length;
    if (n === 0) throw new Error("expected a timestamp (epoch seconds or a date-time), got ''");
    if (isEpochShaped(value)) {
      const x = Number(value);
      if (!Number.isFinite(x)) throw new Error(`expected epoch seconds, got '${value}'`);
      if (Math.abs(x) > Number.MAX_SAFE_INTEGER) {
        throw new Error(`expected epoch seconds of at most 2^53 - 1, got '${value}'`);
      }
      return x + 0; // turns -0 into 0
    }
    for (let i = 11; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c === 43 /* + */ || c === 45 /* - */ || c === 90 /* Z */) return withOffset(value);
    }
    return calendar(value);
  };
}

function checkZone(timezone: string): void {
  try {
    new Temporal.PlainDateTime(2000, 1, 1).toZonedDateTime(timezone);
  } catch {
    throw new Error(
      `expected an IANA time zone name such as America/Los_Angeles, got '${timezone}'`,
    );
  }
}

function isEpochShaped(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 48 || c > 57) && c !== 45 && c !== 46) return false;
  }
  return true;
}

function zonedSeconds(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  timezone: string,
): number {
  const local = new Temporal.PlainDateTime(y, mo, d, h, mi, s);
  return local.toZonedDateTime(timezone, { disambiguation: "compatible" }).epochMilliseconds / 1000;
}

function withOffset(value: string): number {
  const p = parseDateTime(value);
  const bad = () => new Error(`expected ${CALENDAR_SHAPE} followed by Z or ±HH:MM, got '${value}'`);
  if (p === undefined) throw bad();
  let i = p.end;
  const c = value.charCodeAt(i);
  if ((c === 90 || c === 122) && i + 1 === value.length) return p.naive + p.frac;
  if (c !== 43 && c !== 45) throw bad();
  const sign = c === 43 ? 1 : -1;
  const oh = digits(value, i + 1, 2);
  i += 3;
  let om = 0;
  if (i < value.length) {
    if (value.charCodeAt(i) === 58 /* : */) i++;
    om = digits(value, i, 2);
    i += 2;
  }
  if (oh < 0 || oh > 23 || om < 0 || om > 59 || i !== value.length) throw bad();
  return p.naive - sign * (oh * 3600 + om * 60) + p.frac;
}

interface DateTimeParts {
  readonly y: number;
  readonly mo: number;
  readonly d: number;
  readonly h: number;
  readonly mi: number;
  readonly s: number;
  /** Fractional seconds in [0, 1). */
  readonly frac: number;
  /** The wall-clock time read as if it were UTC, in whole seconds. */
  readonly naive: number;
  /** Index just past the seconds (and fraction). */
  readonly end: number;
}

// `YYYY-MM-DD[T ]HH:MM:SS[.f+]` at the start of `v`; undefined if malformed or out of range.
function parseDateTime(v: string): DateTimeParts | undefined {
  if (v.length < 19) return undefined;
  const sep = v.charCodeAt(10);
  if (
    v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || (sep !== 84 && sep !== 32) ||
    v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58
  ) return undefined;
  const y = digits(v, 0, 4);
  const mo = digits(v, 5, 2);
  const d = digits(v, 8, 2);
  const h = digits(v, 11, 2);
  const mi = digits(v, 14, 2);
  const s = digits(v, 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return undefined;
  let end = 19;
  let frac = 0;
  if (v.charCodeAt(19) === 46 /* . */) {
    end = 20;
    while (end < v.length && isDigit(v.charCodeAt(end))) end++;
    if (end === 20) return undefined;
    frac = Number(v.slice(19, end));
  }
  const naive = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  return { y, mo, d, h, mi, s, frac, naive, end };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

// The number written by `len` digits at `at`, or -1 if any of them is not a digit.
function digits(v: string, at: number, len: number): number {
  if (at + len > v.length) return -1;
  let x = 0;
  for (let i = at; i < at + len; i++) {
    const c = v.charCodeAt(i);
    if (!isDigit(c)) return -1;
    x = x * 10 + (c - 48);
  }
  return x;
}

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm);
// Date.UTC would map years below 100 to the 1900s.
function daysFromCivil(y: number, mo: number, d: number): number {
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// Splitting one CSV line into fields: a fast path for lines without quotes
// that only copies out the columns a reader needs, and a quote-aware path
// (commas between double quotes do not split).

// Fills the read slots from a line without quotes; returns the fields seen,
// or `want + 1` when the line has more than `want` fields.
export function splitPlain(line: string, slotOf: Int8Array, want: number, vals: string[]): number {
  let start = 0;
  let f = 0;
  for (;;) {
    let end = line.indexOf(",", start);
    const last = end === -1;
    if (last) end = line.length;
    if (f < slotOf.length && slotOf[f] >= 0) vals[slotOf[f]] = trimPadded(line.slice(start, end));
    f++;
    if (last) return f;
    if (f >= want) return want + 1;
    start = end + 1;
  }
}

// As splitPlain (returning `fieldCount + 1` for a line with more fields), but commas between
// double quotes do not split, and a field that is wholly quoted loses its quotes ("" inside
// stands for one quote).
export function splitQuoted(
  line: string,
  slotOf: Int8Array,
  fieldCount: number,
  vals: string[],
  unclosed: (field: number) => Error,
): number {
  let start = 0;
  let f = 0;
  let quoted = false;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 44;
    if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) {
      if (f < slotOf.length && slotOf[f] >= 0) vals[slotOf[f]] = unquote(line.slice(start, i));
      f++;
      // A comma (not the end of the line) after the last expected field: more fields follow.
      if (f >= fieldCount && i < line.length) return fieldCount + 1;
      start = i + 1;
    }
  }
  if (quoted) throw unclosed(f);
  return f;
}

export function splitAll(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 44;
    if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) {
      out.push(unquote(line.slice(start, i)));
      start = i + 1;
    }
  }
  return out;
}

function unquote(raw: string): string {
  const s = trimPadded(raw);
  if (s.length >= 2 && s.charCodeAt(0) === 34 && s.charCodeAt(s.length - 1) === 34) {
    return s.slice(1, -1).replaceAll('""', '"');
  }
  return s;
}

export function isPad(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

export function trimPadded(s: string): string {
  const n = s.length;
  return n > 0 && (isPad(s.charCodeAt(0)) || isPad(s.charCodeAt(n - 1))) ? s.trim() : s;
}

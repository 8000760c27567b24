// How a value is shown in a message about a wrong argument (its own module so
// the input definitions, core/live_inputs.ts, and the checks can both use it).

/** A value as messages show it: `"100" (a string)`, `null`, `[object]`, `12`. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "number":
      return String(v);
    case "string":
      return `${JSON.stringify(v.length > 40 ? v.slice(0, 37) + "..." : v)} (a string)`;
    case "undefined":
      return "undefined";
    case "object":
      return Array.isArray(v) ? "an array" : "an object";
    default:
      return `a ${typeof v}`;
  }
}

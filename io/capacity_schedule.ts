// `--capacity_schedule FILE`: CSV `time,capacity`, the usable node count
// from each time on. Cuts never preempt running jobs.

import { EvtsimError } from "../core/errors.ts";
import type { CapacityChange } from "../core/types.ts";
import { parseTimestamp } from "./timestamps.ts";

/**
 * Parses a capacity schedule. Rows must be in non-decreasing time order.
 *
 * @example
 * ```ts
 * import { parseCapacitySchedule } from "./capacity_schedule.ts";
 * const s = parseCapacitySchedule("time,capacity\n0,100\n50,60\n", "cap.csv", "UTC");
 * console.assert(s[1].time === 50 && s[1].capacity === 60);
 * ```
 */
export function parseCapacitySchedule(
  text: string,
  file: string,
  timezone: string,
  totalNodes = Infinity,
): CapacityChange[] {
  const lines = text.split("\n");
  const header = lines[0]?.trim().split(",").map((h) => h.trim());
  if (header === undefined || header[0] !== "time" || header[1] !== "capacity") {
    throw new EvtsimError("input", "expected the header 'time,capacity'", { file, line: 1 });
  }
  const out: CapacityChange[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const fields = line.split(",").map((x) => x.trim());
    if (fields.length !== 2) {
      throw new EvtsimError("input", `expected 2 fields (time,capacity), got ${fields.length}`, {
        file,
        line: i + 1,
      });
    }
    const [t, c] = fields;
    if (t === "") {
      throw new EvtsimError("input", "expected a time, got an empty field", {
        file,
        line: i + 1,
        field: "time",
      });
    }
    let time: number;
    try {
      time = parseTimestamp(t, timezone);
    } catch (e) {
      throw new EvtsimError("input", (e as Error).message, { file, line: i + 1, field: "time" });
    }
    const capacity = Number(c);
    if (!/^\d{1,15}$/.test(c) || capacity > totalNodes) {
      const range = totalNodes === Infinity
        ? "a non-negative integer"
        : `an integer in 0..${totalNodes} (the machine size)`;
      throw new EvtsimError("input", `expected ${range}, got '${c}'`, {
        file,
        line: i + 1,
        field: "capacity",
      });
    }
    if (out.length > 0 && time < out[out.length - 1].time) {
      throw new EvtsimError("input", "times must be non-decreasing", {
        file,
        line: i + 1,
        field: "time",
      });
    }
    out.push({ time, capacity });
  }
  return out;
}

/** Reads and parses a capacity schedule file. */
export async function readCapacitySchedule(
  path: string,
  timezone: string,
  totalNodes = Infinity,
): Promise<CapacityChange[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseCapacitySchedule(text, path, timezone, totalNodes);
}

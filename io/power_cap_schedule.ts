// `--power_cap_schedule FILE`: CSV `time,watts`, the power cap from each
// time on (docs/power.md). Read strictly: the header, two fields a line,
// a time (seconds or a calendar time), a non-negative number of watts, and
// times in non-decreasing order; anything else is one line naming the file,
// the line and the field.

import { EvtsimError } from "../core/errors.ts";
import type { PowerCapChange } from "../core/types.ts";
import { parseTimestamp } from "./timestamps.ts";

// A plain decimal number (no sign, no exponent, no hex): watts as people write them.
const WATTS = /^\d{1,15}(\.\d{1,15})?$/;

/**
 * Parses a power cap schedule.
 *
 * @example
 * ```ts
 * import { parsePowerCapSchedule } from "./power_cap_schedule.ts";
 * const s = parsePowerCapSchedule("time,watts\n0,1000\n3600,1500.5\n", "cap.csv", "UTC");
 * console.assert(s.length === 2 && s[1].time === 3600 && s[1].watts === 1500.5);
 * ```
 */
export function parsePowerCapSchedule(
  text: string,
  file: string,
  timezone: string,
): PowerCapChange[] {
  const lines = text.split("\n");
  const header = lines[0]?.trim().split(",").map((h) => h.trim());
  if (
    header === undefined || header.length !== 2 || header[0] !== "time" || header[1] !== "watts"
  ) {
    throw new EvtsimError("input", "expected the header 'time,watts'", { file, line: 1 });
  }
  const out: PowerCapChange[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const at = { file, line: i + 1 };
    const fields = line.split(",").map((x) => x.trim());
    if (fields.length !== 2) {
      throw new EvtsimError("input", `expected 2 fields (time,watts), got ${fields.length}`, at);
    }
    const [t, w] = fields;
    if (t === "") {
      throw new EvtsimError("input", "expected a time, got an empty field", {
        ...at,
        field: "time",
      });
    }
    let time: number;
    try {
      time = parseTimestamp(t, timezone);
    } catch (e) {
      throw new EvtsimError("input", (e as Error).message, { ...at, field: "time" });
    }
    if (!WATTS.test(w)) {
      throw new EvtsimError("input", `expected a non-negative number of watts, got '${w}'`, {
        ...at,
        field: "watts",
      });
    }
    if (out.length > 0 && time < out[out.length - 1].time) {
      throw new EvtsimError("input", "times must be non-decreasing", { ...at, field: "time" });
    }
    out.push({ time, watts: Number(w) });
  }
  return out;
}

/** Reads and parses a power cap schedule file. */
export async function readPowerCapSchedule(
  path: string,
  timezone: string,
): Promise<PowerCapChange[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parsePowerCapSchedule(text, path, timezone);
}

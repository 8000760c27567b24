// What the inputs and configuration steps of a simulate run
// (cli/_simulate_run.ts) check and read besides the trace: an external
// command, the --queues file, the first trace's kind, the start time, and
// the parameters --verbose prints.

import { EvtsimError } from "../core/errors.ts";
import type { SimulationConfig } from "../core/types.ts";
import { lookupPicker, type PolicyRegistry } from "../core/policies.ts";
import { parseTimestamp } from "../io/timestamps.ts";
import type { LoadedInput } from "./load.ts";
import type { ParsedOptions } from "./options.ts";
import type { ExternalCommand } from "./_external_command.ts";
import type { Console } from "./_console.ts";
import { str } from "./_simulate_steps.ts";
import type { Sources } from "./_simulate_options.ts";

// --admission external: a command of the user's decides every round.
export async function externalOf(
  o: ParsedOptions,
  admission: string,
  registry: PolicyRegistry,
  totalNodes: () => number | undefined,
): Promise<ExternalCommand | undefined> {
  if (admission !== "external" && !o.has("external_command")) return undefined;
  const command = str(o, "external_command");
  if (command === undefined || admission !== "external") {
    throw new EvtsimError(
      "usage",
      "--admission external and --external_command CMD go together: the command decides every round",
    );
  }
  // Loaded only here: the protocol's schemas (zod) are no cost to other runs.
  const { externalCommand } = await import("./_external_command.ts");
  return externalCommand(command, registry, totalNodes);
}

// What the first trace allows (a replay trace: neither --machine nor an
// --infile_list); its reader's messages go out between the two checks.
export function checkFirstInput(
  first: LoadedInput,
  machine: boolean,
  sources: Sources,
  con: Console,
): void {
  if (machine && first.mode === "replay") {
    throw new EvtsimError(
      "usage",
      "is a replay trace (begin_time and end_time columns); --machine takes simulation traces only",
      { file: sources.paths[0] },
    );
  }
  for (const m of first.messages) con.err(m);
  if (first.mode === "replay" && sources.paths.length > 1) {
    throw new EvtsimError(
      "usage",
      "is a replay trace (begin_time and end_time columns); --infile_list takes simulation " +
        "traces only",
      { file: sources.paths[0] },
    );
  }
}

// The --queues file, with every per-queue picker checked against the registry
// so that an unknown one is reported at its line.
export async function queuesOf(o: ParsedOptions, registry: PolicyRegistry) {
  const path = str(o, "queues");
  if (path === undefined) return undefined;
  // The YAML and schema libraries are loaded only for a queues file.
  const { readQueuesFile } = await import("../io/queues_file.ts");
  const file = await readQueuesFile(path);
  const entries = file.queues;
  entries.forEach(({ queue, fieldLines }, i) => {
    if (queue.picker === undefined) return;
    try {
      lookupPicker(registry, queue.picker);
    } catch (e) {
      throw new EvtsimError(
        "input",
        `queue ${i} (${queue.name}): picker: ${(e as Error).message}`,
        { file: path, line: fieldLines.picker },
      );
    }
  });
  return {
    queues: entries.length === 0 ? undefined : entries.map((e) => e.queue),
    fairshare: file.fairshare,
    path,
    entries,
  };
}

export function startTimeOf(
  o: ParsedOptions,
  timezone: string,
  mode: "simulation" | "replay",
): number {
  const raw = str(o, "sim_start_time");
  if (raw === undefined) return 0;
  let t: number;
  try {
    t = parseTimestamp(raw.trim(), timezone);
  } catch (e) {
    throw new EvtsimError("usage", `--sim_start_time: ${(e as Error).message}`);
  }
  if (t > 0 && mode !== "replay") {
    throw new EvtsimError(
      "usage",
      "--sim_start_time (warm start) needs replay input (begin_time and end_time columns)",
    );
  }
  return t;
}

export function printParams(con: Console, c: SimulationConfig, paths: string[]): void {
  con.out("------ Sim params ------");
  con.out(` - input: ${paths.join(", ")}`);
  for (const [k, v] of Object.entries(c)) {
    if (v !== undefined && k !== "capacitySchedule" && k !== "resourceModel") {
      con.out(` - ${k}: ${v}`);
    }
  }
}

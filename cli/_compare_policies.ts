// compare's --policies (and a sweep spec's policies:) read against the
// policy registry: its own module, so that reading a sweep spec does not
// load compare's whole command (the simulate path, reports) with it.

import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { didYouMean } from "./_suggest.ts";

/** A policy: its name as given, the admission policy and the picker (if any). */
export interface Policy {
  readonly name: string;
  readonly admission: string;
  readonly picker?: string;
}

/**
 * Parses `--policies` against the registry, and `extra` admission names a
 * run resolves itself (`external`, with compare's --external_command); one
 * usage error naming a bad name.
 */
export function parsePolicies(
  list: string | undefined,
  registry: PolicyRegistry,
  picker?: string,
  extra: readonly string[] = [],
): Policy[] {
  const admissions = [...registry.admissions.keys(), ...extra];
  const pickers = [...registry.pickers.keys()];
  const names = list === undefined
    ? admissions.map((a) => picker === undefined ? a : `${picker}+${a}`)
    : list.split(",").map((s) => s.trim());
  if (names.length === 0 || names.some((n) => n === "")) {
    throw new EvtsimError("usage", `--policies: empty policy name in '${list}'`);
  }
  const seen = new Set<string>();
  return names.map((name) => {
    const parts = name.split("+");
    if (parts.length > 2) {
      throw new EvtsimError(
        "usage",
        `--policies: '${name}': expected ADMISSION or PICKER+ADMISSION`,
      );
    }
    const [p, a] = parts.length === 2 ? parts : [picker, parts[0]];
    if (!admissions.includes(a)) {
      throw new EvtsimError(
        "usage",
        `--policies: unknown admission policy '${a}' in '${name}' (registered: ${
          admissions.join(", ")
        })${didYouMean(a, admissions)}`,
      );
    }
    if (p !== undefined && !registry.pickers.has(p)) {
      throw new EvtsimError(
        "usage",
        `--policies: unknown picker '${p}' in '${name}' (registered: ${pickers.join(", ")})${
          didYouMean(p, pickers)
        }`,
      );
    }
    if (seen.has(name)) throw new EvtsimError("usage", `--policies: '${name}' given twice`);
    seen.add(name);
    return { name, admission: a, ...(p !== undefined ? { picker: p } : {}) };
  });
}

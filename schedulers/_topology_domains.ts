// A topology cluster's domains (schedulers/topology_cluster.ts): the nodes
// grouped by their value of a topology key, in name order.

import { compareNames } from "./_name_order.ts";
import type { Domain } from "./_topology_pack.ts";

/**
 * The domains of `key` over the nodes `names` with `labels` (undefined: the
 * one `global` domain), in name order.
 */
export function domainsOf(
  names: readonly string[],
  labels: readonly (Readonly<Record<string, string>> | undefined)[],
  key: string | undefined,
): Domain[] {
  if (key === undefined) {
    return [{ name: "global", nodes: Int32Array.from(names.keys()) }];
  }
  const by = new Map<string, number[]>();
  labels.forEach((nodeLabels, i) => {
    const value = nodeLabels?.[key] ?? "";
    const list = by.get(value);
    if (list === undefined) by.set(value, [i]);
    else list.push(i);
  });
  return [...by.keys()].sort(compareNames).map((name) => ({
    name,
    nodes: Int32Array.from(by.get(name)!),
  }));
}

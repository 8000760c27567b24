// The report's breakdown tables (per user, account, queue and job-size class)
// and its fairness table: the figures `--stats_json` gives under `breakdowns`
// and `fairness` (core/_metrics_breakdowns.ts), one row per run and group.

import type { Breakdowns, Fairness } from "../core/metrics.ts";
import { FAIRNESS_NAMES } from "../core/metrics.ts";
import { formatG } from "./report.ts";

/** A run's breakdowns as the report shows them. */
export interface RunBreakdowns {
  readonly label: string;
  readonly breakdowns: Breakdowns;
  readonly fairness: Fairness;
}

const TITLES: Readonly<Record<keyof Breakdowns, string>> = {
  user: "By user",
  account: "By account",
  queue: "By queue",
  size: "By job size (nodes)",
};

/** The columns of a breakdown table after run and key, named as in the metrics glossary. */
export const BREAKDOWN_COLUMNS = ["jobs", "wait_mean_s", "wait_p95_s", "bsld_mean"] as const;

function esc(s: string): string {
  return s.replace(
    /[&<>"]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!,
  );
}

/**
 * The HTML of the fairness table and one table per breakdown that some run
 * has (`id="breakdown-user"` ...); a job without the label is the row `(none)`.
 */
export function breakdownTables(runs: readonly RunBreakdowns[]): string[] {
  const cell = (v: string | number | null) =>
    `<td>${v === null ? "-" : typeof v === "number" ? formatG(v) : esc(v)}</td>`;
  const out = [
    "<h2>Fairness</h2>",
    '<table id="fairness"><thead><tr><th class="l">run</th>' +
    FAIRNESS_NAMES.map((k) => `<th>${k}</th>`).join("") + "</tr></thead><tbody>",
    ...runs.map((r) =>
      `<tr class="b"><td class="l">${esc(r.label)}</td>${
        FAIRNESS_NAMES.map((k) => cell(r.fairness[k])).join("")
      }</tr>`
    ),
    "</tbody></table>",
  ];
  for (const kind of ["user", "account", "queue", "size"] as const) {
    if (runs.every((r) => r.breakdowns[kind].length === 0)) continue;
    out.push(
      `<h2>${TITLES[kind]}</h2>`,
      `<table id="breakdown-${kind}"><thead><tr><th class="l">run</th><th class="l">${kind}</th>` +
        BREAKDOWN_COLUMNS.map((k) => `<th>${k}</th>`).join("") + "</tr></thead><tbody>",
    );
    for (const r of runs) {
      for (const g of r.breakdowns[kind]) {
        out.push(
          `<tr class="b"><td class="l">${esc(r.label)}</td><td class="l">${
            esc(g.key ?? "(none)")
          }</td>${
            BREAKDOWN_COLUMNS.map((k) => k === "jobs" ? `<td>${g.jobs}</td>` : cell(g[k])).join("")
          }</tr>`,
        );
      }
    }
    out.push("</tbody></table>");
  }
  return out;
}

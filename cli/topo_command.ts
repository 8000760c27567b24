// `evtsim topo schedule|compare|simulate`: TopoQueue's command line (seed
// 004) on evtsim's engine. Flags are read as Go's `flag` package reads them
// (`-flag value`, `--flag=value`, the last one given wins, parsing stops at
// the first argument that is not a flag); messages are TopoQueue's, after
// evtsim's `evtsim: ` prefix. Loaded only when the `topo` command runs.

import { EvtsimError } from "../core/errors.ts";
import { scheduleTopology, type TopoPolicy } from "../api/topology.ts";
import { simulateTopology } from "../api/topology_simulation.ts";
import {
  checkTopologyRequirements,
  parseTopoCluster,
  parseTopoJobs,
  parseTopoTimedJobs,
  readTopoFile,
} from "../io/topo_inputs.ts";
import {
  comparisonText,
  policyText,
  simulationComparisonText,
  simulationText,
  topoJson,
} from "../io/topo_output.ts";
import type { Console } from "./simulate.ts";

/** `evtsim topo`'s usage. */
export const TOPO_USAGE: string = [
  "usage: evtsim topo <schedule|compare|simulate> [flags]",
  "",
  "Topology-aware multi-resource admission as TopoQueue does it, on evtsim's engine:",
  "jobs of identical replicas (cpu, gpu) placed in one topology domain, strict FIFO or",
  "backfill, with the reason each waiting job waits.",
  "",
  "commands:",
  "  schedule   one admission cycle of one policy over the jobs, in order",
  "  compare    both policies, each on its own copy of the empty cluster",
  "  simulate   timed jobs (arrivalTick, durationTicks) through the event loop",
  "",
  "Run 'evtsim topo <command> -h' for command flags.",
  "",
  "example:",
  "  evtsim topo compare --cluster examples/topo/cluster.yaml --jobs examples/topo/jobs.yaml",
].join("\n");

type Command = "schedule" | "compare" | "simulate";

const POLICIES: readonly TopoPolicy[] = ["strict-fifo", "backfill"];

function commandHelp(cmd: Command): string {
  const jobs = cmd === "simulate" ? "timed jobs" : "jobs";
  const lines = [
    `usage: evtsim topo ${cmd} --cluster FILE --jobs FILE${
      cmd === "compare"
        ? ""
        : ` [--policy ${cmd === "simulate" ? "strict-fifo|backfill|all" : "strict-fifo|backfill"}]`
    } [--output text|json]`,
    "  --cluster FILE   path to the cluster YAML file (required)",
    `  --jobs FILE      path to the ${jobs} YAML file (required)`,
  ];
  if (cmd === "schedule") {
    lines.push("  --policy NAME    queue policy: strict-fifo or backfill (default strict-fifo)");
  }
  if (cmd === "simulate") {
    lines.push(
      "  --policy NAME    queue policy: strict-fifo, backfill, or all (default strict-fifo)",
    );
  }
  lines.push("  --output FORMAT  output format: text or json (default text)");
  return lines.join("\n");
}

interface Flags {
  cluster: string;
  jobs: string;
  policy: string;
  output: string;
}

/** Go `flag` parsing; undefined when help was asked for (and printed). */
function parseFlags(cmd: Command, args: readonly string[], con: Console): Flags | undefined {
  const known = cmd === "compare"
    ? ["cluster", "jobs", "output"]
    : ["cluster", "jobs", "policy", "output"];
  const flags: Flags = { cluster: "", jobs: "", policy: "strict-fifo", output: "text" };
  const fail = (m: string) => new EvtsimError("usage", `topo ${cmd}: ${m}`);
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const body = a.startsWith("--") ? a.slice(2) : a.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      throw fail(`bad flag syntax: ${a}`);
    }
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === "h" || name === "help") {
      con.out(commandHelp(cmd));
      return undefined;
    }
    if (!known.includes(name)) throw fail(`flag provided but not defined: -${name}`);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (i + 1 < args.length) value = args[++i];
    else throw fail(`flag needs an argument: -${name}`);
    flags[name as keyof Flags] = value;
  }
  const rest = args.slice(i);
  if (rest.length > 0) throw fail(`unexpected positional arguments: [${rest.join(" ")}]`);
  if (flags.cluster === "") throw fail("--cluster is required");
  if (flags.jobs === "") throw fail("--jobs is required");
  if (cmd !== "compare") {
    const ok = POLICIES.includes(flags.policy as TopoPolicy) ||
      (cmd === "simulate" && flags.policy === "all");
    if (!ok) {
      throw fail(
        `unsupported policy "${flags.policy}" (supported: strict-fifo, backfill${
          cmd === "simulate" ? ", all" : ""
        })`,
      );
    }
  }
  if (flags.output !== "text" && flags.output !== "json") {
    throw fail(`unsupported output "${flags.output}" (supported: text, json)`);
  }
  return flags;
}

function print(con: Console, flags: Flags, lines: () => string[], json: () => string): void {
  if (flags.output === "json") con.out(json().replace(/\n$/, ""));
  else con.out(lines().join("\n"));
}

/**
 * Runs `evtsim topo ARGS`; returns the exit code. Usage and input errors
 * are thrown as `EvtsimError`s for `main` to print.
 */
export async function topoCommand(args: readonly string[], con: Console): Promise<number> {
  const [cmd, ...rest] = args;
  switch (cmd) {
    case undefined:
      con.err(TOPO_USAGE);
      throw new EvtsimError("usage", "topo: a command is required");
    case "help":
    case "-h":
    case "--help":
      con.out(TOPO_USAGE);
      return 0;
    case "schedule":
    case "compare":
    case "simulate":
      break;
    default:
      con.err(TOPO_USAGE);
      throw new EvtsimError("usage", `topo: unknown command "${cmd}"`);
  }
  const flags = parseFlags(cmd, rest, con);
  if (flags === undefined) return 0;
  const cluster = parseTopoCluster(await readTopoFile(flags.cluster, "cluster"), flags.cluster);
  if (cmd === "simulate") {
    const jobs = parseTopoTimedJobs(await readTopoFile(flags.jobs, "timed jobs"), flags.jobs);
    checkTopologyRequirements(cluster, jobs, flags.cluster, flags.jobs, "timed jobs");
    if (flags.policy === "all") {
      const results = POLICIES.map((p) => simulateTopology(cluster, jobs, p));
      print(con, flags, () => simulationComparisonText(results), () => topoJson(results));
    } else {
      const r = simulateTopology(cluster, jobs, flags.policy as TopoPolicy);
      print(con, flags, () => simulationText(r), () => topoJson(r));
    }
    return 0;
  }
  const jobs = parseTopoJobs(await readTopoFile(flags.jobs, "jobs"), flags.jobs);
  checkTopologyRequirements(cluster, jobs, flags.cluster, flags.jobs, "jobs");
  if (cmd === "compare") {
    // Each policy from its own initial state: states are immutable, nothing is shared.
    const results = POLICIES.map((p) => scheduleTopology(cluster, jobs, p));
    print(con, flags, () => comparisonText(results), () => topoJson(results));
  } else {
    const r = scheduleTopology(cluster, jobs, flags.policy as TopoPolicy);
    print(con, flags, () => policyText(r), () => topoJson(r));
  }
  return 0;
}

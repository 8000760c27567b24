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
import { parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";

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

// A command's flags, as rows of the option schema (TopoQueue's help texts).
function flagsOf(cmd: Command): OptionSpec[] {
  const jobs = cmd === "simulate" ? "timed jobs" : "jobs";
  const policies = cmd === "simulate" ? "strict-fifo, backfill, or all" : "strict-fifo or backfill";
  return [
    {
      name: "cluster",
      kind: "string",
      placeholder: "FILE",
      help: "path to the cluster YAML file (required)",
    },
    {
      name: "jobs",
      kind: "string",
      placeholder: "FILE",
      help: `path to the ${jobs} YAML file (required)`,
    },
    ...(cmd === "compare" ? [] : [
      {
        name: "policy",
        kind: "string",
        placeholder: "NAME",
        default: "strict-fifo",
        help: `queue policy: ${policies} (default strict-fifo)`,
      } as const,
    ]),
    {
      name: "output",
      kind: "string",
      placeholder: "FORMAT",
      default: "text",
      help: "output format: text or json (default text)",
    },
    { name: "help", short: "h", kind: "flag", help: "show this help" },
  ];
}

function commandHelp(cmd: Command): string {
  const lines = [
    `usage: evtsim topo ${cmd} --cluster FILE --jobs FILE${
      cmd === "compare"
        ? ""
        : ` [--policy ${cmd === "simulate" ? "strict-fifo|backfill|all" : "strict-fifo|backfill"}]`
    } [--output text|json]`,
  ];
  for (const f of flagsOf(cmd)) {
    if (f.name !== "help") lines.push(`  --${f.name} ${f.placeholder}`.padEnd(19) + f.help);
  }
  return lines.join("\n");
}

interface Flags {
  cluster: string;
  jobs: string;
  policy: string;
  output: string;
}

/** Go `flag` parsing (cli/option_parser.ts); undefined when help was asked for (and printed). */
function parseFlags(cmd: Command, args: readonly string[], con: Console): Flags | undefined {
  const p = parseOptions(args, flagsOf(cmd), { command: `topo ${cmd}`, dialect: "go" });
  if (p.options.get("help") === true) {
    con.out(commandHelp(cmd));
    return undefined;
  }
  const fail = (m: string) => new EvtsimError("usage", `topo ${cmd}: ${m}`);
  if (p.positional.length > 0) {
    throw fail(`unexpected positional arguments: [${p.positional.join(" ")}]`);
  }
  const flags: Flags = {
    cluster: String(p.value("cluster") ?? ""),
    jobs: String(p.value("jobs") ?? ""),
    policy: String(p.value("policy") ?? "strict-fifo"),
    output: String(p.value("output")),
  };
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

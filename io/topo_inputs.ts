// TopoQueue's input files, decoded strictly and checked with TopoQueue's
// rules and messages (docs/machines.md, "Topology-aware admission"):
//
// - cluster: `nodes: [{name, topology: {key: value}, capacity: {cpu, gpu}}]`;
// - jobs: `jobs: [{name, replicas, resourcesPerReplica: {cpu, gpu}, requiredTopology?}]`;
// - timed jobs: the job fields plus `arrivalTick` and `durationTicks` (required).
//
// Decoding is a zod schema over the YAML document: unknown fields, wrong
// types and integers outside int64 are refused with Go's yaml wording and
// the line; a field left out or null takes Go's zero value. An empty file,
// a second document and a missing list are refused as TopoQueue refuses
// them. The validation rules (names, counts, totals, timing, topology keys)
// are a second schema, in TopoQueue's order, first error wins. Every message
// is TopoQueue's; evtsim adds one limit of its own after them: numbers
// above 2^53 − 1 (which a float64 cannot hold exactly).

import { isMap, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import { z } from "zod";
import { EvtsimError } from "../core/errors.ts";
import type { TopoCluster, TopoJob, TopoTimedJob } from "../schedulers/topology_types.ts";
import { compareNames } from "../schedulers/topology_cluster.ts";
import { goQuote } from "../schedulers/topology_reasons.ts";
import { parseYaml, yamlValue } from "./_yaml.ts";

/** The three kinds of file, as TopoQueue names them in messages. */
export type TopoFileKind = "cluster" | "jobs" | "timed jobs";

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);
const EXACT = 2n ** 53n - 1n;

// Go's zero values: a field left out or null is 0, "" or empty.
const int64 = z.preprocess(
  (v) => (v === null || v === undefined ? 0n : v),
  z.bigint().min(I64_MIN).max(I64_MAX),
);
const optionalInt64 = z.preprocess(
  (v) => (v === null ? undefined : v),
  z.bigint().min(I64_MIN).max(I64_MAX).optional(),
);
// yaml.v3 decodes any scalar into a string field.
const str = z.preprocess(
  (v) =>
    v === null || v === undefined
      ? ""
      : typeof v === "bigint" || typeof v === "number" || typeof v === "boolean"
      ? String(v)
      : v,
  z.string(),
);
const resources = z.preprocess(
  (v) => (v === null || v === undefined ? {} : v),
  z.strictObject({ cpu: int64, gpu: int64 }),
);
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === null ? undefined : v), z.array(item).optional());
const top = <T extends z.ZodType>(shape: T) =>
  z.preprocess((v) => (v === null || v === undefined ? {} : v), shape);

const NODE = z.strictObject({
  name: str,
  topology: z.preprocess((v) => (v === null ? undefined : v), z.record(z.string(), str).optional()),
  capacity: resources,
});
const JOB_FIELDS = {
  name: str,
  replicas: int64,
  resourcesPerReplica: resources,
  requiredTopology: str,
};
const JOB = z.strictObject(JOB_FIELDS);
const TIMED_JOB = z.strictObject({
  ...JOB_FIELDS,
  arrivalTick: optionalInt64,
  durationTicks: optionalInt64,
});

/** The decoding schemas (types, unknown fields, int64 range) of the three files. */
const DECODE = {
  cluster: top(z.strictObject({ nodes: list(NODE) })),
  jobs: top(z.strictObject({ jobs: list(JOB) })),
  "timed jobs": top(z.strictObject({ jobs: list(TIMED_JOB) })),
};

type Node64 = z.infer<typeof NODE>;
type Job64 = z.infer<typeof TIMED_JOB>;

// ---- TopoQueue's validation rules, as schemas: first error wins --------

const q = goQuote;
const first = (ctx: z.RefinementCtx, message: string) => ctx.addIssue({ code: "custom", message });

const CLUSTER_RULES = z.array(z.custom<Node64>()).superRefine((nodes, ctx) => {
  const seen = new Map<string, number>();
  let cpu = 0n;
  let gpu = 0n;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (n.name === "") return first(ctx, `node at index ${i}: name must not be empty`);
    const j = seen.get(n.name);
    if (j !== undefined) {
      return first(
        ctx,
        `node ${q(n.name)} at index ${i}: duplicate name (first used at index ${j})`,
      );
    }
    seen.set(n.name, i);
    for (const r of ["cpu", "gpu"] as const) {
      if (n.capacity[r] < 0n) {
        return first(
          ctx,
          `node ${q(n.name)}: capacity.${r} must be non-negative, got ${n.capacity[r]}`,
        );
      }
    }
    if (cpu > I64_MAX - n.capacity.cpu) {
      return first(ctx, `node ${q(n.name)}: cluster total capacity.cpu exceeds ${I64_MAX}`);
    }
    if (gpu > I64_MAX - n.capacity.gpu) {
      return first(ctx, `node ${q(n.name)}: cluster total capacity.gpu exceeds ${I64_MAX}`);
    }
    cpu += n.capacity.cpu;
    gpu += n.capacity.gpu;
  }
  // evtsim's own limit, after all of TopoQueue's: totals a float64 holds exactly.
  cpu = 0n;
  gpu = 0n;
  for (const n of nodes) {
    cpu += n.capacity.cpu;
    gpu += n.capacity.gpu;
    if (cpu > EXACT || gpu > EXACT) {
      return first(
        ctx,
        `node ${q(n.name)}: cluster total capacity.${
          cpu > EXACT ? "cpu" : "gpu"
        } exceeds ${EXACT} (2^53 - 1, the largest integer evtsim holds exactly)`,
      );
    }
  }
});

function jobRules(jobs: readonly Job64[], ctx: z.RefinementCtx): boolean {
  const seen = new Map<string, number>();
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i];
    const bad = (m: string) => (first(ctx, m), false);
    if (j.name === "") return bad(`job at index ${i}: name must not be empty`);
    const k = seen.get(j.name);
    if (k !== undefined) {
      return bad(`job ${q(j.name)} at index ${i}: duplicate name (first used at index ${k})`);
    }
    seen.set(j.name, i);
    const name = q(j.name);
    if (j.replicas <= 0n) {
      return bad(`job ${name}: replicas must be greater than zero, got ${j.replicas}`);
    }
    const per = j.resourcesPerReplica;
    for (const r of ["cpu", "gpu"] as const) {
      if (per[r] < 0n) {
        return bad(`job ${name}: resourcesPerReplica.${r} must be non-negative, got ${per[r]}`);
      }
    }
    if (per.cpu === 0n && per.gpu === 0n) {
      return bad(`job ${name}: at least one resource per replica must be positive`);
    }
    for (const r of ["cpu", "gpu"] as const) {
      if (per[r] > 0n && j.replicas > I64_MAX / per[r]) {
        return bad(`job ${name}: total requested ${r.toUpperCase()} exceeds ${I64_MAX}`);
      }
    }
  }
  return true;
}

// evtsim's own limit, checked after all of TopoQueue's rules: totals a float64 holds exactly.
function exactJobRules(jobs: readonly Job64[], ctx: z.RefinementCtx): boolean {
  for (const j of jobs) {
    for (const r of ["cpu", "gpu"] as const) {
      if (j.replicas * j.resourcesPerReplica[r] > EXACT) {
        first(
          ctx,
          `job ${
            q(j.name)
          }: total requested ${r.toUpperCase()} exceeds ${EXACT} (2^53 - 1, the largest integer evtsim holds exactly)`,
        );
        return false;
      }
    }
  }
  return true;
}

const JOB_RULES = z.array(z.custom<Job64>()).superRefine((jobs, ctx) =>
  void (jobRules(jobs, ctx) && exactJobRules(jobs, ctx))
);

const TIMED_RULES = z.array(z.custom<Job64>()).superRefine((jobs, ctx) => {
  if (!jobRules(jobs, ctx)) return;
  for (const j of jobs) {
    const a = j.arrivalTick!;
    const d = j.durationTicks!;
    if (a < 0n) return first(ctx, `job ${q(j.name)}: arrivalTick must be non-negative, got ${a}`);
    if (d <= 0n) {
      return first(ctx, `job ${q(j.name)}: durationTicks must be greater than zero, got ${d}`);
    }
  }
  for (const j of jobs) {
    for (
      const [field, v] of [["arrivalTick", j.arrivalTick!], [
        "durationTicks",
        j.durationTicks!,
      ]] as const
    ) {
      if (v > EXACT) {
        return first(
          ctx,
          `job ${
            q(j.name)
          }: ${field} exceeds ${EXACT} (2^53 - 1, the largest integer evtsim holds exactly)`,
        );
      }
    }
  }
});

/** Every node must have every key some job requires, with a value (keys in sorted order). */
const TOPOLOGY_RULES = z.custom<
  { nodes: readonly TopoCluster["nodes"][number][]; jobs: readonly TopoJob[] }
>()
  .superRefine(({ nodes, jobs }, ctx) => {
    const requiredBy = new Map<string, string>();
    for (const j of jobs) {
      const key = j.requiredTopology ?? "";
      if (key !== "" && !requiredBy.has(key)) requiredBy.set(key, j.name);
    }
    const keys = [...requiredBy.keys()].sort(compareNames);
    for (const n of nodes) {
      for (const key of keys) {
        const value = n.topology?.[key];
        const job = q(requiredBy.get(key)!);
        if (value === undefined) {
          return first(
            ctx,
            `node ${q(n.name)}: missing topology key ${q(key)} required by job ${job}`,
          );
        }
        if (value === "") {
          return first(
            ctx,
            `node ${q(n.name)}: topology key ${
              q(key)
            } required by job ${job} must have a non-empty value`,
          );
        }
      }
    }
  });

// ---- decoding ------------------------------------------------------------

/** Go's name for the type at `path` of a file of `kind`, as yaml errors print it. */
function goType(kind: TopoFileKind, path: readonly PropertyKey[]): string {
  const job = kind === "timed jobs" ? "model.timedJobInput" : "model.Job";
  const root = kind === "cluster"
    ? "model.Cluster"
    : kind === "jobs"
    ? "model.JobSet"
    : "model.timedJobDocument";
  if (path.length === 0) return root;
  if (path.length === 1) return kind === "cluster" ? "[]model.Node" : `[]${job}`;
  if (path.length === 2) return kind === "cluster" ? "model.Node" : job;
  const field = String(path[2]);
  if (path.length === 3) {
    switch (field) {
      case "topology":
        return "map[string]string";
      case "capacity":
      case "resourcesPerReplica":
        return "model.Resources";
      case "replicas":
        return "int";
      case "arrivalTick":
      case "durationTicks":
        return "int64";
      default:
        return "string";
    }
  }
  return field === "topology" ? "string" : "int64";
}

function fail(
  kind: TopoFileKind,
  path: string,
  stage: "decode" | "validate",
  message: string,
): EvtsimError {
  return new EvtsimError("input", `${stage} ${kind} file ${q(path)}: ${message}`);
}

/** Decodes and validates one file's text; `path` names it in messages. */
function decode(text: string, path: string, kind: TopoFileKind): Record<string, unknown> {
  // The yaml package's own failures, said as the other decode errors are.
  const yamlFail = (line: number | undefined, detail: string): never => {
    throw fail(
      kind,
      path,
      "decode",
      `yaml: ${line === undefined ? "" : `line ${line}: `}${detail}`,
    );
  };
  const { docs, lines } = parseYaml(text, yamlFail, { intAsBigInt: true, uniqueKeys: true });
  if (docs.length === 0) throw fail(kind, path, "decode", "file is empty");
  const doc = docs[0];
  const syntax = (err: { message: string; pos: [number, number] }, after: string) => {
    const m = err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    return fail(kind, path, "decode", `${after}yaml: line ${lines.linePos(err.pos[0]).line}: ${m}`);
  };
  if (doc.errors.length > 0) throw syntax(doc.errors[0], "");
  const raw = yamlValue(doc, lines, yamlFail);
  const parsed = DECODE[kind].safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => located(issue, doc.contents, lines, kind));
    issues.sort((a, b) => a.line - b.line);
    throw fail(
      kind,
      path,
      "decode",
      `yaml: unmarshal errors: line ${issues[0].line}: ${issues[0].text}`,
    );
  }
  if (docs.length > 1) {
    if (docs[1].errors.length > 0) throw syntax(docs[1].errors[0], "after first document: ");
    throw fail(kind, path, "decode", "multiple YAML documents are not supported");
  }
  return parsed.data as Record<string, unknown>;
}

/** A zod issue as Go's yaml says it, with the line of the node at fault. */
function located(
  issue: z.core.$ZodIssue,
  root: unknown,
  lines: LineCounter,
  kind: TopoFileKind,
): { line: number; text: string } {
  let node = root as Node | null;
  let keyNode: Node | undefined;
  for (const key of issue.path) {
    if (isMap(node)) {
      const pair = node.items.find((p) =>
        String((p.key as { value?: unknown })?.value) === String(key)
      );
      keyNode = pair?.key as Node | undefined;
      node = (pair?.value ?? null) as Node | null;
    } else if (isSeq(node)) node = (node.items[key as number] ?? null) as Node | null;
  }
  const lineOf = (n: Node | null | undefined) =>
    n?.range
      ? lines.linePos(n.range[0]).line
      : keyNode?.range
      ? lines.linePos(keyNode.range[0]).line
      : 1;
  if (issue.code === "unrecognized_keys") {
    const pair = isMap(node)
      ? node.items.find((p) => String((p.key as { value?: unknown })?.value) === issue.keys[0])
      : undefined;
    return {
      line: lineOf(pair?.key as Node | undefined),
      text: `field ${issue.keys[0]} not found in type ${goType(kind, issue.path)}`,
    };
  }
  const into = goType(kind, issue.path);
  if (isMap(node)) return { line: lineOf(node), text: `cannot unmarshal !!map into ${into}` };
  if (isSeq(node)) return { line: lineOf(node), text: `cannot unmarshal !!seq into ${into}` };
  const value = isScalar(node) ? node.value : undefined;
  const tag = typeof value === "bigint"
    ? "!!int"
    : typeof value === "number"
    ? "!!float"
    : typeof value === "boolean"
    ? "!!bool"
    : "!!str";
  const source = isScalar(node) ? (node.source ?? String(value)) : String(value);
  return { line: lineOf(node), text: `cannot unmarshal ${tag} \`${source}\` into ${into}` };
}

const toNum = (v: bigint) => Number(v);

function checked<T>(schema: z.ZodType, value: unknown, kind: TopoFileKind, path: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw fail(kind, path, "validate", r.error.issues[0].message);
  return value as T;
}

/**
 * Decodes and validates a cluster file's text.
 *
 * @example
 * ```ts
 * import { parseTopoCluster } from "./topo_inputs.ts";
 * const c = parseTopoCluster("nodes:\n  - name: n1\n    capacity: {cpu: 8, gpu: 1}\n", "c.yaml");
 * if (c.nodes[0].capacity.cpu !== 8) throw new Error("cpu");
 * try {
 *   parseTopoCluster("nodes:\n  - name: n1\n    cpus: 8\n", "c.yaml");
 *   throw new Error("an unknown field must be refused");
 * } catch (e) {
 *   const want = 'decode cluster file "c.yaml": yaml: unmarshal errors: line 3: field cpus not found in type model.Node';
 *   if ((e as Error).message !== want) throw e;
 * }
 * ```
 */
export function parseTopoCluster(text: string, path: string): TopoCluster {
  const data = decode(text, path, "cluster") as { nodes?: Node64[] };
  if (data.nodes === undefined) {
    throw fail(
      "cluster",
      path,
      "validate",
      `top-level field "nodes" is required and must be a sequence`,
    );
  }
  const nodes = checked<Node64[]>(CLUSTER_RULES, data.nodes, "cluster", path);
  return {
    nodes: nodes.map((n) => ({
      name: n.name,
      ...(n.topology === undefined ? {} : { topology: n.topology }),
      capacity: { cpu: toNum(n.capacity.cpu), gpu: toNum(n.capacity.gpu) },
    })),
  };
}

function staticJob(j: Job64): TopoJob {
  const job: TopoJob = {
    name: j.name,
    replicas: toNum(j.replicas),
    resourcesPerReplica: {
      cpu: toNum(j.resourcesPerReplica.cpu),
      gpu: toNum(j.resourcesPerReplica.gpu),
    },
  };
  return j.requiredTopology === "" ? job : { ...job, requiredTopology: j.requiredTopology };
}

/**
 * Decodes and validates a jobs file's text (the static jobs of `schedule` and `compare`).
 *
 * @example
 * ```ts
 * import { parseTopoJobs } from "./topo_inputs.ts";
 * const [j] = parseTopoJobs("jobs:\n  - name: a\n    replicas: 2\n    resourcesPerReplica: {gpu: 1}\n", "j.yaml");
 * if (j.replicas !== 2 || j.resourcesPerReplica.cpu !== 0) throw new Error("job");
 * ```
 */
export function parseTopoJobs(text: string, path: string): TopoJob[] {
  const data = decode(text, path, "jobs") as { jobs?: Job64[] };
  if (data.jobs === undefined) {
    throw fail(
      "jobs",
      path,
      "validate",
      `top-level field "jobs" is required and must be a sequence`,
    );
  }
  return checked<Job64[]>(JOB_RULES, data.jobs, "jobs", path).map(staticJob);
}

/**
 * Decodes and validates a timed jobs file's text (the jobs of `simulate`).
 *
 * @example
 * ```ts
 * import { parseTopoTimedJobs } from "./topo_inputs.ts";
 * const text = "jobs:\n  - name: a\n    replicas: 1\n    resourcesPerReplica: {cpu: 1}\n    durationTicks: 3\n";
 * try {
 *   parseTopoTimedJobs(text, "t.yaml");
 *   throw new Error("arrivalTick is required");
 * } catch (e) {
 *   if ((e as Error).message !== 'validate timed jobs file "t.yaml": job "a": arrivalTick is required') throw e;
 * }
 * ```
 */
export function parseTopoTimedJobs(text: string, path: string): TopoTimedJob[] {
  const kind = "timed jobs";
  const data = decode(text, path, kind) as { jobs?: Job64[] };
  if (data.jobs === undefined) {
    throw fail(kind, path, "validate", `top-level field "jobs" is required and must be a sequence`);
  }
  data.jobs.forEach((j, i) => {
    const who = j.name === "" ? `job at index ${i}` : `job ${q(j.name)}`;
    if (j.arrivalTick === undefined) {
      throw fail(kind, path, "validate", `${who}: arrivalTick is required`);
    }
    if (j.durationTicks === undefined) {
      throw fail(kind, path, "validate", `${who}: durationTicks is required`);
    }
  });
  return checked<Job64[]>(TIMED_RULES, data.jobs, kind, path).map((j) => ({
    ...staticJob(j),
    arrivalTick: toNum(j.arrivalTick!),
    durationTicks: toNum(j.durationTicks!),
  }));
}

/**
 * Checks that every node has every topology key a job requires, with a
 * non-empty value (TopoQueue's `ValidateTopologyRequirements`).
 *
 * @example
 * ```ts
 * import { checkTopologyRequirements } from "./topo_inputs.ts";
 * const cluster = { nodes: [{ name: "n1", topology: { zone: "z" }, capacity: { cpu: 1, gpu: 0 } }] };
 * const jobs = [{ name: "a", replicas: 1, resourcesPerReplica: { cpu: 1, gpu: 0 }, requiredTopology: "rack" }];
 * try {
 *   checkTopologyRequirements(cluster, jobs, "c.yaml", "j.yaml", "jobs");
 *   throw new Error("rack is missing");
 * } catch (e) {
 *   const want = 'validate cluster file "c.yaml" against jobs file "j.yaml": node "n1": missing topology key "rack" required by job "a"';
 *   if ((e as Error).message !== want) throw e;
 * }
 * ```
 */
export function checkTopologyRequirements(
  cluster: TopoCluster,
  jobs: readonly TopoJob[],
  clusterPath: string,
  jobsPath: string,
  kind: "jobs" | "timed jobs",
): void {
  const r = TOPOLOGY_RULES.safeParse({ nodes: cluster.nodes, jobs });
  if (!r.success) {
    throw new EvtsimError(
      "input",
      `validate cluster file ${q(clusterPath)} against ${kind} file ${q(jobsPath)}: ${
        r.error.issues[0].message
      }`,
    );
  }
}

/** Reads a file's text; a failure is TopoQueue's `read <kind> file "p": …`. */
export async function readTopoFile(path: string, kind: TopoFileKind): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    const { describeFsError } = await import("./fs_errors.ts");
    throw new EvtsimError("input", `read ${kind} file ${q(path)}: ${describeFsError(e)}`);
  }
}

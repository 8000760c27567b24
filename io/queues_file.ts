// The `--queues` file: queue definitions in YAML or JSON (JSON is read as
// YAML, which it is a subset of), validated strictly with a schema so that a
// typo is an error naming the file, the line, the queue and the field rather
// than a silently ignored key.

import { z } from "zod";
import { EvtsimError } from "../core/errors.ts";
import type { QueueDef } from "../core/queues.ts";
import type { FairshareSettings } from "../schedulers/fairshare_settings.ts";
import { failAt, singleYamlDocument, yamlLineOf, yamlValue } from "./_yaml.ts";

const expected = (what: string) => ({ error: `expected ${what}` });

const QUEUE = z.strictObject({
  name: z.string(expected("a non-empty string")).min(1, expected("a non-empty string")),
  priority: z.int(expected("an integer")).optional(),
  picker: z.string(expected("a picker name")).min(1, expected("a picker name")).optional(),
  project: z.string(expected("a string")).optional(),
  max_running: z.int(expected("a non-negative integer")).nonnegative(
    expected("a non-negative integer"),
  ).optional(),
  open: z.boolean(expected("true or false")).optional(),
  preempt_mode: z.enum(
    ["off", "requeue", "cancel", "suspend"],
    expected("off, requeue, cancel or suspend"),
  )
    .optional(),
  grace_time: z.number(expected("a number of seconds, 0 or more")).nonnegative(
    expected("a number of seconds, 0 or more"),
  ).max(Number.MAX_SAFE_INTEGER, expected("a number of seconds, 0 or more")).optional(),
  partition: z.string(expected("a partition name")).min(1, expected("a partition name"))
    .optional(),
}, { error: (issue) => issue.code === "unrecognized_keys" ? "unknown field" : undefined });

const unknownField = {
  error: (issue: { code?: string }) =>
    issue.code === "unrecognized_keys" ? "unknown field" : undefined,
};
const positive = z.number(expected("a positive number")).positive(expected("a positive number"));
const weight = z.number(expected("a non-negative number")).nonnegative(
  expected("a non-negative number"),
);

const FAIRSHARE = z.strictObject({
  by: z.enum(["user", "account"], expected("user or account")).optional(),
  half_life: positive.optional(),
  max_age: positive.optional(),
  weights: z.strictObject({
    fairshare: weight.optional(),
    age: weight.optional(),
    size: weight.optional(),
  }, unknownField).optional(),
  shares: z.record(z.string(), positive, expected("a map of user or account to share")).optional(),
}, unknownField);

const FILE = z.strictObject({
  queues: z.array(QUEUE, expected("a list of queues")).min(1, "must list at least one queue")
    .optional(),
  fairshare: FAIRSHARE.optional(),
}, unknownField);

/**
 * A queue definition as read, with the line it starts on.
 *
 * @example
 * ```ts
 * import { parseQueues, type QueueEntry } from "./queues_file.ts";
 * const [q]: QueueEntry[] = parseQueues("queues:\n  - name: batch\n    max_running: 4\n", "q.yaml");
 * if (q.line !== 2 || q.queue.maxRunning !== 4) throw new Error("entry");
 * ```
 */
export interface QueueEntry {
  /** The definition. */
  readonly queue: QueueDef;
  /** 1-based line of the entry in the file. */
  readonly line: number;
  /** 1-based line of each field given, by its name in the file (`max_running`, …). */
  readonly fieldLines: Readonly<Record<string, number>>;
  /** With `--machine`: the partition (node pool) its jobs run in when they name none. */
  readonly partition?: string;
}

/**
 * Parses the text of a queues file:
 *
 * ```yaml
 * queues:
 *   - name: batch          # required, unique
 *     priority: 0          # integer, higher first (default 0)
 *     max_running: 100     # jobs of this queue running at once (default: no limit)
 *     open: true           # a closed queue starts nothing (default true)
 *     preempt_mode: requeue  # off (default), requeue, cancel or suspend: what a job of a queue of
 *                          # higher priority that needs its resources does to a job of this one
 *     grace_time: 60       # seconds a preempted job of this queue runs on before it stops (default 0)
 *     picker: sjf          # per-queue picker (default: the global one's order)
 *     project: physics     # carried for pickers that use it
 *     partition: gpu       # with --machine: its jobs run on this partition's nodes
 * ```
 *
 * Throws an `EvtsimError` naming `file`, the line, the queue and the field.
 *
 * @example
 * ```ts
 * import { parseQueues } from "./queues_file.ts";
 * const qs = parseQueues('{"queues": [{"name": "a", "priority": 2}, {"name": "b"}]}', "q.json");
 * if (qs.map((e) => e.queue.name).join() !== "a,b") throw new Error("names");
 * try {
 *   parseQueues("queues:\n  - name: a\n    max_runing: 3\n", "q.yaml");
 *   throw new Error("a typo must be refused");
 * } catch (e) {
 *   if (!(e as Error).message.startsWith("q.yaml:3: queue 0 (a): max_runing:")) throw e;
 * }
 * ```
 */
export function parseQueues(text: string, file: string): QueueEntry[] {
  return parseQueuesFile(text, file).queues;
}

/**
 * What a queues file says: its queues (none when it has only a `fairshare:`
 * block) and the `fairshare` picker's settings, when given:
 *
 * ```yaml
 * fairshare:
 *   by: user               # or account: whose usage counts (default user)
 *   half_life: 604800      # seconds (default 7 days)
 *   max_age: 604800        # seconds to the full age factor (default 7 days)
 *   weights: { fairshare: 1000, age: 100, size: 0 }
 *   shares: { alice: 2, bob: 1 }   # default 1 each
 * ```
 *
 * @example
 * ```ts
 * import { parseQueuesFile } from "./queues_file.ts";
 * const f = parseQueuesFile("fairshare:\n  half_life: 3600\n  weights: { age: 0 }\n", "q.yaml");
 * if (f.queues.length !== 0 || f.fairshare?.halfLife !== 3600) throw new Error("fairshare");
 * try {
 *   parseQueuesFile("fairshare:\n  half_life: -1\n", "q.yaml");
 *   throw new Error("a negative half-life must be refused");
 * } catch (e) {
 *   if ((e as Error).message !== "q.yaml:2: fairshare.half_life: expected a positive number") throw e;
 * }
 * ```
 */
export function parseQueuesFile(
  text: string,
  file: string,
): { readonly queues: QueueEntry[]; readonly fairshare?: FairshareSettings } {
  const fail = failAt(file);
  const { doc, lines } = singleYamlDocument(text, file);
  const lineOf = (path: readonly (string | number)[]) => yamlLineOf(doc, lines, path);
  const raw = yamlValue(doc, lines, fail);
  const parsed = FILE.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue.code === "unrecognized_keys" ? [issue.keys[0]] : [];
    const path = [...issue.path, ...keys].map((k) => (typeof k === "number" ? k : String(k)));
    throw located(file, lineOf(path), raw, path, issue.message);
  }
  const data = parsed.data;
  if (data.queues === undefined && data.fairshare === undefined) {
    throw new EvtsimError("input", "queues: required (or a fairshare: block)", { file, line: 1 });
  }
  const seen = new Map<string, number>();
  const queues = (data.queues ?? []).map((q, i) => {
    const line = lineOf(["queues", i]) ?? 1;
    const first = seen.get(q.name);
    if (first !== undefined) {
      throw new EvtsimError(
        "input",
        `queue ${i} (${q.name}): name: duplicate queue name (first used by queue ${first})`,
        { file, line },
      );
    }
    seen.set(q.name, i);
    const queue: QueueDef = {
      name: q.name,
      ...(q.priority === undefined ? {} : { priority: q.priority }),
      ...(q.picker === undefined ? {} : { picker: q.picker }),
      ...(q.project === undefined ? {} : { project: q.project }),
      ...(q.max_running === undefined ? {} : { maxRunning: q.max_running }),
      ...(q.preempt_mode === undefined ? {} : { preemptMode: q.preempt_mode }),
      ...(q.grace_time === undefined ? {} : { graceTime: q.grace_time }),
      ...(q.open === undefined ? {} : { open: q.open }),
    };
    const fieldLines: Record<string, number> = {};
    for (const key of Object.keys(q)) fieldLines[key] = lineOf(["queues", i, key]) ?? line;
    return {
      queue,
      line,
      fieldLines,
      ...(q.partition === undefined ? {} : { partition: q.partition }),
    };
  });
  const f = data.fairshare;
  if (f === undefined) return { queues };
  const fairshare: FairshareSettings = {
    ...(f.by === undefined ? {} : { by: f.by }),
    ...(f.half_life === undefined ? {} : { halfLife: f.half_life }),
    ...(f.max_age === undefined ? {} : { maxAge: f.max_age }),
    ...(f.weights === undefined ? {} : { weights: { ...f.weights } }),
    ...(f.shares === undefined ? {} : { shares: { ...f.shares } }),
  };
  return { queues, fairshare };
}

function located(
  file: string,
  line: number | undefined,
  raw: unknown,
  path: readonly (string | number)[],
  message: string,
): EvtsimError {
  let where = "";
  if (path[0] === "queues" && typeof path[1] === "number") {
    const entry = (raw as { queues?: { name?: unknown }[] }).queues?.[path[1]];
    const name = typeof entry?.name === "string" ? ` (${entry.name})` : "";
    where = `queue ${path[1]}${name}: `;
    path = path.slice(2);
  }
  const field = path.length > 0 ? `${path.join(".")}: ` : "";
  const text = message === "Required"
    ? "required"
    : message.replace(/^Unrecognized key.*$/, "unknown field");
  return new EvtsimError("input", `${where}${field}${text}`, { file, line });
}

/**
 * Reads a queues file (see {@link parseQueues}).
 *
 * @example
 * ```ts
 * import { readQueues } from "./queues_file.ts";
 * const path = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(path, "queues:\n  - name: batch\n");
 * if ((await readQueues(path))[0].queue.name !== "batch") throw new Error("read");
 * await Deno.remove(path);
 * ```
 */
export async function readQueues(path: string): Promise<QueueEntry[]> {
  return (await readQueuesFile(path)).queues;
}

/**
 * Reads a queues file with its `fairshare:` block (see {@link parseQueuesFile}).
 *
 * @example
 * ```ts
 * import { readQueuesFile } from "./queues_file.ts";
 * const path = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(path, "fairshare:\n  by: account\n");
 * if ((await readQueuesFile(path)).fairshare?.by !== "account") throw new Error("read");
 * await Deno.remove(path);
 * ```
 */
export async function readQueuesFile(
  path: string,
): Promise<{ readonly queues: QueueEntry[]; readonly fairshare?: FairshareSettings }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseQueuesFile(text, path);
}

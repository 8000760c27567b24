// The one way evtsim's readers turn YAML into values: the yaml package's
// parse with the line counter every message needs, and its conversion to
// plain values with a bound on alias expansion. The package throws its own
// errors (a ReferenceError for an alias bomb, whatever an internal limit
// raises); here they become one `file:line: ...` EvtsimError, never a stack.

import {
  type Document,
  type DocumentOptions,
  isAlias,
  isCollection,
  isMap,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  parseDocument,
  type ParseOptions,
  type SchemaOptions,
  visit,
} from "yaml";
import { EvtsimError } from "../core/errors.ts";
import { MAX_JSON_DEPTH } from "../core/_json_bounds.ts";

/**
 * Most alias expansions a YAML file may make (the yaml package's
 * `maxAliasCount`): a few anchors reused in a config are far below it, while
 * an alias bomb (each anchor a list of the previous one) is refused before it
 * builds anything.
 */
export const MAX_YAML_ALIASES = 1000;

/** How a reader reports a YAML problem at a line (its own message style). */
export type YamlFail = (line: number | undefined, detail: string) => never;

/** The documents of a YAML text and the line counter that places their nodes. */
export interface YamlText {
  /** Every document in the text (each with its own `errors`). */
  readonly docs: Document.Parsed[];
  /** Turns a node's offset into its line. */
  readonly lines: LineCounter;
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** The fail function of readers with evtsim's own `file:line: detail` lines. */
export function failAt(file: string): YamlFail {
  return (line, detail) => {
    throw new EvtsimError("input", detail, { file, line });
  };
}

/**
 * Parses every document of `text`. Syntax problems stay in each document's
 * `errors` (the readers word them); anything the package throws is `fail`ed.
 */
export function parseYaml(text: string, fail: YamlFail, options: Options = {}): YamlText {
  const lines = new LineCounter();
  try {
    const docs = parseAllDocuments(text, { ...options, lineCounter: lines });
    const all = Array.isArray(docs) ? docs : [];
    for (const doc of all) checkNesting(doc, lines, fail);
    return { docs: all, lines };
  } catch (e) {
    if (e instanceof EvtsimError) throw e;
    return fail(undefined, parseFailure(e));
  }
}

/**
 * Parses `text` as one document (a second one is an error in its `errors`),
 * as {@link parseYaml} does.
 */
export function parseYamlDocument(
  text: string,
  fail: YamlFail,
  options: Options = {},
): { readonly doc: Document.Parsed; readonly lines: LineCounter } {
  const lines = new LineCounter();
  try {
    const doc = parseDocument(text, { ...options, lineCounter: lines });
    checkNesting(doc, lines, fail);
    return { doc, lines };
  } catch (e) {
    if (e instanceof EvtsimError) throw e;
    return fail(undefined, parseFailure(e));
  }
}

/**
 * A document's value as plain data, with alias expansion bounded by
 * {@link MAX_YAML_ALIASES}; an alias bomb is `fail`ed at the line of its
 * first alias.
 */
export function yamlValue(
  doc: Document.Parsed,
  lines: LineCounter,
  fail: YamlFail,
  options: { readonly mapAsMap?: boolean } = {},
): unknown {
  try {
    return doc.toJS({ ...options, maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      return fail(
        firstAliasLine(doc, lines),
        `its aliases expand to too many nodes (a YAML alias bomb; at most ${MAX_YAML_ALIASES} alias expansions are allowed)`,
      );
    }
    return fail(undefined, `not valid YAML: ${firstLine(e)}`);
  }
}

// Nesting beyond MAX_JSON_DEPTH (the bound of free-form JSON) is refused
// at the line of the first collection too deep; nesting beyond what the
// parser's own recursion holds is an error the package records, said the
// same way.
function checkNesting(doc: Document.Parsed, lines: LineCounter, fail: YamlFail): void {
  const overflow = doc.errors.find((e) => e.message.includes("Maximum call stack size exceeded"));
  if (overflow !== undefined) fail(lines.linePos(overflow.pos[0]).line, tooDeep());
  let line: number | undefined;
  visit(doc, {
    Collection(_, node, path) {
      let depth = 1;
      for (const p of path) if (isCollection(p)) depth++;
      if (depth <= MAX_JSON_DEPTH) return;
      line = node.range ? lines.linePos(node.range[0]).line : undefined;
      return visit.BREAK;
    },
  });
  if (line !== undefined) fail(line, tooDeep());
}

function tooDeep(): string {
  return `nested more than ${MAX_JSON_DEPTH} levels deep`;
}

function firstAliasLine(doc: Document.Parsed, lines: LineCounter): number | undefined {
  let line: number | undefined;
  visit(doc, {
    Alias(_, node) {
      if (isAlias(node) && node.range) line = lines.linePos(node.range[0]).line;
      return visit.BREAK;
    },
  });
  return line;
}

/**
 * Environment variables the yaml package reads on every parse (its debug
 * switches): a program run without env access to them fails inside the
 * package, which is not the file's fault.
 */
export const YAML_ENV = ["LOG_TOKENS", "LOG_STREAM"] as const;

// What went wrong when the package threw: a permission it lacked, or the text.
function parseFailure(e: unknown): string {
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    return `reading YAML needs env access to ${
      YAML_ENV.join(" and ")
    } (the yaml package reads them): ` +
      `run with --allow-env=${YAML_ENV.join(",")}`;
  }
  return `not valid YAML: ${firstLine(e)}`;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}

/**
 * The one document of a configuration file (a queues or machine file): an
 * empty file, a second document or a syntax error is one `file:line:` error.
 */
export function singleYamlDocument(
  text: string,
  file: string,
): { readonly doc: Document.Parsed; readonly lines: LineCounter } {
  const { docs, lines } = parseYaml(text, failAt(file));
  if (docs.length === 0 || docs[0].contents === null) {
    throw new EvtsimError("input", "the file is empty", { file });
  }
  if (docs.length > 1) {
    throw new EvtsimError("input", "a second YAML document is not supported", {
      file,
      line: lines.linePos(docs[1].range[0]).line,
    });
  }
  const doc = docs[0];
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    throw new EvtsimError("input", err.message.split("\n")[0], {
      file,
      line: lines.linePos(err.pos[0]).line,
    });
  }
  return { doc, lines };
}

/**
 * The line of the value at `path` in `doc` (a key the value lacks: the key's
 * line; a path that leaves the mappings and lists: the last one's line).
 */
export function yamlLineOf(
  doc: Document.Parsed,
  lines: LineCounter,
  path: readonly (string | number)[],
): number | undefined {
  let node: unknown = doc.contents;
  let last: Node | undefined;
  for (const key of path) {
    if (isMap(node) || isSeq(node)) {
      last = node as Node;
      // deno-lint-ignore no-explicit-any
      node = (node as any).get(key, true);
      if (node === undefined && isMap(last)) {
        const pair = last.items.find((p) => (p.key as { value?: unknown })?.value === key);
        node = pair?.key;
      }
    } else break;
  }
  const range = (node as Node | undefined)?.range ?? last?.range;
  return range === undefined || range === null ? undefined : lines.linePos(range[0]).line;
}

// Helpers of tests/metrics/notebook_test.ts: read a Jupyter notebook, check that it
// is nbformat 4 as committed (no outputs), turn its code cells into one
// module that `deno run` can run without Jupyter, and check that what it
// would have displayed is well-formed markup.

/** A notebook cell as nbformat 4 stores it. */
export interface Cell {
  readonly cell_type: string;
  readonly id?: string;
  readonly source: string | readonly string[];
  readonly metadata: Record<string, unknown>;
  readonly outputs?: readonly unknown[];
  readonly execution_count?: number | null;
}

/** The parts of an nbformat 4 notebook the tests read. */
export interface Notebook {
  readonly nbformat: number;
  readonly nbformat_minor: number;
  readonly metadata: { kernelspec?: { name?: string; language?: string } };
  readonly cells: readonly Cell[];
}

/** A cell's source as one string (nbformat allows a string or a list of lines). */
export function sourceOf(cell: Cell): string {
  return typeof cell.source === "string" ? cell.source : cell.source.join("");
}

/**
 * What is wrong with `text` as a committed nbformat 4.5 notebook for the Deno
 * kernel: not JSON, a missing or mistyped field, a cell id missing or used
 * twice, or a code cell saved with outputs or an execution count (outputs
 * in the repository would go stale as the code changes). Empty when fine.
 */
export function notebookProblems(text: string): string[] {
  let nb: Notebook;
  try {
    nb = JSON.parse(text);
  } catch (e) {
    return [`not JSON: ${(e as Error).message}`];
  }
  const problems: string[] = [];
  if (nb.nbformat !== 4 || typeof nb.nbformat_minor !== "number" || nb.nbformat_minor < 5) {
    problems.push(`nbformat ${nb.nbformat}.${nb.nbformat_minor}, expected 4.5 or later`);
  }
  if (nb.metadata?.kernelspec?.name !== "deno") {
    problems.push(`kernelspec.name is ${nb.metadata?.kernelspec?.name}, expected deno`);
  }
  if (!Array.isArray(nb.cells) || nb.cells.length === 0) return [...problems, "no cells"];
  const ids = new Set<string>();
  nb.cells.forEach((cell, i) => {
    const where = `cell ${i}`;
    if (!["code", "markdown", "raw"].includes(cell.cell_type)) {
      problems.push(`${where}: cell_type ${cell.cell_type}`);
    }
    if (typeof cell.id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(cell.id)) {
      problems.push(`${where}: id ${cell.id} is not 1-64 letters, digits, - or _`);
    } else if (ids.has(cell.id)) problems.push(`${where}: id ${cell.id} used twice`);
    else ids.add(cell.id);
    const source = cell.source;
    if (
      typeof source !== "string" &&
      !(Array.isArray(source) && source.every((l) => typeof l === "string"))
    ) problems.push(`${where}: source is not text`);
    if (typeof cell.metadata !== "object" || cell.metadata === null) {
      problems.push(`${where}: no metadata`);
    }
    if (cell.cell_type === "code") {
      if (!Array.isArray(cell.outputs) || cell.outputs.length > 0) {
        problems.push(`${where}: saved with outputs (clear them before committing)`);
      }
      if (cell.execution_count !== null) {
        problems.push(`${where}: saved with execution_count ${cell.execution_count}`);
      }
    }
  });
  return problems;
}

/**
 * The notebook's code cells in order, as one module: relative import
 * specifiers are resolved against `baseUrl` (the notebook's folder, where
 * the Deno kernel resolves them) so that the module runs from anywhere.
 */
export function moduleOf(nb: Notebook, baseUrl: URL): string {
  const resolve = (spec: string) => new URL(spec, baseUrl).href;
  return nb.cells
    .filter((c) => c.cell_type === "code")
    .map((c, i) =>
      `// ---- code cell ${i} ----\n` +
      sourceOf(c).replace(
        /((?:\bfrom|\bimport)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*)\2/g,
        (_m, head: string, quote: string, spec: string) =>
          `${head}${quote}${resolve(spec)}${quote}`,
      )
    )
    .join("\n\n") + "\n";
}

/**
 * A prelude that stands in for `Deno.jupyter` outside the kernel (where
 * reading it throws): `display` and the `html` / `svg` / `md` templates
 * record the media bundles they would have shown, and the recorded bundles
 * are written as JSON to `outFile` when the module ends.
 */
export function jupyterStub(outFile: string): string {
  return `// ---- Deno.jupyter stand-in (tests/_notebook.ts) ----
const __shown: Record<string, unknown>[] = [];
const __display = Symbol.for("Jupyter.display");
const __template = (type: string) => (strings: TemplateStringsArray, ...values: unknown[]) => ({
  [__display]: () => ({ [type]: String.raw({ raw: strings }, ...values) }),
});
// deno-lint-ignore no-explicit-any
(Deno as any).jupyter = {
  $display: __display,
  html: __template("text/html"),
  svg: __template("image/svg+xml"),
  md: __template("text/markdown"),
  display: async (obj: unknown, options: { raw?: boolean } = {}) => {
    // deno-lint-ignore no-explicit-any
    const f = (obj as any)?.[__display];
    if (typeof f === "function") __shown.push(await f.call(obj));
    else if (options.raw !== false && typeof obj === "object" && obj !== null) {
      __shown.push(obj as Record<string, unknown>);
    } else __shown.push({ "text/plain": String(obj) });
  },
};
globalThis.addEventListener("unload", () => {
  Deno.writeTextFileSync(${JSON.stringify(outFile)}, JSON.stringify(__shown));
});
`;
}

/**
 * What keeps `text` from being well-formed markup: a tag closed that was not
 * open, a tag left open, an attribute without a quoted value, a stray `<` or
 * `&`. Void HTML elements (`br`, `img` ...) need no closing tag. Empty when fine.
 */
export function markupProblems(text: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  const VOID = new Set(["br", "hr", "img", "input", "meta", "link", "col", "wbr"]);
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    const chunk = text.slice(i, lt === -1 ? text.length : lt);
    if (/&(?!(?:amp|lt|gt|quot|apos|#\d+);)/.test(chunk)) problems.push(`stray & in "${chunk}"`);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(text);
    if (m === null) {
      problems.push(`not a tag at ${lt}: ${text.slice(lt, lt + 40)}`);
      break;
    }
    const [, closing, name, , selfClosing] = m;
    if (closing) {
      if (open.pop() !== name) problems.push(`</${name}> closes nothing open at ${lt}`);
    } else if (!selfClosing && !VOID.has(name)) open.push(name);
    i = tag.lastIndex;
  }
  if (open.length > 0) problems.push(`left open: ${open.join(", ")}`);
  return problems;
}

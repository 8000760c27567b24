// Output paths are checked before anything is read or simulated: an empty
// path, a folder, a device or pipe (/dev/stdout), two outputs naming one
// file, or an output that is one of the inputs (compared by real path and by
// device and inode, so symbolic and hard links are caught) are refused with
// one line. A symbolic link to a regular file is written through: the output
// replaces the file it points to.

// Small POSIX path helpers (rather than node:path, whose Node compatibility
// layer would load at every start-up).
function resolve(...parts: string[]): string {
  let abs = Deno.cwd();
  for (const p of parts) abs = p.startsWith("/") ? p : `${abs}/${p}`;
  const out: string[] = [];
  for (const seg of abs.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}
import { EvtsimError } from "../core/errors.ts";
import { describeFsError } from "../io/fs_errors.ts";

/** A file the run reads, and how to name it in a message. */
export interface NamedPath {
  /** e.g. `the input trace`, `--capacity_schedule`. */
  readonly what: string;
  readonly path: string;
}

interface Identity {
  readonly real: string;
  readonly devIno?: string;
}

function statOrUndefined(path: string, follow: boolean): Deno.FileInfo | undefined {
  try {
    return follow ? Deno.statSync(path) : Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw e;
  }
}

function devIno(info: Deno.FileInfo): string | undefined {
  return info.dev !== null && info.ino !== null ? `${info.dev}:${info.ino}` : undefined;
}

/** Real path of `path`, or of its nearest existing ancestor plus the rest. */
function realOrLexical(path: string): string {
  const abs = resolve(path);
  try {
    return Deno.realPathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : `${realOrLexical(parent).replace(/\/$/, "")}/${basename(abs)}`;
  }
}

const SPECIAL = /^\/(dev|proc)(\/|$)/;

/** Whether `path` or a symbolic link on the way names /dev or /proc (/dev/stdout). */
function throughDevOrProc(path: string): boolean {
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    if (SPECIAL.test(p)) return true;
    try {
      if (!Deno.lstatSync(p).isSymlink) return false;
      p = resolve(dirname(p), Deno.readLinkSync(p));
    } catch {
      return false;
    }
  }
  return false;
}

function identityOf(path: string): Identity {
  const info = statOrUndefined(path, true);
  return { real: realOrLexical(path), devIno: info !== undefined ? devIno(info) : undefined };
}

function same(a: Identity, b: Identity): boolean {
  return a.real === b.real || (a.devIno !== undefined && a.devIno === b.devIno);
}

/**
 * Checks the outputs (`option` → path) against each other and against the
 * inputs; returns the path each output will really be written at (through a
 * symbolic link). Throws a one-line {@link EvtsimError}.
 *
 * @example
 * ```ts
 * import { checkOutputPaths } from "./paths.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/in.csv`, "job_submit_time,num_nodes,time_limit\n");
 * let message = "";
 * try {
 *   checkOutputPaths([["--outfile", `${dir}/in.csv`]], [{ what: "the input trace", path: `${dir}/in.csv` }]);
 * } catch (e) {
 *   message = (e as Error).message;
 * }
 * console.assert(message.includes("is the input trace"), message);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function checkOutputPaths(
  outputs: ReadonlyArray<readonly [string, string]>,
  inputs: readonly NamedPath[],
): Map<string, string> {
  const inputIds = inputs.map((i) => ({ ...i, id: identityOf(i.path) }));
  const seen: { option: string; path: string; id: Identity }[] = [];
  const finalPaths = new Map<string, string>();
  for (const [option, path] of outputs) {
    if (path === "") throw new EvtsimError("usage", `${option}: empty path`);
    if (path.endsWith("/")) {
      throw new EvtsimError("usage", `${option}: '${path}' names a folder, not a file`);
    }
    const notRegular = () =>
      new EvtsimError(
        "input",
        `cannot write ${option}: not a regular file (outputs are written to a temporary ` +
          "file and renamed into place; give a file path)",
        { file: path },
      );
    if (throughDevOrProc(path)) throw notRegular();
    let target = path;
    let info: Deno.FileInfo | undefined;
    try {
      const link = statOrUndefined(path, false);
      info = link?.isSymlink ? statOrUndefined(path, true) : link;
      if (link?.isSymlink && info?.isFile) target = Deno.realPathSync(path);
    } catch (e) {
      throw new EvtsimError("input", `cannot write: ${describeFsError(e)}`, { file: path });
    }
    if (info?.isDirectory) {
      throw new EvtsimError("input", `cannot write ${option}: it is a folder`, { file: path });
    }
    if (info !== undefined && !info.isFile) throw notRegular();
    const id = identityOf(target);
    for (const i of inputIds) {
      if (same(id, i.id)) {
        throw new EvtsimError(
          "usage",
          `${option} ${path} is ${i.what} (${i.path}); refusing to overwrite an input`,
        );
      }
    }
    for (const s of seen) {
      if (same(id, s.id)) {
        throw new EvtsimError(
          "usage",
          `${s.option} and ${option} name the same file (${path}); give each output its own path`,
        );
      }
    }
    seen.push({ option, path, id });
    finalPaths.set(option, target);
  }
  return finalPaths;
}

/**
 * Every option, of any command, whose value names a file the command reads,
 * and how a refusal names it. Output paths of every command (simulate,
 * replay and its REPL, compare, report, sweep) are checked against these
 * with {@link checkOutputPaths}: one rule, so an input option added to a
 * command is protected the moment it is listed here.
 */
export const INPUT_OPTIONS: Readonly<Record<string, string>> = {
  capacity_schedule: "the --capacity_schedule file",
  node_failures: "the --node_failures file",
  queues: "the --queues file",
  machine: "the --machine file",
  policy_module: "the --policy_module file",
  from_snapshot: "the --from_snapshot file",
  alt_events: "the --alt_events log",
};

/**
 * The inputs named by a command's options (`value` gives an option's string
 * value, or undefined when it was not given).
 *
 * @example
 * ```ts
 * import { optionInputs } from "./paths.ts";
 * const given = new Map([["queues", "q.yaml"], ["outfile", "out.csv"]]);
 * const inputs = optionInputs((name) => given.get(name));
 * console.assert(inputs.length === 1 && inputs[0].what === "the --queues file");
 * ```
 */
export function optionInputs(value: (option: string) => string | undefined): NamedPath[] {
  const inputs: NamedPath[] = [];
  for (const [option, what] of Object.entries(INPUT_OPTIONS)) {
    const path = value(option);
    if (path !== undefined) inputs.push({ what, path });
  }
  return inputs;
}

/**
 * Refuses (one line) an output path that is one of `inputs`: the check of
 * {@link checkOutputPaths} for one output, e.g. a REPL's `snapshot FILE`.
 * Returns the path the output is really written at.
 *
 * @example
 * ```ts
 * import { checkOutputPath } from "./paths.ts";
 * const dir = Deno.makeTempDirSync();
 * console.assert(checkOutputPath("snapshot", `${dir}/new.replay`, []) === `${dir}/new.replay`);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function checkOutputPath(
  option: string,
  path: string,
  inputs: readonly NamedPath[],
): string {
  return checkOutputPaths([[option, path]], inputs).get(option)!;
}

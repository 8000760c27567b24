// How a counterexample report's "CLI view" runs evtsim from the user's own
// folder (docs/own-policies.md, "Fuzzing a picker or admission policy of your own"), not only inside the clone: `evtsim` when it is installed
// on the PATH (`deno task install`), else this clone's task through
// `deno task --cwd CLONE evtsim`, else (the library loaded from JSR, no
// clone) the package's `cli` export. Files are named by absolute paths so the
// command works from any folder. Nothing here asks for a permission: what
// the process may not read (PATH, the current folder) is left unused.

/** What the command is worked out from (injected by tests). */
export interface CommandSetting {
  /** The folder relative paths are taken from, if known. */
  readonly cwd?: string;
  /** Whether an `evtsim` command is on the PATH. */
  readonly installed: boolean;
  /** The clone's folder when the library is loaded from one (file: URL). */
  readonly clone?: string;
}

const granted = (d: Deno.PermissionDescriptor): boolean => {
  try {
    return Deno.permissions.querySync(d).state === "granted";
  } catch {
    return false;
  }
};

function onPath(): boolean {
  if (!granted({ name: "env", variable: "PATH" })) return false;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "" || !granted({ name: "read", path: `${dir}/evtsim` })) continue;
    try {
      if (Deno.statSync(`${dir}/evtsim`).isFile) return true;
    } catch { /* not there */ }
  }
  return false;
}

/** The setting of this process. */
export function currentSetting(): CommandSetting {
  const here = new URL("../", import.meta.url);
  let cwd: string | undefined;
  try {
    if (granted({ name: "read", path: "." })) cwd = Deno.cwd();
  } catch { /* no read permission */ }
  return {
    ...(cwd !== undefined ? { cwd } : {}),
    installed: onPath(),
    ...(here.protocol === "file:"
      ? { clone: decodeURIComponent(here.pathname).replace(/\/$/, "") }
      : {}),
  };
}

/**
 * The words that run `evtsim` from any folder.
 *
 * @example
 * ```ts
 * import { evtsimCommand } from "./_cli_command.ts";
 * console.assert(evtsimCommand({ installed: true, clone: "/src/evtsim" }) === "evtsim");
 * console.assert(evtsimCommand({ installed: false, clone: "/src/evtsim" }) === "deno task --cwd /src/evtsim evtsim");
 * ```
 */
export function evtsimCommand(s: CommandSetting, quote = (x: string) => x): string {
  if (s.installed) return "evtsim";
  if (s.clone !== undefined) return `deno task --cwd ${quote(s.clone)} evtsim`;
  return "deno run -A jsr:@evtsim/evtsim/cli";
}

/** `path` made absolute against the setting's folder (as given when that is unknown). */
export function absolutePath(path: string, s: CommandSetting): string {
  if (path.startsWith("/") || s.cwd === undefined) return path;
  const parts: string[] = [];
  for (const seg of `${s.cwd}/${path}`.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return "/" + parts.join("/");
}

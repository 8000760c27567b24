// Files and folders that exist only while a command runs (outputs' `.tmp-PID`
// files and the folders made for them, a compare's or a sweep cell's scratch
// folder). When the command runs in a worker (cli/main.ts), the main thread
// is told of each one as it is made and as it goes away, so that a SIGINT or
// SIGTERM, which ends the worker wherever it is (even in a policy's endless
// loop), can still remove what the worker left.

/** What a temporary is: a file, an empty folder, or a folder removed with its contents. */
export type TemporaryKind = "file" | "folder" | "tree";

/** Told of every temporary made and released (at most one watcher: the worker's). */
export interface TemporaryWatcher {
  made(path: string, kind: TemporaryKind): void;
  released(path: string): void;
  /** A child process started (a sweep's cell), to be stopped with the command. */
  spawned?(pid: number): void;
  /** That child process ended. */
  reaped?(pid: number): void;
  /** Outputs are being moved into place (true) or are all in place or back (false). */
  committing?(busy: boolean): void;
}

let watcher: TemporaryWatcher | undefined;

/**
 * Sets the watcher (undefined: none).
 *
 * @example
 * ```ts
 * import { temporaryMade, watchTemporaries } from "./_temporaries.ts";
 * const seen: string[] = [];
 * watchTemporaries({ made: (p) => seen.push(p), released: () => {} });
 * temporaryMade("/tmp/x.tmp-1", "file");
 * watchTemporaries(undefined);
 * console.assert(seen[0] === "/tmp/x.tmp-1");
 * ```
 */
export function watchTemporaries(w: TemporaryWatcher | undefined): void {
  watcher = w;
}

/** Notes a temporary just made. */
export function temporaryMade(path: string, kind: TemporaryKind): void {
  watcher?.made(path, kind);
}

/** Notes a temporary gone (removed, or renamed into place). */
export function temporaryReleased(path: string): void {
  watcher?.released(path);
}

/**
 * Removes what is left of the temporaries in `live` (path → kind): files
 * first, then the folders, deepest first. Never throws.
 *
 * @example
 * ```ts
 * import { removeTemporaries } from "./_temporaries.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.tmp-1`, "x");
 * removeTemporaries(new Map([[dir, "folder"], [`${dir}/a.tmp-1`, "file"]]));
 * let gone = false;
 * try {
 *   Deno.statSync(dir);
 * } catch {
 *   gone = true;
 * }
 * console.assert(gone);
 * ```
 */
export function removeTemporaries(live: ReadonlyMap<string, TemporaryKind>): void {
  const order = [...live].sort(([a, ka], [b, kb]) =>
    (ka === "folder" ? 1 : 0) - (kb === "folder" ? 1 : 0) || b.length - a.length
  );
  for (const [path, kind] of order) {
    try {
      Deno.removeSync(path, { recursive: kind === "tree" });
    } catch { /* gone already, or a folder that is not empty (not ours alone) */ }
  }
}

/** Notes a child process started, which a signal must stop too. */
export function childSpawned(pid: number): void {
  watcher?.spawned?.(pid);
}

/** Notes a child process ended. */
export function childReaped(pid: number): void {
  watcher?.reaped?.(pid);
}

/**
 * Notes the start (true) and end (false) of a commit's renames: a signal
 * waits for the end, so the outputs are all old or all new, never a mix.
 */
export function commitInProgress(busy: boolean): void {
  watcher?.committing?.(busy);
}

// Which folder relative paths on the command line are taken from, when the
// command runs as a `deno task` (kept out of the ./cli entry: not public API).

/**
 * Relative paths are the user's: `deno task` runs the command in the folder
 * of deno.json and says where it was started in INIT_CWD. The variable is
 * inherited by every process a task starts, so it is followed only when
 * this process runs in that very folder (the task's); a process started
 * elsewhere (an installed `evtsim`, a test, a benchmark) keeps its own.
 */
export function userFolder(
  cwd: string,
  initCwd: string | undefined,
  taskFolder: string,
): string | undefined {
  if (initCwd === undefined || initCwd === "" || initCwd === cwd) return undefined;
  const real = (p: string) => {
    try {
      return Deno.realPathSync(p);
    } catch {
      return p;
    }
  };
  return real(cwd) === real(taskFolder) ? initCwd : undefined;
}

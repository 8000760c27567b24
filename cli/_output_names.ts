// The default names of a run's output files, in a file of their own: simulate
// and report both use them, and neither imports the other for them.

/**
 * `<input's name without .csv/.swf/.swf.gz>_sim.csv`, DR_EVT's name, in the
 * folder the command runs in (not beside the input, which may be a shared
 * or read-only data folder).
 */
export function defaultOutfile(input: string): string {
  const name = input.slice(input.lastIndexOf("/") + 1);
  const stem = name.replace(/\.(swf|psv|sacct)\.gz$/i, "").replace(
    /\.(csv|swf|psv|sacct|txt|list)$/i,
    "",
  );
  return `${stem}_sim.csv`;
}

/** `<outfile without .csv (or .swf, .parquet)>_resources.csv`. */
export function defaultResourceFile(outfile: string): string {
  return /\.(csv|swf|parquet)$/i.test(outfile)
    ? `${outfile.slice(0, outfile.lastIndexOf("."))}_resources.csv`
    : `${outfile}_resources.csv`;
}

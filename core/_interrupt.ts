// An interrupt the engine honours in the middle of a step. A process's
// SIGINT/SIGTERM listener runs only when the main thread's event loop turns,
// and one step can keep it busy for seconds (6,000 jobs at one instant under
// conservative_profile, or the drain after a deep queue's last arrival). So
// the CLI hands the engine a flag in shared memory that a watchdog thread
// sets on a signal (cli/_watchdog.ts), and the engine looks at it once per
// instant and once per candidate a session offers: one atomic load, nothing
// when no flag was given (the library, tests, serve). When the flag is set,
// the shell's handler runs right there: it removes the temporaries and exits
// the process, so no state is left half-made for anyone to see.

let flag: Int32Array | undefined;
let onInterrupt: ((code: number) => void) | undefined;

/**
 * Hands the engine an interrupt flag (`flag[0]`: 0, or the exit code a signal
 * asked for) and what to do when it is set (it should not return: it ends the
 * process). `undefined`: no flag (the default).
 *
 * @example
 * ```ts
 * import { checkInterrupt, watchInterrupt } from "./_interrupt.ts";
 * const flag = new Int32Array(new SharedArrayBuffer(4));
 * let heard = 0;
 * watchInterrupt(flag, (code) => {
 *   heard = code;
 * });
 * checkInterrupt();
 * Atomics.store(flag, 0, 130);
 * checkInterrupt();
 * watchInterrupt(undefined);
 * if (heard !== 130) throw new Error("not heard");
 * ```
 */
export function watchInterrupt(
  f: Int32Array | undefined,
  handler?: (code: number) => void,
): void {
  flag = f;
  onInterrupt = f === undefined ? undefined : handler;
}

/** Runs the shell's handler if a signal set the flag. */
export function checkInterrupt(): void {
  if (flag !== undefined) {
    const code = Atomics.load(flag, 0);
    if (code !== 0) onInterrupt?.(code);
  }
}

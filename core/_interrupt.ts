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
//
// The watchdog thread costs about 14 MiB, so the CLI starts it only once the
// main thread has been busy long enough to need it (cli/_watchdog.ts): until
// then it hands the engine a poll, called every 256th check, that looks at
// the clock.

let flag: Int32Array | undefined;
let onInterrupt: ((code: number) => void) | undefined;
let poll: (() => void) | undefined;
let countdown = 0;
const CHECKS_PER_POLL = 256;

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
  } else if (poll !== undefined && --countdown <= 0) {
    countdown = CHECKS_PER_POLL;
    poll();
  }
}

/**
 * Until a flag is given, calls `f` at every 256th {@link checkInterrupt}
 * (`undefined`: no poll, the default). The CLI's poll starts the watchdog
 * when a step has kept the main thread busy for a while.
 *
 * @example
 * ```ts
 * import { checkInterrupt, pollInterrupt } from "./_interrupt.ts";
 * let polls = 0;
 * pollInterrupt(() => polls++);
 * for (let i = 0; i < 1024; i++) checkInterrupt();
 * pollInterrupt(undefined);
 * if (polls !== 4) throw new Error(`${polls} polls`);
 * ```
 */
export function pollInterrupt(f: (() => void) | undefined): void {
  poll = f;
  countdown = CHECKS_PER_POLL;
}

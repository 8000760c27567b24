// The shared buffer over which a session worker, blocked inside the engine's
// step at an external round, receives its client's answer: the worker's
// message loop cannot run while it waits, so the answer is written into
// shared memory and the worker is woken with `Atomics.notify`.
//
// Layout: two Int32 (state, byte length of the answer), then the answer's
// UTF-8 bytes. States: WAITING (the worker waits), ANSWERED (an answer is
// there), CANCELLED (the session is being ended: the worker gives up).

/**
 * What `evtsim simulate --external_command`'s worker writes as the answer
 * when the process is told to stop (SIGINT/SIGTERM) while the engine's
 * thread waits at a round, followed by the exit code the signal asks for:
 * that thread can run no signal listener of its own while it waits.
 */
export const INTERRUPTED = "\u0000interrupted ";

/** Bytes an answer may take (its JSON text): the HTTP front's body limit. */
export const MAX_ANSWER_BYTES = 1 << 20;

const WAITING = 0;
const ANSWERED = 1;
const CANCELLED = 2;
const HEADER = 8;

/** A new channel: room for the largest answer a front accepts. */
export function newChannel(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + MAX_ANSWER_BYTES);
}

/** The worker's side: marks the channel waiting (before it posts the round). */
export function expectAnswer(channel: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(channel, 0, 2), 0, WAITING);
}

/**
 * The worker's side: blocks until an answer (its text) or a cancel
 * (undefined) is written.
 */
export function awaitAnswer(channel: SharedArrayBuffer): string | undefined {
  const ctl = new Int32Array(channel, 0, 2);
  while (Atomics.load(ctl, 0) === WAITING) Atomics.wait(ctl, 0, WAITING);
  if (Atomics.load(ctl, 0) === CANCELLED) return undefined;
  const n = Atomics.load(ctl, 1);
  // Copied out of shared memory: TextDecoder does not read a shared view.
  return new TextDecoder().decode(new Uint8Array(channel, HEADER, n).slice());
}

/** The server's side: writes an answer and wakes the worker. */
export function writeAnswer(channel: SharedArrayBuffer, text: string): void {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > channel.byteLength - HEADER) {
    throw new RangeError(`the answer is larger than ${channel.byteLength - HEADER} bytes`);
  }
  new Uint8Array(channel, HEADER, bytes.length).set(bytes);
  const ctl = new Int32Array(channel, 0, 2);
  Atomics.store(ctl, 1, bytes.length);
  Atomics.store(ctl, 0, ANSWERED);
  Atomics.notify(ctl, 0);
}

/** The server's side: wakes a waiting worker to give up (its session is ending). */
export function cancelWait(channel: SharedArrayBuffer): void {
  const ctl = new Int32Array(channel, 0, 2);
  Atomics.store(ctl, 0, CANCELLED);
  Atomics.notify(ctl, 0);
}

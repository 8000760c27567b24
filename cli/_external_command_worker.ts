// The worker of `simulate --admission external --external_command CMD`
// (cli/_external_command.ts): it runs CMD (`sh -c`) and does its pipe I/O,
// which the engine's thread cannot (it is blocked inside the synchronous
// step at a round, waiting on the shared answer channel). Each `ask` line
// goes to the command's stdin; the next line of its stdout is written into
// the channel. A command that ends or closes its stdout: the reason is
// written instead (a text starting with NUL), so the run fails in one line.

import { INTERRUPTED, writeAnswer } from "../api/service/_external_channel.ts";

const scope = self as unknown as {
  postMessage(m: unknown): void;
  onmessage: ((e: MessageEvent) => void) | null;
};

let child: Deno.ChildProcess | undefined;
let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
let lines: AsyncIterator<string> | undefined;
let channel: SharedArrayBuffer | undefined;
/** The exit code a signal asked for, once one came (later answers are not written). */
let signalled: number | undefined;
const encoder = new TextEncoder();

/** Writes `text` as the answer, unless a signal has taken its place. */
function answer(text: string): void {
  if (signalled === undefined) writeAnswer(channel!, text);
}

async function* splitLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
    }
  }
  if (buffer !== "") yield buffer;
}

async function ask(line: string): Promise<void> {
  try {
    await writer!.write(encoder.encode(line + "\n"));
    const next = await lines!.next();
    if (next.done) {
      const status = await child!.status;
      answer(`\u0000it ended (exit status ${status.code}) without answering`);
      return;
    }
    answer(next.value);
  } catch (e) {
    // A write to a command that has ended (a broken pipe): say that it ended.
    const ended = await Promise.race([
      child!.status,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 500)),
    ]);
    answer(
      ended === undefined
        ? `\u0000${(e as Error).message.split("\n")[0]}`
        : `\u0000it ended (exit status ${ended.code}) without answering`,
    );
  }
}

// The engine's thread, waiting at a round, cannot run its signal listener:
// on SIGINT/SIGTERM this thread ends the command and wakes it with the code
// the signal asks for, and it stops the run as its listener would. Between
// rounds the answer is not awaited and the engine's own listener runs.
const signals: [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];
for (const [signal, code] of signals) {
  try {
    Deno.addSignalListener(signal, () => {
      if (signalled !== undefined || channel === undefined) return;
      signalled = code;
      try {
        child?.kill("SIGTERM");
      } catch { /* it has ended */ }
      writeAnswer(channel, `${INTERRUPTED}${code}`);
    });
  } catch { /* a platform without this signal (SIGTERM on Windows) */ }
}

scope.onmessage = (e: MessageEvent) => {
  const m = e.data as { start?: { command: string; channel: SharedArrayBuffer }; ask?: string };
  if (m.start !== undefined) {
    channel = m.start.channel;
    try {
      child = new Deno.Command("sh", {
        args: ["-c", m.start.command],
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      writer = child.stdin.getWriter();
      lines = splitLines(child.stdout);
    } catch (err) {
      writeAnswer(channel, `\u0000cannot start it: ${(err as Error).message.split("\n")[0]}`);
    }
    // The engine's thread waits for this before its first round blocks it.
    scope.postMessage({ started: true });
    return;
  }
  if (m.ask !== undefined) {
    if (child === undefined) return; // the start failure is answered already
    void ask(m.ask);
    return;
  }
  // Stop: the command's stdin ends (it should exit), then it is killed if it has not.
  void (async () => {
    try {
      await writer?.close();
    } catch { /* gone already */ }
    const timer = setTimeout(() => {
      try {
        child?.kill("SIGKILL");
      } catch { /* ended */ }
    }, 2000);
    await child?.status;
    clearTimeout(timer);
    scope.postMessage({ stopped: true });
  })();
};

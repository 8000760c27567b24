// Streams the lines of a text file, gunzipping it on the fly when its name ends
// in `.gz`, without ever holding the whole file (or its decompressed text) in
// memory. Lines are handed over as (text, start, end) ranges so that the
// caller can scan them in place instead of allocating one string per line.
//
// Gzip input goes through node:zlib, which reads every member of a
// multi-member file (bgzip and pigz write those; `gzip -d` reads them as one
// stream), where the web DecompressionStream stops after the first member.

import type { Buffer } from "node:buffer";
import { EvtsimError } from "../core/errors.ts";

/**
 * Receives one line: `text.slice(start, end)` without its `\n` (a trailing
 * `\r` is left in place), and its 1-based line number. Returning `false`
 * stops reading; the file is closed either way.
 */
export type LineHandler = (text: string, start: number, end: number, line: number) => boolean;

/**
 * Longest line a trace reader accepts, in characters. A trace line is a few
 * hundred at most; the bound turns a file that is no trace (a gzip of zeros
 * decompressing to gigabytes without a newline) into one error before the
 * line outgrows the largest string the runtime can hold.
 */
export const MAX_LINE_CHARS = 1 << 20;

/** The error for a line longer than {@link MAX_LINE_CHARS}, at `file:line`. */
export function lineTooLong(file: string, line: number): EvtsimError {
  return new EvtsimError(
    "input",
    `line longer than ${MAX_LINE_CHARS} characters (is this a trace?)`,
    { file, line },
  );
}

/** True when `path` names a gzip file by its extension. */
export function isGzipPath(path: string): boolean {
  return path.toLowerCase().endsWith(".gz");
}

/**
 * Calls `onLine` for every line of `path`, in order, and resolves to the
 * number of lines seen. Errors thrown by `onLine` propagate unchanged; an
 * unreadable file or a truncated or corrupt gzip stream rejects with an
 * `EvtsimError` naming the file (a truncated stream is detected by the
 * decompressor at its end, so it never hangs).
 */
export async function forEachLine(path: string, onLine: LineHandler): Promise<number> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${describe(e)}`, { file: path });
  }
  return await forEachStreamLine(file.readable, path, onLine, isGzipPath(path));
}

/**
 * As {@link forEachLine}, for a byte stream; `name` names it in messages.
 * `gzip` undefined means "gzip when the stream starts with the gzip magic
 * bytes". The stream is cancelled when reading stops early.
 */
export async function forEachStreamLine(
  stream: ReadableStream<Uint8Array>,
  name: string,
  onLine: LineHandler,
  gzip?: boolean,
): Promise<number> {
  if (gzip === undefined) [gzip, stream] = await sniffGzip(stream);
  const splitter = new LineSplitter(onLine, name);
  let handlerFailed = false;
  const feed = (chunk: string): boolean => {
    handlerFailed = true;
    const more = splitter.push(chunk);
    handlerFailed = false;
    return more;
  };
  try {
    if (gzip) await gunzipChunks(stream, feed);
    else {
      // Leaving this loop early (return or throw) cancels the stream, which closes the file.
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        if (!feed(chunk)) return splitter.lines;
      }
    }
  } catch (e) {
    if (handlerFailed || e instanceof EvtsimError) throw e;
    if (gzip) {
      throw new EvtsimError(
        "input",
        `truncated or corrupt gzip stream (after line ${splitter.lines}: ${describe(e)})`,
        { file: name },
      );
    }
    throw new EvtsimError("input", `cannot read: ${describe(e)}`, { file: name });
  }
  handlerFailed = true;
  splitter.end();
  return splitter.lines;
}

// Decompresses every gzip member of `bytes`, handing text chunks to `feed`
// until it returns false; the stream is cancelled (a file closed) in every case.
// Node's stream and zlib modules are loaded only here: a run without gzip
// input does not pay for them at start-up.
async function gunzipChunks(
  bytes: ReadableStream<Uint8Array>,
  feed: (chunk: string) => boolean,
): Promise<void> {
  const [{ Readable }, { createGunzip }] = await Promise.all([
    import("node:stream"),
    import("node:zlib"),
  ]);
  const source = Readable.fromWeb(bytes as import("node:stream/web").ReadableStream);
  const gunzip = createGunzip();
  source.on("error", (e: Error) => gunzip.destroy(e));
  source.pipe(gunzip);
  const decoder = new TextDecoder();
  try {
    for await (const bytes of gunzip as AsyncIterable<Buffer>) {
      if (!feed(decoder.decode(bytes, { stream: true }))) return;
    }
    const rest = decoder.decode();
    if (rest.length > 0) feed(rest);
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

// Whether `stream` starts with the gzip magic bytes (1f 8b), and a stream
// with the same bytes to read instead.
async function sniffGzip(
  stream: ReadableStream<Uint8Array>,
): Promise<[boolean, ReadableStream<Uint8Array>]> {
  const reader = stream.getReader();
  let head: Uint8Array = new Uint8Array(0);
  let done = false;
  while (head.length < 2 && !done) {
    const r = await reader.read();
    if (r.done) done = true;
    else head = head.length === 0 ? r.value : new Uint8Array([...head, ...r.value]);
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length > 0) controller.enqueue(head);
      if (done) controller.close();
    },
    async pull(controller) {
      const r = await reader.read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return [head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b, rest];
}

// Cuts decoded text chunks into lines; a line may span chunks.
class LineSplitter {
  lines = 0;
  #carry = "";
  #stopped = false;

  constructor(private readonly onLine: LineHandler, private readonly name: string) {}

  /** Delivers the complete lines of `chunk`; false once the handler asked to stop. */
  push(chunk: string): boolean {
    let pos = 0;
    if (this.#carry.length > 0) {
      const nl = chunk.indexOf("\n");
      if (nl < 0) {
        if (this.#carry.length + chunk.length > MAX_LINE_CHARS) {
          throw lineTooLong(this.name, this.lines + 1);
        }
        this.#carry += chunk;
        return true;
      }
      const line = this.#carry + chunk.slice(0, nl);
      this.#carry = "";
      if (!this.#deliver(line, 0, line.length)) return false;
      pos = nl + 1;
    }
    for (let nl = chunk.indexOf("\n", pos); nl >= 0; nl = chunk.indexOf("\n", pos)) {
      if (!this.#deliver(chunk, pos, nl)) return false;
      pos = nl + 1;
    }
    if (chunk.length - pos > MAX_LINE_CHARS) throw lineTooLong(this.name, this.lines + 1);
    this.#carry = pos < chunk.length ? chunk.slice(pos) : "";
    return true;
  }

  /** Delivers a last line without a newline. */
  end(): void {
    if (!this.#stopped && this.#carry.length > 0) this.#deliver(this.#carry, 0, this.#carry.length);
  }

  #deliver(text: string, start: number, end: number): boolean {
    this.lines++;
    if (end - start > MAX_LINE_CHARS) throw lineTooLong(this.name, this.lines);
    if (!this.onLine(text, start, end, this.lines)) this.#stopped = true;
    return !this.#stopped;
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

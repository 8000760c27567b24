// Streams the lines of a text file, gunzipping it on the fly when its name ends
// in `.gz`, without ever holding the whole file (or its decompressed text) in
// memory. Lines are handed over as (text, start, end) ranges so that the
// caller can scan them in place instead of allocating one string per line.

import { EvtsimError } from "../core/errors.ts";

/**
 * Receives one line: `text.slice(start, end)` without its `\n` (a trailing
 * `\r` is left in place), and its 1-based line number. Returning `false`
 * stops reading; the file is closed either way.
 */
export type LineHandler = (text: string, start: number, end: number, line: number) => boolean;

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
  const gzip = isGzipPath(path);
  let bytes: ReadableStream<BufferSource> = file.readable;
  if (gzip) bytes = bytes.pipeThrough(new DecompressionStream("gzip"));
  const chunks = bytes.pipeThrough(new TextDecoderStream());

  let lineNo = 0;
  let carry = "";
  let handlerFailed = false;
  const deliver = (text: string, start: number, end: number): boolean => {
    lineNo++;
    handlerFailed = true;
    const more = onLine(text, start, end, lineNo);
    handlerFailed = false;
    return more;
  };
  try {
    // Leaving this loop early (return or throw) cancels the stream chain,
    // which closes the file.
    for await (const chunk of chunks) {
      let pos = 0;
      if (carry.length > 0) {
        const nl = chunk.indexOf("\n");
        if (nl < 0) {
          carry += chunk;
          continue;
        }
        const line = carry + chunk.slice(0, nl);
        carry = "";
        if (!deliver(line, 0, line.length)) return lineNo;
        pos = nl + 1;
      }
      for (let nl = chunk.indexOf("\n", pos); nl >= 0; nl = chunk.indexOf("\n", pos)) {
        if (!deliver(chunk, pos, nl)) return lineNo;
        pos = nl + 1;
      }
      carry = pos < chunk.length ? chunk.slice(pos) : "";
    }
  } catch (e) {
    if (handlerFailed || e instanceof EvtsimError) throw e;
    if (gzip) {
      throw new EvtsimError(
        "input",
        `truncated or corrupt gzip stream (after line ${lineNo}: ${describe(e)})`,
        { file: path },
      );
    }
    throw new EvtsimError("input", `cannot read: ${describe(e)}`, { file: path });
  }
  if (carry.length > 0) deliver(carry, 0, carry.length);
  return lineNo;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// A byte stream read as text lines (a sweep worker's stdin, its answers and
// its stderr as the sweep reads them): one line per `\n`, the last line even
// without one.

/**
 * The lines of `stream`, without their `\n`.
 *
 * @example
 * ```ts
 * import { textLines } from "./_text_lines.ts";
 * const stream = new Blob(["a\nb\nc"]).stream();
 * const got: string[] = [];
 * for await (const line of textLines(stream)) got.push(line);
 * if (got.join() !== "a,b,c") throw new Error(got.join());
 * ```
 */
export async function* textLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  if (buffered !== "") yield buffered;
}

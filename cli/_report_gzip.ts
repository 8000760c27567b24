// The first bytes of a gzipped file as text (enough for an SWF header).

/** Decompresses `bytes` (gzip) and returns at most about `limit` characters of text. */
export async function gunzipText(bytes: Uint8Array, limit: number): Promise<string> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  ).pipeThrough(new TextDecoderStream());
  let text = "";
  const reader = stream.getReader();
  try {
    while (text.length < limit) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } catch {
    // A damaged archive: whatever was read is the head (the header is optional).
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text;
}

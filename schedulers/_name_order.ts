// The order of node, resource and topology names in every topology output:
// its own file so that the topology cluster's parts (domains, inputs,
// outputs) share it without importing the cluster itself.

/** Code-point order (= the byte order of UTF-8, as Go compares strings). */
export function compareNames(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

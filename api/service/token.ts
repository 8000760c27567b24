// The shared token of `evtsim serve --token`: compared in constant time, so
// the time a refusal takes says nothing about how much of a guess was right.

/** Whether `given` equals `token` (constant time in the length of `token`). */
export function tokenMatches(given: string, token: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i];
  return diff === 0;
}

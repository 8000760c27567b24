// Preloaded by `deno task test` (`--preload`): makes a failed `console.assert`
// throw. The JSDoc examples run as doc tests check their results with
// `console.assert`, which by default only logs, so a wrong example would
// still pass; with this preload it fails its test.

const original = console.assert.bind(console);

console.assert = (condition?: boolean, ...data: unknown[]): void => {
  if (condition) return;
  original(condition, ...data);
  throw new Error(
    `console.assert failed${data.length > 0 ? ": " + data.map(String).join(" ") : ""}`,
  );
};

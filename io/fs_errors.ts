// Turns a file-system error (any Deno.errors.* or an OS error with an errno
// code) into a short cause for a one-line message, without the stack.

const BY_CODE: Readonly<Record<string, string>> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "it is a folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EEXIST: "it already exists",
  EXDEV: "not a regular file on the same file system",
  ENAMETOOLONG: "file name too long",
  ELOOP: "too many levels of symbolic links",
  EIO: "input/output error",
  EMFILE: "too many open files",
  EBUSY: "device or resource busy",
  EINVAL: "invalid argument",
};

/**
 * Whether `e` is an error raised by the file system or the OS (as opposed
 * to a bug in evtsim).
 *
 * @example
 * ```ts
 * import { isFsError } from "./fs_errors.ts";
 * let err: unknown;
 * try {
 *   Deno.readTextFileSync("/no/such/file");
 * } catch (e) {
 *   err = e;
 * }
 * console.assert(isFsError(err) && !isFsError(new TypeError("bug")));
 * ```
 */
export function isFsError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return true;
  return Object.values(Deno.errors).some((k) => e instanceof k);
}

/**
 * A short cause for a file-system error, e.g. `no space left on device`.
 *
 * @example
 * ```ts
 * import { describeFsError } from "./fs_errors.ts";
 * let cause = "";
 * try {
 *   Deno.openSync("/no/such/folder/x.csv", { write: true, create: true });
 * } catch (e) {
 *   cause = describeFsError(e);
 * }
 * console.assert(cause === "no such file or folder", cause);
 * ```
 */
export function describeFsError(e: unknown): string {
  if (e instanceof Deno.errors.NotCapable) {
    return "deno was not given the permission (run with --allow-read --allow-write)";
  }
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && BY_CODE[code] !== undefined) return BY_CODE[code];
  const message = e instanceof Error ? e.message : String(e);
  // "No space left on device (os error 28): open 'x'" → "no space left on device"
  const cause = message.replace(/\s*\(os error \d+\).*$/s, "").split("\n")[0].trim();
  return cause === "" ? "unknown error" : cause.charAt(0).toLowerCase() + cause.slice(1);
}

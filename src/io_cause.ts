/**
 * The cause of a failed file operation, for a one-line error: the first line of the error's
 * message (Deno's carry the OS reason, e.g. "File name too long (os error 36)"), or its name
 * where the message is empty.
 *
 * @module
 */

/**
 * One line naming why a file operation failed.
 *
 * @param e what was thrown
 * @returns the message's first line, or the error's name, or "unknown error"
 * @example
 * ```ts
 * import { ioCause } from "./io_cause.ts";
 * if (ioCause(new Error("No space left on device (os error 28)\nmore")) !== "No space left on device (os error 28)") throw new Error();
 * if (ioCause(new TypeError("")) !== "TypeError") throw new Error();
 * ```
 */
export function ioCause(e: unknown): string {
  if (!(e instanceof Error)) return "unknown error";
  const line = e.message.split("\n")[0]!.trim();
  return line === "" ? e.name : line;
}

/**
 * Why a named file cannot be opened or stat'ed, for a one-line error: "no such file",
 * "permission denied", or the system's cause ({@link ioCause}).
 *
 * @param e what was thrown
 * @returns the reason
 * @example
 * ```ts
 * import { openCause } from "./io_cause.ts";
 * if (openCause(new Deno.errors.NotFound("x")) !== "no such file") throw new Error();
 * ```
 */
export function openCause(e: unknown): string {
  return e instanceof Deno.errors.NotFound
    ? "no such file"
    : e instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : ioCause(e);
}

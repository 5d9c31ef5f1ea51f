/**
 * Coded errors that callers are expected to handle.
 *
 * Misuse of an API throws the built-in classes (`TypeError`, `RangeError`, `SyntaxError`); failures a
 * caller must react to (a tampered asset, a refused input file, a bad command line) carry a stable
 * `code` so that tests and the CLI can branch on it without parsing messages.
 *
 * @example
 * ```ts
 * import { AssetError } from "./errors.ts";
 * const e = new AssetError("ASSET_DIGEST_MISMATCH", "Cannot load 'x': digest mismatch");
 * if (e.code !== "ASSET_DIGEST_MISMATCH") throw new Error("unexpected");
 * ```
 * @module
 */

/** Base class of every coded bitaudit error. */
export class BitauditError<Code extends string = string> extends Error {
  /** Stable machine-readable reason, e.g. `"ASSET_DIGEST_MISMATCH"`. */
  readonly code: Code;

  /**
   * @param code stable reason code
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`)
   */
  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** An asset (profile, table, wasm module, catalog) is missing, tampered with or malformed. */
export class AssetError extends BitauditError {}

/** Input supplied by a user (file, flag, JSON document) cannot be used. */
export class InputError extends BitauditError {}

/** The command line itself is wrong (unknown option, missing argument). */
export class UsageError extends BitauditError {}

/** A verification step could not be carried out (not a FAIL verdict: those are results). */
export class VerificationError extends BitauditError {}

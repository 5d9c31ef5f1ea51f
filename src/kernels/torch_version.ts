/**
 * `parseTorchVersion`: the release of a `torch.__version__` string, which fixes the kernels'
 * reduction trees and dispatch (reduce and softmax presets).
 *
 * @module
 */

/** A PyTorch release as `major.minor`. */
export interface TorchRelease {
  /** Major version. */
  readonly major: number;
  /** Minor version. */
  readonly minor: number;
}

/**
 * Reads the `major.minor` prefix of a `torch.__version__` string (e.g. "2.9.1+cu128").
 *
 * @param version the version string
 * @returns the release
 * @throws {SyntaxError} when the version has no `major.minor` prefix
 * @example
 * ```ts
 * import { parseTorchVersion } from "./torch_version.ts";
 * const r = parseTorchVersion("2.10.0+cu128");
 * if (r.major !== 2 || r.minor !== 10) throw new Error();
 * ```
 */
export function parseTorchVersion(version: string): TorchRelease {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (m === null) {
    throw new SyntaxError(`Cannot parse torch version '${version}': expected 'major.minor...'`);
  }
  return { major: Number(m[1]), minor: Number(m[2]) };
}

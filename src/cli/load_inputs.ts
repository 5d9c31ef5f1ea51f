/**
 * Loading of user inputs shared by the verifier commands: claim logs, keys, trust roots,
 * envelopes, and fresh output folders.
 *
 * @module
 */
import {
  decodePrivateKeyPem,
  parseEnvelope,
  parseTrustRoot,
  publicKeyFromPrivate,
} from "../attest/mod.ts";
import type { DsseEnvelope, SigningKey, TrustRoot } from "../attest/mod.ts";
import { type ClaimLog, parseClaimLog } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { readTextFile } from "./read_json_file.ts";

/** Largest claim log accepted (bytes). */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

/**
 * Reads and chain-checks a claim log file.
 *
 * @param path JSON Lines file
 * @returns the log
 * @throws {InputError} file, size, syntax and chain errors
 * @example
 * ```ts ignore
 * const log = await loadClaimLog("claims.jsonl");
 * ```
 */
export async function loadClaimLog(path: string): Promise<ClaimLog> {
  return parseClaimLog(await readTextFile(path, { maxBytes: MAX_LOG_BYTES }));
}

/**
 * Reads an inspector's private key (PKCS#8 PEM).
 *
 * @param path key file
 * @returns the signing key with its public half
 * @throws {InputError} `INPUT_*`, `BAD_PEM`, `BAD_KEY`
 * @example
 * ```ts ignore
 * const key = await loadSigningKey("inspector.key");
 * ```
 */
export async function loadSigningKey(path: string): Promise<SigningKey> {
  const privateKey = decodePrivateKeyPem(await readTextFile(path, { maxBytes: 64 * 1024 }));
  return { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
}

/**
 * Reads a trust root.
 *
 * @param path JSON file
 * @returns the trust root
 * @throws {InputError} `INPUT_*`, `BAD_TRUST_ROOT`, `KEYID_MISMATCH`
 * @example
 * ```ts ignore
 * const root = await loadTrustRoot("trust-root.json");
 * ```
 */
export async function loadTrustRoot(path: string): Promise<TrustRoot> {
  return parseTrustRoot(await readTextFile(path, { maxBytes: 16 * 1024 * 1024 }));
}

/**
 * Reads a DSSE envelope.
 *
 * @param path JSON file
 * @returns the envelope
 * @throws {InputError} `INPUT_*`, `ENVELOPE_TOO_LARGE`, `BAD_ENVELOPE`, `BAD_BASE64`
 * @example
 * ```ts ignore
 * const env = await loadEnvelope("attestation.dsse.json");
 * ```
 */
export async function loadEnvelope(path: string): Promise<DsseEnvelope> {
  return parseEnvelope(await readTextFile(path, { maxBytes: 16 * 1024 * 1024 }));
}

/**
 * Makes sure an output folder exists and holds none of the files about to be written.
 *
 * @param dir folder (created when missing)
 * @param names files that will be written into it
 * @throws {InputError} `OUTPUT_EXISTS` when one of them exists, `OUTPUT_WRITE` when the folder
 *   cannot be created
 * @example
 * ```ts ignore
 * await prepareOutputDir("out", ["report.md"]);
 * ```
 */
export async function prepareOutputDir(dir: string, names: readonly string[]): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new InputError("OUTPUT_WRITE", `Cannot create '${dir}': ${(e as Error).name}`);
  }
  for (const n of names) {
    try {
      await Deno.lstat(`${dir}/${n}`);
      throw new InputError(
        "OUTPUT_EXISTS",
        `Cannot write '${dir}/${n}': it already exists (not overwritten)`,
      );
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}

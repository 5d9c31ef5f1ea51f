/**
 * Loading of user inputs shared by the verifier commands: claim logs, keys, trust roots,
 * envelopes, and fresh output folders.
 *
 * @module
 */
import { normalize } from "node:path";
import {
  decodePrivateKeyPem,
  decodePublicKeyPem,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_SIGNATURES,
  parseEnvelope,
  parseTrustRoot,
  publicKeyFromPrivate,
} from "../attest/mod.ts";
import type { DsseEnvelope, SigningKey, TrustRoot } from "../attest/mod.ts";
import { bytesToHex, type ClaimLog, parseClaimLog } from "../claims/mod.ts";
import { InputError, UsageError } from "../errors.ts";
import { MAX_PLAN_SIGNATURES } from "../verify/mod.ts";
import { readTextFile } from "./read_json_file.ts";
import { createOwnedDir } from "./cleanup.ts";
import { refuseExisting } from "./write_new_file.ts";
import { ioCause, openCause } from "../io_cause.ts";
import { quoteForTerminal } from "../escape_text.ts";

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
 * Checks private key files without reading them: each is a file readable and writable by its
 * owner only, as ssh requires, and no file is named twice. {@link loadSigningKey} checks this
 * before it reads a key; NATS access files are checked with it too. Every error names the file,
 * escaped, and the option that gave it, as the key's own errors do: "Cannot read key 'a.key'
 * (--key): no such file".
 *
 * @param paths key files
 * @param options the `option` that named the files, for messages (default `--key`)
 * @throws {InputError} `INPUT_MISSING` (also for a device, descriptor or `/proc` path such as
 *   `/dev/stdin`, refused as not a file as a FIFO is), `KEY_PERMISSIONS` (group or others may read
 *   or write it), `USAGE_KEYS` (the same file twice)
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to a file (the CLI's
 *   PERMISSION error)
 * @example
 * ```ts ignore
 * await checkSigningKeyFiles(["inspector.key"], { option: "--key" });
 * ```
 */
export async function checkSigningKeyFiles(
  paths: readonly string[],
  options: { readonly option?: string } = {},
): Promise<void> {
  const seen = new Set<string>();
  for (const path of paths) {
    const key = `key ${quoteForTerminal(path)} (${options.option ?? "--key"})`;
    let real: string | undefined;
    let info: Deno.FileInfo;
    try {
      real = await Deno.realPath(path);
      info = await Deno.stat(real);
    } catch (e) {
      // The path refused is the link's target once realPath resolved it: a link in a folder
      // read access was given for, to a file outside it, is a PERMISSION error, not a device.
      if (e instanceof Deno.errors.NotCapable && !(await _readGranted(real ?? path))) throw e;
      throw new InputError(
        "INPUT_MISSING",
        `Cannot read ${key}: ${
          e instanceof Deno.errors.NotCapable ? NOT_A_KEY_FILE : openCause(e)
        }`,
      );
    }
    if (!info.isFile) {
      throw new InputError("INPUT_MISSING", `Cannot read ${key}: not a file`);
    }
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new InputError(
        "KEY_PERMISSIONS",
        `Cannot use ${key}: mode ${
          (info.mode & 0o777).toString(8)
        } lets group or others access it (run chmod 600)`,
      );
    }
    if (seen.has(real)) {
      throw new UsageError("USAGE_KEYS", `Cannot sign with ${key}: it is given twice`);
    }
    seen.add(real);
  }
}

/**
 * Why a path Deno refuses to touch although read access to it was granted is no key file: Deno
 * reads no device (`/dev/stdin`), descriptor (`/dev/fd/0`, `/proc/self/fd/0`) or other `/proc` or
 * `/sys` entry without `--allow-all`, and none of them is the regular file a key is read from.
 */
const NOT_A_KEY_FILE = "not a file (a device, a descriptor or a /proc or /sys entry)";

/** True when read access to `path` was granted (a NotCapable then is Deno's special-file rule). */
async function _readGranted(path: string): Promise<boolean> {
  return (await Deno.permissions.query({ name: "read", path })).state === "granted";
}

/**
 * Reads a private key (PKCS#8 PEM), after {@link checkSigningKeyFiles}. A key that does not parse
 * is named with its file and the option that gave it: "Cannot use key 'a.key' (--key): <why>".
 *
 * @param path key file
 * @param options the `option` that named the file, for messages (default `--key`)
 * @returns the signing key with its public half
 * @throws {InputError} `KEY_PERMISSIONS`, `INPUT_*`, `BAD_PEM`, `BAD_KEY`
 * @example
 * ```ts ignore
 * const key = await loadSigningKey("worker.key", { option: "--worker-key" });
 * ```
 */
export async function loadSigningKey(
  path: string,
  options: { readonly option?: string } = {},
): Promise<SigningKey> {
  const what = `key ${quoteForTerminal(path)} (${options.option ?? "--key"})`;
  await checkSigningKeyFiles([path], options);
  const privateKey = decodePrivateKeyPem(
    await readTextFile(path, { maxBytes: 64 * 1024, what }),
    { what },
  );
  return { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
}

/**
 * Reads a public key (Ed25519 SPKI PEM, a `.pub` file) and keeps its text, as trust evidence
 * carries it. Every error names the file and the option that gave it, as {@link loadSigningKey}'s
 * do: "Cannot read key 'w.pub' (--worker-pub): no such file", "Cannot use key 'w.pub'
 * (--worker-pub): it is a PRIVATE KEY block".
 *
 * @param path key file
 * @param options the `option` that named the file, for messages (e.g. `--prover-pub`)
 * @returns the PEM text and the 32-byte public key
 * @throws {InputError} `INPUT_*`, `BAD_PEM`, `BAD_KEY`
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it
 * @example
 * ```ts ignore
 * const { pem, publicKey } = await loadPublicKeyPem("prover.pub", { option: "--prover-pub" });
 * ```
 */
export async function loadPublicKeyPem(
  path: string,
  options: { readonly option: string },
): Promise<{ pem: string; publicKey: Uint8Array }> {
  const what = `key ${quoteForTerminal(path)} (${options.option})`;
  const pem = await readTextFile(path, { maxBytes: _MAX_PUBLIC_KEY_BYTES, what });
  return { pem, publicKey: decodePublicKeyPem(pem, { what }) };
}

/**
 * Reads a public key (Ed25519 SPKI PEM) as {@link loadPublicKeyPem} does, errors naming the file
 * and the option.
 *
 * @param path key file
 * @param options the `option` that named the file, for messages (e.g. `--worker-pub`)
 * @returns the 32-byte public key
 * @throws {InputError} `INPUT_*`, `BAD_PEM`, `BAD_KEY`
 * @example
 * ```ts ignore
 * const key = await loadPublicKey("worker.pub", { option: "--worker-pub" });
 * ```
 */
export async function loadPublicKey(
  path: string,
  options: { readonly option: string },
): Promise<Uint8Array> {
  return (await loadPublicKeyPem(path, options)).publicKey;
}

/** Largest public key file read (bytes): a `.pub` file is about 113. */
const _MAX_PUBLIC_KEY_BYTES = 64 * 1024;

/**
 * Most `--key` files one command signs with: each signs once, and neither an envelope nor a plan
 * file is read back with more signatures (`MAX_ENVELOPE_SIGNATURES`, `MAX_PLAN_SIGNATURES`).
 */
export const MAX_SIGNING_KEYS = Math.min(MAX_ENVELOPE_SIGNATURES, MAX_PLAN_SIGNATURES);

/**
 * Reads every `--key` file and refuses two that hold the same key (a hard link, a symlink or a
 * copy): a key signs an envelope once. More than {@link MAX_SIGNING_KEYS} are refused before any
 * is read: what they signed could not be read back.
 *
 * @param paths key files
 * @returns the signing keys, in order
 * @throws {UsageError} `USAGE_KEYS`; what {@link loadSigningKey} throws
 * @example
 * ```ts ignore
 * const keys = await loadSigningKeys(["a.key", "b.key"]);
 * ```
 */
export async function loadSigningKeys(paths: readonly string[]): Promise<SigningKey[]> {
  if (paths.length > MAX_SIGNING_KEYS) {
    throw new UsageError(
      "USAGE_KEYS",
      `Cannot sign with ${paths.length} --key files: at most ${MAX_SIGNING_KEYS} (an envelope or ` +
        "plan with more signatures is refused when read)",
    );
  }
  const keys = await Promise.all(paths.map((path) => loadSigningKey(path)));
  if (new Set(keys.map((key) => bytesToHex(key.publicKey))).size !== keys.length) {
    throw new UsageError("USAGE_KEYS", "Cannot sign: two --key files hold the same key");
  }
  return keys;
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
  return parseEnvelope(await readTextFile(path, { maxBytes: MAX_ENVELOPE_BYTES }));
}

/**
 * Makes sure an output folder exists and holds none of the files about to be written: a missing
 * folder is created with its missing parents, and a path that exists but is not a folder is
 * refused (the rule of `makeDirs`, which every output follows). When the command fails or is
 * interrupted, what it wrote into the folder is removed, then the folder while empty if it was
 * created here (see `createOwnedDir`): outputs are whole or absent, and another run's files in
 * the same folder stay.
 *
 * @param dir folder (created when missing)
 * @param names files that will be written into it
 * @returns `done(ok)`, to call when the command ends (`ok` false: it failed)
 * @throws {InputError} `OUTPUT_EXISTS` when `dir` is an existing file (or other non-folder) or one
 *   of the files exists, `OUTPUT_WRITE` when the folder cannot be created or written into
 * @throws {UsageError} `USAGE_PATH` when `dir` is empty (its files would be written at the root
 *   of the filesystem)
 * @example
 * ```ts ignore
 * const done = await prepareOutputDir("out", ["report.md"]);
 * ```
 */
export async function prepareOutputDir(
  dir: string,
  names: readonly string[],
): Promise<(ok: boolean) => Promise<void>> {
  if (dir === "") throw new UsageError("USAGE_PATH", "Cannot write into '': the path is empty");
  // Without `..` (see writeNewFile): the probe is removed where it was written, and every check
  // names the folder the outputs go into.
  dir = normalize(dir);
  let info: Deno.FileInfo | null = null;
  try {
    info = await Deno.stat(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    // Missing, or under a file: `createOwnedDir` creates it or names the file in the way.
  }
  if (info !== null && !info.isDirectory) {
    throw new InputError(
      "OUTPUT_EXISTS",
      `Cannot write into '${dir}': it exists and is not a folder (not overwritten)`,
    );
  }
  if (info !== null) { for (const n of names) await refuseExisting(`${dir}/${n}`); }
  const done = await createOwnedDir(dir);
  // An existing folder this process cannot write into is named now, not after hours of work.
  const probe = `${dir}/.bitaudit-probe-${crypto.randomUUID()}`;
  try {
    await Deno.writeFile(probe, new Uint8Array(0), { createNew: true });
    await Deno.remove(probe);
  } catch (e) {
    await Deno.remove(probe).catch(() => {});
    await done(false);
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("OUTPUT_WRITE", `Cannot write into '${dir}': ${ioCause(e)}`);
  }
  return done;
}

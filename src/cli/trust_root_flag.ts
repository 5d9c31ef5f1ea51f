/**
 * The `--trust-root` of the commands that sign a verdict (`audit`, `audit merge`, `audit serve`):
 * the trust root `check` will read the verdict with, read before anything is computed, merged or
 * published. A key in use (a `--key`, a worker key) that it lists as a prover's is refused at once,
 * whatever the time; the `--key` keys are judged by `check`'s signatures rule at the verdict's time
 * (`--time`, or now); the root then goes to `signVerdict`, which judges the signing keys again and
 * the worker keys by `check`'s `workers` check at the signing time (`WORKER_KEY_REFUSED`).
 *
 * @module
 */
import { judgeSigningKeys, type SigningKey, type TrustRoot } from "../attest/mod.ts";
import { InputError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { loadTrustRoot } from "./load_inputs.ts";
import { type KeyInUse, refuseProverKey } from "./refuse_prover_key.ts";

/** The `--trust-root` option of `audit`, `audit merge` and `audit serve`. */
export const TRUST_ROOT_OPTION = [
  "--trust-root <file>",
  "trust root JSON that `check` will read the verdict with: a --key or worker key it lists as a prover's is refused at once; --key keys of which it would count no valid inspector signature (not in it, or expired, revoked or not yet valid at the verdict's time) at once and again before signing; and a worker key it does not accept at the verdict's time (an inspector key expired, revoked or not yet valid) before signing",
] as const;

/**
 * Reads a `--trust-root` and refuses, before any work, the keys it would have `check` refuse:
 * a key in use it lists as a prover's, and `--key` keys of which `check` would count fewer
 * signatures than it requires at the verdict's time.
 *
 * @param path the `--trust-root` file (undefined: none given, nothing read or refused)
 * @param o the signing `keys`, every key in use (`uses`: signing and worker keys, with the option
 *   and file that named each, the `--key` files named in the refusal) and the verdict's `time`
 *   (`--time`; undefined: now)
 * @returns the trust root, for `signVerdict`'s `trustRoot`
 * @throws {InputError} `INPUT_*`, `BAD_TRUST_ROOT`, `KEYID_MISMATCH` for the file;
 *   `SIGNING_KEY_REFUSED` for `--key` keys it would not count
 * @throws {UsageError} `USAGE_KEYS` for a key in use it lists as a prover's
 * @example
 * ```ts ignore
 * const trustRoot = await trustRootFlag(opts.trustRoot, { keys, uses, time });
 * ```
 */
export async function trustRootFlag(
  path: string | undefined,
  o: {
    readonly keys: readonly SigningKey[];
    readonly uses: readonly KeyInUse[];
    readonly time: string | undefined;
  },
): Promise<TrustRoot | undefined> {
  if (path === undefined) return undefined;
  const trustRoot = await loadTrustRoot(path);
  const from = `a prover key of --trust-root ${quoteForTerminal(path)}`;
  const provers = trustRoot.keys.filter((k) => k.role === "prover");
  refuseProverKey(provers.map((k) => ({ publicKey: k.publicKey, from })), o.uses);
  const time = o.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const { refusal } = judgeSigningKeys(o.keys.map((k) => k.publicKey), { trustRoot, time });
  if (refusal === null) return trustRoot;
  const keyFiles = o.uses.filter((u) => u.option === "--key");
  const paths = keyFiles.map((u) => quoteForTerminal(u.path)).join(", ");
  throw new InputError(
    "SIGNING_KEY_REFUSED",
    `Cannot sign a verdict with --key ${paths}: check with --trust-root ` +
      `${quoteForTerminal(path)} would count, at ${time}, ${refusal}`,
  );
}

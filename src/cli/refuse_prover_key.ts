/**
 * Keys a command refuses for the role it would give them: the prover's key never signs or
 * computes the audit of its own claims (`check` fails a verdict whose signer or worker is a
 * prover key of the reader's trust root, after the work is done), and a worker is never given
 * the key that signed the plan it works on (the inspector's, which would then lie on every
 * worker machine). Public keys are compared, not paths: a copy or a link of a key file is the
 * same key.
 *
 * @module
 */
import type { AuditPlan, PlanEvidence } from "../verify/mod.ts";
import { decodePublicKeyPem, keyId } from "../attest/mod.ts";
import { UsageError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";

/** A key a command was given, and the option and file it came from (for messages). */
export interface KeyInUse {
  /** 32-byte Ed25519 public key (of the private key given, or read from a `.pub` file). */
  readonly publicKey: Uint8Array;
  /** The option that named it, e.g. `--key`, `--worker-key`, `--worker-pub`. */
  readonly option: string;
  /** The file it was read from. */
  readonly path: string;
}

/** A prover's public key, and where it came from (for messages). */
export interface ProverKey {
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** Where it came from, e.g. `--prover-pub 'prover.pub'`, `the plan's prover key`. */
  readonly from: string;
}

/**
 * Refuses any of `keys` that is a prover's key, in one pass over both lists (each key's id
 * computed once): the first of `provers` that a key in use is, and the first such key.
 *
 * @param provers the prover's keys (one, or each a trust root lists as a prover's)
 * @param keys the keys the command signs or computes with
 * @throws {UsageError} `USAGE_KEYS` naming the option, the file and the key id
 * @example
 * ```ts
 * import { refuseProverKey } from "./refuse_prover_key.ts";
 * const prover = { publicKey: new Uint8Array(32).fill(1), from: "--prover-pub 'p.pub'" };
 * refuseProverKey([prover], [{ publicKey: new Uint8Array(32), option: "--key", path: "i.key" }]);
 * ```
 */
export function refuseProverKey(
  provers: readonly ProverKey[],
  keys: readonly KeyInUse[],
): void {
  const used = new Map<string, KeyInUse>();
  for (const k of keys) {
    const id = keyId(k.publicKey);
    if (!used.has(id)) used.set(id, k);
  }
  for (const prover of provers) {
    const id = keyId(prover.publicKey);
    const key = used.get(id);
    if (key === undefined) continue;
    throw new UsageError(
      "USAGE_KEYS",
      `Cannot use ${key.option} ${quoteForTerminal(key.path)}: it is the prover's key ` +
        `${id.slice(0, 16)}… (${prover.from}), and the prover may not sign or compute the audit ` +
        "of its own claims (check fails such a verdict)",
    );
  }
}

/**
 * Refuses any of `keys` that is the prover's key the trust evidence carries (a plan's, or the
 * `--prover-pub` read with it), before anything is verified, computed or written.
 *
 * @param evidence the trust evidence (its `proverPub` PEM; absent: nothing to refuse)
 * @param o `uses`, the keys the command signs or computes with; `from`, where the prover's key
 *   came from, for messages (default: "the plan's prover key")
 * @throws {UsageError} `USAGE_KEYS` as {@link refuseProverKey}
 * @throws {InputError} `BAD_PEM` or `BAD_KEY` for a `proverPub` that is no Ed25519 SPKI PEM
 * @example
 * ```ts
 * import { refuseEvidenceProverKey } from "./refuse_prover_key.ts";
 * import { encodePublicKeyPem } from "../attest/mod.ts";
 * const proverPub = encodePublicKeyPem(new Uint8Array(32).fill(1));
 * const key = { publicKey: new Uint8Array(32).fill(1), option: "--key", path: "w.key" };
 * refuseEvidenceProverKey({}, { uses: [key] }); // no prover key: nothing to refuse
 * try {
 *   refuseEvidenceProverKey({ proverPub }, { uses: [key] });
 *   throw new Error("not refused");
 * } catch (e) {
 *   if (!String(e).includes("(the plan's prover key)")) throw e;
 * }
 * ```
 */
export function refuseEvidenceProverKey(
  evidence: Pick<PlanEvidence, "proverPub">,
  o: { readonly uses: readonly KeyInUse[]; readonly from?: string | undefined },
): void {
  if (evidence.proverPub === undefined) return;
  const publicKey = decodePublicKeyPem(evidence.proverPub);
  refuseProverKey([{ publicKey, from: o.from ?? "the plan's prover key" }], o.uses);
}

/**
 * Refuses a worker key that signed the plan: a plan is signed by the inspector, and a worker's
 * key is its own, never the inspector's.
 *
 * @param plan the plan (its `signatures`, by key id)
 * @param o the worker's key, and `where`: the plan file, for messages
 * @throws {UsageError} `USAGE_KEYS` naming the option, the file and the key id
 * @example
 * ```ts ignore
 * refusePlanSigner(plan, { key: { publicKey, option: "--key", path: "worker.key" }, where });
 * ```
 */
export function refusePlanSigner(
  plan: AuditPlan,
  o: { readonly key: KeyInUse; readonly where: string },
): void {
  const id = keyId(o.key.publicKey);
  if (!plan.signatures.some((s) => s.keyid === id)) return;
  throw new UsageError(
    "USAGE_KEYS",
    `Cannot use ${o.key.option} ${quoteForTerminal(o.key.path)}: its key ${id.slice(0, 16)}… ` +
      `signed the plan ${quoteForTerminal(o.where)}, and a worker's key is never the ` +
      "inspector's (give the worker a key of its own: bitaudit key generate)",
  );
}

/**
 * Pairs keys read from files with the option and files that named them, in order.
 *
 * @param publicKeys 32-byte public keys, one a file
 * @param o the `option` and its `paths`, as many as the keys
 * @returns the keys in use
 * @example
 * ```ts
 * import { keysInUse } from "./refuse_prover_key.ts";
 * const [k] = keysInUse([new Uint8Array(32)], { option: "--key", paths: ["i.key"] });
 * if (k?.path !== "i.key") throw new Error();
 * ```
 */
export function keysInUse(
  publicKeys: readonly Uint8Array[],
  o: { readonly option: string; readonly paths: readonly string[] },
): KeyInUse[] {
  return publicKeys.map((publicKey, i) => ({ publicKey, option: o.option, path: o.paths[i]! }));
}

/**
 * Refuses a key given twice among `keys` (a copy or a link of a file included): once is enough,
 * and a key given for two roles (`--pub` and `--prover` of a trust root) would have both.
 *
 * @param keys the keys, in the order given
 * @throws {UsageError} `USAGE_KEYS` naming both options and files and the key id
 * @example
 * ```ts
 * import { refuseRepeatedKeys } from "./refuse_prover_key.ts";
 * refuseRepeatedKeys([
 *   { publicKey: new Uint8Array(32), option: "--pub", path: "i.pub" },
 *   { publicKey: new Uint8Array(32).fill(1), option: "--prover", path: "p.pub" },
 * ]);
 * ```
 */
export function refuseRepeatedKeys(keys: readonly KeyInUse[]): void {
  const seen = new Map<string, KeyInUse>();
  for (const key of keys) {
    const id = keyId(key.publicKey);
    const first = seen.get(id);
    seen.set(id, first ?? key);
    if (first === undefined) continue;
    const given = `${first.option} ${quoteForTerminal(first.path)}`;
    throw new UsageError(
      "USAGE_KEYS",
      `Cannot use ${key.option} ${quoteForTerminal(key.path)}: its key ${id.slice(0, 16)}… is ` +
        (first.option === key.option
          ? `given twice (${given} holds it too)`
          : `given as ${given} too, and a key has one role: an inspector key is never a ` +
            "prover's (give the prover a key of its own)"),
    );
  }
}

/**
 * An inspector's key never doubles as a worker key. The key that signs a plan (and the verdict)
 * stays on the inspector's machine; a worker key lies on every worker machine, and `check` cannot
 * tell the signer's own results from a worker's under the same key (it counts them as the
 * signer's). So a command that accepts worker results, or computes them, refuses a worker key that
 * is one of the plan's signers: `audit merge` and `audit serve` a `--worker-pub` that signed the
 * plan (or is a `--key`), `bitaudit worker` each work order that names its `--key` among its plan's
 * signers (the order is handed back and the worker goes on: the order's word is not authenticated).
 * Public keys are compared by key id: a copy of a key file is the same key.
 *
 * @module
 */
import { keyId } from "../attest/mod.ts";
import { InputError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";
import type { KeyInUse } from "./refuse_prover_key.ts";

/**
 * Refuses the first of `workers` whose key id is among `signers`.
 *
 * @param signers key ids (hex SHA-256 of the SPKI) of the keys that signed the plan
 * @param o `workers`, the worker keys in use with the option and file that named each; `plan`,
 *   how the plan is named in the message (a file, or a digest), already safe for a terminal
 * @throws {InputError} `WORKER_KEY_REFUSED` naming the option, the file and the key id
 * @example
 * ```ts
 * import { refuseSignerAsWorker } from "./refuse_signer_as_worker.ts";
 * import { keyId } from "../attest/mod.ts";
 * const publicKey = new Uint8Array(32).fill(7);
 * const workers = [{ publicKey, option: "--worker-pub", path: "w.pub" }];
 * refuseSignerAsWorker(["00".repeat(32)], { workers, plan: "'plan.json'" });
 * try {
 *   refuseSignerAsWorker([keyId(publicKey)], { workers, plan: "'plan.json'" });
 *   throw new Error("not refused");
 * } catch (e) {
 *   if ((e as { code?: string }).code !== "WORKER_KEY_REFUSED") throw e;
 * }
 * ```
 */
export function refuseSignerAsWorker(
  signers: readonly string[],
  o: { readonly workers: readonly KeyInUse[]; readonly plan: string },
): void {
  const signed = new Set(signers);
  for (const w of o.workers) {
    const id = keyId(w.publicKey);
    if (!signed.has(id)) continue;
    throw new InputError(
      "WORKER_KEY_REFUSED",
      `Cannot use ${w.option} ${quoteForTerminal(w.path)}: its key ${id.slice(0, 16)}… signed ` +
        `the plan ${o.plan}, and an inspector's key never doubles as a worker key (check would ` +
        "count its results as the signer's own; give each worker a key of its own: bitaudit " +
        "key generate)",
    );
  }
}

/**
 * Signs a merged audit and writes `attestation.dsse.json` and `report.md`: the last step of every
 * audit, whether its items were recomputed in this process, by shards or by a worker pool. The
 * statement binds only what the merge decided (no per-item timing), and the time is the signing
 * time (or `--time`), so the same plan and results signed with the same key and time give the
 * same bytes.
 *
 * @module
 */
import {
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  signEnvelope,
  type SigningKey,
  statementBytes,
  verdictStatement,
} from "../attest/mod.ts";
import type { MergedAudit } from "../verify/mod.ts";
import { reportMarkdown } from "./report_markdown.ts";
import { writeNewFile } from "./write_new_file.ts";

/**
 * Signs and writes the verdict of a merged audit.
 *
 * @param merged the merged audit (report, verifier identity, asset digests)
 * @param options signing `keys`, output folder `out` (already prepared), signing `time`
 *   (RFC 3339, default now to the second)
 * @returns the paths written and the time signed
 * @throws {InputError} `OUTPUT_EXISTS` / `OUTPUT_WRITE`
 * @example
 * ```ts ignore
 * await writeVerdict(merged, { keys, out: "out" });
 * ```
 */
export async function writeVerdict(
  merged: MergedAudit,
  options: { keys: readonly SigningKey[]; out: string; time?: string | undefined },
): Promise<{ attestation: string; reportPath: string; timeVerified: string }> {
  const { report, verifier, assets } = merged;
  const timeVerified = options.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const statement = verdictStatement(report, { verifier, assets, timeVerified });
  const envelope = await signEnvelope(statementBytes(statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: options.keys,
  });
  const attestation = `${options.out}/attestation.dsse.json`;
  const reportPath = `${options.out}/report.md`;
  await writeNewFile(attestation, JSON.stringify(envelope, null, 2) + "\n");
  const keyids = options.keys.map((key) => keyId(key.publicKey));
  await writeNewFile(
    reportPath,
    reportMarkdown(report, { keyids, timeVerified, engine: verifier.engine, assets }),
  );
  return { attestation, reportPath, timeVerified };
}

/**
 * One edit of the tiny dense checkpoint's weights verified on a stated stack: the honest record
 * and its falsified twin over the re-encoded weights, each with its status and reason.
 */
import type { SafetensorsTensorInput } from "../../src/model/mod.ts";
import { honestOf } from "./_config_edit.ts";
export { VLLM_STACK } from "./_config_edit.ts";
import { honestAndFalsified } from "./_recompute_fixture.ts";
import { reencode, verifyOver, weightDigest } from "./_weight_bytes.ts";

/** An edit of a checkpoint's tensor list. */
export type WeightEdit = (t: SafetensorsTensorInput[]) => SafetensorsTensorInput[];

/**
 * The honest record's and its falsified twin's status and reason over the edited weights.
 *
 * @param stack the record's stack (`{}`: the default Transformers 4.5x one)
 * @param edit the edit of the tensors
 * @param logId the claim log's id (one per test file)
 * @returns `[who, status, reason]` for the honest record, then the falsified one
 */
export async function weightEditStatuses(
  stack: object,
  edit: WeightEdit,
  logId: string,
): Promise<[string, string, string][]> {
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId, ...stack });
  const bytes = await reencode(blobs.get(weightDigest(honest))!, { edit });
  const out: [string, string, string][] = [];
  for (const [who, p] of honestAndFalsified(honest)) {
    const r = await verifyOver(p, blobs, bytes);
    out.push([who, r.status, r.reason ?? ""]);
  }
  return out;
}

/**
 * One edit of a bundled checkpoint's weights verified on a stated stack: the honest record and
 * its falsified twin over the re-encoded weights (every shard's tensors in one file), each with
 * its status and reason.
 */
import type { ModelForwardWorkload } from "../../src/claims/mod.ts";
import {
  bytesByteSource,
  encodeSafetensors,
  openSafetensors,
  type SafetensorsTensorInput,
} from "../../src/model/mod.ts";
import { honestOf, withConfig } from "./_config_edit.ts";
export { VLLM_STACK } from "./_config_edit.ts";
import { honestAndFalsified } from "./_recompute_fixture.ts";
import { verifyOver } from "./_weight_bytes.ts";

/** An edit of a checkpoint's tensor list. */
export type WeightEdit = (t: SafetensorsTensorInput[]) => SafetensorsTensorInput[];

/**
 * The honest record's and its falsified twin's status and reason over the edited weights.
 *
 * @param stack the record's stack (`{}`: the default Transformers 4.5x one)
 * @param edit the edit of the tensors
 * @param logId the claim log's id (one per test file)
 * @param o `dir`: the bundled checkpoint's folder under `tables/models/` (default the tiny dense
 *   Qwen3); `stated`: components the records state besides the stack's (e.g. vLLM flags);
 *   `config`: an edit of the config's text the records name instead
 * @returns `[who, status, reason]` for the honest record, then the falsified one
 */
export async function weightEditStatuses(
  stack: object,
  edit: WeightEdit,
  logId: string,
  o: {
    readonly dir?: string;
    readonly stated?: Record<string, string>;
    readonly config?: (text: string) => string;
  } = {},
): Promise<[string, string, string][]> {
  const made = await honestOf(o.dir ?? "qwen3-tiny-dense", { logId, ...stack });
  const { blobs } = made;
  const sw = made.honest.software;
  const stated = o.stated === undefined
    ? made.honest
    : { ...made.honest, software: { ...sw, components: { ...sw.components, ...o.stated } } };
  const honest = o.config === undefined ? stated : withConfig(stated, blobs, o.config);
  const tensors: SafetensorsTensorInput[] = [];
  for (const digest of Object.values((honest.workload as ModelForwardWorkload).model.files)) {
    const st = await openSafetensors(bytesByteSource(blobs.get(digest)!));
    for (const t of st.header.tensors) {
      tensors.push({ name: t.name, dtype: t.dtype, shape: t.shape, data: await st.tensor(t.name) });
    }
  }
  const bytes = encodeSafetensors(edit(tensors));
  const out: [string, string, string][] = [];
  for (const [who, p] of honestAndFalsified(honest)) {
    const r = await verifyOver(p, blobs, bytes);
    out.push([who, r.status, r.reason ?? ""]);
  }
  return out;
}

/**
 * What a synthetic checkpoint's files must stay within for the checkpoint reader to open them:
 * each shard's safetensors header within `DEFAULT_MAX_HEADER_BYTES` (100 MB, the reference
 * implementation's limit too) and the index within `MAX_INDEX_JSON_BYTES`. Both are sized from the
 * tensors' names and shapes alone, before any weight is made or any file written.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { DEFAULT_MAX_HEADER_BYTES } from "../safetensors/mod.ts";
import { MAX_INDEX_JSON_BYTES } from "./open_checkpoint.ts";

/** A shard's tensors: name and shape. */
type _Group = readonly (readonly [string, readonly number[]])[];

/** `{"__metadata__":{"format":"pt"}` plus the closing brace and at most 7 padding spaces. */
const _HEADER_FRAME = 40;
/** A tensor's entry besides its name, shape and offsets (`:{"dtype":"BF16",...},`). */
const _ENTRY_FRAME = ':{"dtype":"BF16","shape":[],"data_offsets":[,]},'.length;
/** An index line besides its tensor and file names (indent, quotes, `: `, comma, newline). */
const _INDEX_LINE = 12;
/** The index's lines besides the weight map (`metadata`, `total_size`, braces). */
const _INDEX_FRAME = 100;

/**
 * Refuses a synthetic checkpoint whose shard headers or index the reader would refuse.
 *
 * @param groups each shard's tensors, in the order of `names`
 * @param names the shards' file names
 * @throws {InputError} `SYNTH_TOO_LARGE` naming the file, its size bound and the limit
 */
export function _checkSynthLimits(groups: readonly _Group[], names: readonly string[]): void {
  groups.forEach((group, i) => {
    const bytes = _headerBound(group);
    if (bytes > DEFAULT_MAX_HEADER_BYTES) {
      throw new InputError(
        "SYNTH_TOO_LARGE",
        `Cannot synthesise '${names[i]}': its safetensors header would take about ${bytes} ` +
          `bytes for ${group.length} tensors, above the readers' ${DEFAULT_MAX_HEADER_BYTES}-byte ` +
          `limit; give more shards (now ${groups.length})`,
      );
    }
  });
  if (groups.length === 1) return;
  let index = _INDEX_FRAME;
  groups.forEach((group, i) => {
    for (const [name] of group) index += name.length + names[i]!.length + _INDEX_LINE;
  });
  if (index > MAX_INDEX_JSON_BYTES) {
    const tensors = groups.reduce((a, g) => a + g.length, 0);
    throw new InputError(
      "SYNTH_TOO_LARGE",
      `Cannot synthesise 'model.safetensors.index.json': it would take about ${index} bytes ` +
        `for ${tensors} tensors, above the reader's ${MAX_INDEX_JSON_BYTES}-byte limit (one file needs ` +
        `no index; now ${groups.length} shards)`,
    );
  }
}

/**
 * Bytes a shard's header takes at most: the writer's entries (`planSafetensorsLayout`), every
 * offset given as many digits as the shard's size (names are ASCII: one byte a character).
 */
function _headerBound(group: _Group): number {
  const elements = group.reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0);
  const offset = String(2 * elements).length;
  let bytes = _HEADER_FRAME;
  for (const [name, shape] of group) {
    bytes += name.length + 2 + _ENTRY_FRAME + shape.join(",").length + 2 * offset;
  }
  return bytes;
}

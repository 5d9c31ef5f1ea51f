/**
 * Checks that the tensors of a safetensors file tile its data buffer exactly.
 *
 * The rule, as enforced by the reference implementation (huggingface/safetensors,
 * `Metadata::validate` and the `MetadataIncompleteBuffer` check): sorted by their begin offset,
 * each tensor starts exactly where the previous one ended (the first at 0), and the buffer ends
 * exactly where the last tensor ends. So there are no gaps, no overlaps and no trailing bytes,
 * and every byte of the file belongs to the length prefix, the header or exactly one tensor.
 * Zero-length tensors occupy no bytes; they may sit at any boundary between tensors (or at the
 * buffer's start or end) but not strictly inside another tensor, which counts as an overlap.
 *
 * @module
 */
import { InputError, type SafetensorsCode } from "../../errors.ts";
import type { SafetensorsEntry } from "./parse_tensor_entry.ts";

/**
 * Orders entries by their place in the buffer and checks that they tile it.
 *
 * @param entries validated entries, in any order
 * @param bufferBytes size of the data buffer (file size minus 8 minus header length)
 * @returns a new frozen array of the entries sorted by (begin, end, name)
 * @throws {InputError} `SAFETENSORS_OFFSET_RANGE` (a tensor ends past the buffer),
 *   `SAFETENSORS_OVERLAP` (a tensor starts before the previous one ended), `SAFETENSORS_GAP`
 *   (a tensor starts after the previous one ended, or the first after 0),
 *   `SAFETENSORS_TRAILING_BYTES` (bytes after the last tensor)
 * @example
 * ```ts
 * import { checkTiling } from "./check_tiling.ts";
 * import { parseTensorEntry } from "./parse_tensor_entry.ts";
 * const a = parseTensorEntry("a", { dtype: "U8", shape: [2], data_offsets: [2, 4] }, 16);
 * const b = parseTensorEntry("b", { dtype: "U8", shape: [2], data_offsets: [0, 2] }, 16);
 * const sorted = checkTiling([a, b], 4);
 * if (sorted[0]?.name !== "b") throw new Error();
 * ```
 */
export function checkTiling(
  entries: readonly SafetensorsEntry[],
  bufferBytes: number,
): readonly SafetensorsEntry[] {
  for (const e of entries) {
    const [begin, end] = e.dataOffsets;
    if (end > bufferBytes) {
      _fail(
        "SAFETENSORS_OFFSET_RANGE",
        `tensor '${e.name}' ends at ${end} (data_offsets [${begin}, ${end}]), past the ` +
          `${bufferBytes}-byte data buffer`,
      );
    }
  }
  const sorted = entries.slice().sort(_byPlace);
  let cursor = 0;
  for (const e of sorted) {
    const [begin, end] = e.dataOffsets;
    if (begin < cursor) {
      _fail(
        "SAFETENSORS_OVERLAP",
        `tensor '${e.name}' starts at ${begin}, inside bytes already used up to ${cursor}`,
      );
    }
    if (begin > cursor) {
      _fail(
        "SAFETENSORS_GAP",
        `tensor '${e.name}' starts at ${begin}, leaving bytes [${cursor}, ${begin}) unused`,
      );
    }
    cursor = end;
  }
  if (cursor !== bufferBytes) {
    _fail(
      "SAFETENSORS_TRAILING_BYTES",
      `the tensors end at ${cursor} but the data buffer holds ${bufferBytes} bytes`,
    );
  }
  return Object.freeze(sorted);
}

function _byPlace(x: SafetensorsEntry, y: SafetensorsEntry): number {
  const [xb, xe] = x.dataOffsets;
  const [yb, ye] = y.dataOffsets;
  if (xb !== yb) return xb - yb;
  if (xe !== ye) return xe - ye;
  return x.name < y.name ? -1 : x.name > y.name ? 1 : 0;
}

function _fail(code: SafetensorsCode, why: string): never {
  throw new InputError(code, `Cannot read safetensors data buffer: ${why}`);
}

/**
 * Each weight file's safetensors `__metadata__` as the loaders read it (HF Transformers refuses
 * or converts a file by its `format` entry: `weightMetadataFinding`), from the files' headers
 * alone: no tensor is read, and no config is needed, so that the finding can be made of weight
 * files whose config is not modelled.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import {
  type ByteSource,
  DEFAULT_MAX_HEADER_BYTES,
  openSafetensors,
  readExactly,
  type SafetensorsHeader,
} from "../safetensors/mod.ts";

/**
 * Each weight file's metadata, by file name: null without one, else its `format` entry (null when
 * it has none).
 */
export type WeightFormats = Readonly<Record<string, { readonly format: string | null } | null>>;

/**
 * One file's entry of {@link WeightFormats}.
 *
 * @param header the file's validated header
 * @returns null without `__metadata__`, else its `format` (null when it has none)
 * @example
 * ```ts
 * import { weightFormatOf } from "./weight_formats.ts";
 * const h = { hasMetadata: true, metadata: { format: "pt" } };
 * if (weightFormatOf(h)?.format !== "pt") throw new Error();
 * if (weightFormatOf({ hasMetadata: false, metadata: {} }) !== null) throw new Error();
 * ```
 */
export function weightFormatOf(
  header: Pick<SafetensorsHeader, "hasMetadata" | "metadata">,
): { readonly format: string | null } | null {
  return header.hasMetadata ? Object.freeze({ format: header.metadata.format ?? null }) : null;
}

/**
 * Reads the weight files' metadata from their headers (no tensor data), each header parsed as
 * `openSafetensors` does for a file it knows nothing of (its default bounds) and its departures
 * from the format kept, as the checkpoint reader keeps them.
 *
 * @param files each weight file's bytes, by name
 * @returns the files' {@link WeightFormats}, or null where a header holds more JSON values than
 *   those default bounds allow though its length is within the format's own limit (a bound of
 *   this reader's, not the format's: such a file may be a checkpoint all the same)
 * @throws {InputError} the first file's refusal (`openSafetensors`' codes), in name order: a
 *   header the format refuses, its length past the format's limit included
 * @example
 * ```ts
 * import { bytesByteSource, encodeSafetensors } from "../safetensors/mod.ts";
 * import { readWeightFormats } from "./weight_formats.ts";
 * const bytes = encodeSafetensors(
 *   [{ name: "w", dtype: "BF16", shape: [1], data: new Uint16Array([0x3f80]) }],
 *   { metadata: { format: "np" } },
 * );
 * const f = await readWeightFormats(new Map([["model.safetensors", bytesByteSource(bytes)]]));
 * if (f?.["model.safetensors"]?.format !== "np") throw new Error();
 * ```
 */
export async function readWeightFormats(
  files: ReadonlyMap<string, ByteSource>,
): Promise<WeightFormats | null> {
  const formats: [string, { readonly format: string | null } | null][] = [];
  for (const name of [...files.keys()].sort()) {
    const source = files.get(name)!;
    try {
      const st = await openSafetensors(source, { offFormat: "keep" });
      formats.push([name, weightFormatOf(st.header)]);
    } catch (e) {
      const ours = e instanceof InputError && e.code === "SAFETENSORS_HEADER_TOO_LARGE" &&
        !await _pastFormatLimit(source);
      if (!ours) throw e;
      return null;
    }
  }
  return Object.freeze(Object.fromEntries(formats));
}

/** Whether a file's header length prefix is past the format's limit (its reference reader's). */
async function _pastFormatLimit(source: ByteSource): Promise<boolean> {
  const prefix = await readExactly(source, { offset: 0, length: 8, what: "safetensors prefix" });
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  return n > BigInt(DEFAULT_MAX_HEADER_BYTES);
}

/**
 * The weights digest of a checkpoint. Rule (`bitaudit.checkpoint-digest/v1`): hash every weight
 * file (`model.safetensors`, or each shard the index names) with SHA-256 over its exact bytes; the
 * checkpoint digest is SHA-256 over the UTF-8 bytes of the JSON object
 * `{"files":{"<file name>":"<sha256>",...},"schema":"bitaudit.checkpoint-digest/v1"}` with keys
 * sorted and no whitespace (RFC 8785 canonical form: names are plain ASCII file names, values
 * lowercase hex). The index file and `config.json` are not part of it; the config has its own
 * digest (SHA-256 of the `config.json` bytes), recorded beside it in claims.
 *
 * @module
 */
import { sha256Hex } from "../../sha256_hex.ts";
import type { DecoderCheckpoint } from "./open_checkpoint.ts";
import { sha256OfSource, type Sha256Stream } from "./sha256_of_source.ts";

/** A checkpoint's weights digest and the digests of its files. */
export interface CheckpointDigest {
  /** The digest over the file digests (see the module rule). */
  readonly sha256: string;
  /** SHA-256 of each weight file, by name. */
  readonly files: Readonly<Record<string, string>>;
}

/** Schema tag inside the hashed object. */
export const CHECKPOINT_DIGEST_SCHEMA = "bitaudit.checkpoint-digest/v1";

/**
 * The digest of a set of file digests.
 *
 * @param files file name -> SHA-256 hex
 * @returns lowercase hex SHA-256
 * @example
 * ```ts
 * import { digestOfFiles } from "./checkpoint_digest.ts";
 * const a = digestOfFiles({ "b.safetensors": "00", "a.safetensors": "11" });
 * if (a !== digestOfFiles({ "a.safetensors": "11", "b.safetensors": "00" })) throw new Error();
 * ```
 */
export function digestOfFiles(files: Readonly<Record<string, string>>): string {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(files).sort()) sorted[k] = files[k]!;
  const text = JSON.stringify({ files: sorted, schema: CHECKPOINT_DIGEST_SCHEMA });
  return sha256Hex(new TextEncoder().encode(text));
}

/**
 * Hashes every weight file of a checkpoint (streamed) and combines the digests.
 *
 * @param checkpoint an opened checkpoint
 * @param options `hasher`: makes the incremental SHA-256 of each file (default the portable one;
 *   the CLI passes the runtime's native SHA-256, about 6x faster on multi-GB weights)
 * @returns the digest and the file digests
 * @example
 * ```ts ignore
 * const { sha256 } = await checkpointDigest(ckpt);
 * ```
 */
export async function checkpointDigest(
  checkpoint: DecoderCheckpoint,
  options: { readonly hasher?: () => Sha256Stream } = {},
): Promise<CheckpointDigest> {
  const files: Record<string, string> = {};
  for (const name of checkpoint.files) {
    files[name] = await sha256OfSource(checkpoint.file(name), options);
  }
  return Object.freeze({ sha256: digestOfFiles(files), files: Object.freeze(files) });
}

/**
 * Edits of a record's weight file for the hostile checkpoint tests: the tensors re-encoded (with
 * other metadata or other tensors), the header text edited, and the record moved onto the new
 * bytes.
 */
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import {
  bytesByteSource,
  digestOfFiles,
  encodeSafetensors,
  openSafetensors,
  type SafetensorsTensorInput,
} from "../../src/model/mod.ts";
import { type Blobs, commit } from "./_recompute_fixture.ts";

/**
 * The weights re-encoded with this metadata (undefined: none), their tensors passed through
 * `edit` first.
 */
export async function reencode(
  bytes: Uint8Array,
  o: {
    readonly metadata?: Record<string, string>;
    readonly edit?: (tensors: SafetensorsTensorInput[]) => SafetensorsTensorInput[];
  } = {},
): Promise<Uint8Array> {
  const st = await openSafetensors(bytesByteSource(bytes));
  const tensors: SafetensorsTensorInput[] = await Promise.all(st.header.tensors.map(async (t) => ({
    name: t.name,
    dtype: t.dtype,
    shape: t.shape,
    data: await st.tensor(t.name),
  })));
  const out = o.edit === undefined ? tensors : o.edit(tensors);
  return encodeSafetensors(out, o.metadata === undefined ? {} : { metadata: o.metadata });
}

/** The weights with their header text edited (padded to 8 bytes again, with spaces). */
export function withHeader(bytes: Uint8Array, edit: (header: string) => string): Uint8Array {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  let text = edit(new TextDecoder().decode(bytes.subarray(8, 8 + n)).trimEnd());
  text += " ".repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  out.set(bytes.subarray(8 + n), 8 + text.length);
  return out;
}

/** A record of `predicate` over these weight bytes (committed to `blobs`). */
export function over(predicate: ClaimPredicate, blobs: Blobs, bytes: Uint8Array): ClaimPredicate {
  const pw = predicate.workload as ModelForwardWorkload;
  const files = { "model.safetensors": commit(blobs, bytes) };
  const model = { ...pw.model, files, checkpointSha256: digestOfFiles(files) };
  return { ...predicate, workload: { ...pw, model } };
}

/** The one weight file's digest of a record. */
export function weightDigest(predicate: ClaimPredicate): string {
  const files = (predicate.workload as ModelForwardWorkload).model.files;
  return Object.values(files)[0]!;
}

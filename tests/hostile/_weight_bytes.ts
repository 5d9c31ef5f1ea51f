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
import { BF16, convert, FP16 } from "../../src/numerics/mod.ts";
import type { RecordResult } from "../../src/verify/mod.ts";
import { type Blobs, commit, verifyAlone } from "./_recompute_fixture.ts";

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

/**
 * An edit storing one tensor's BF16 patterns as F32, each with these low 16 bits (0: the exact
 * value, as a writer keeping the tensor in F32 stores it).
 */
export function asF32(
  name: string,
  low: (bf16: number) => number,
): (tensors: SafetensorsTensorInput[]) => SafetensorsTensorInput[] {
  return (tensors) =>
    tensors.map((t) => {
      if (t.name !== name) return t;
      const bf16 = new Uint16Array((t.data as Uint8Array).slice().buffer);
      const data = Uint32Array.from(bf16, (b) => ((b << 16) | low(b)) >>> 0);
      return { name: t.name, dtype: "F32", shape: t.shape, data };
    });
}

/**
 * An edit storing one tensor's BF16 values as F16, exactly (it throws for a value F16 cannot
 * hold), as a writer keeping the tensor in F16 stores it.
 */
export function asF16(
  name: string,
): (tensors: SafetensorsTensorInput[]) => SafetensorsTensorInput[] {
  return (tensors) =>
    tensors.map((t) => {
      if (t.name !== name) return t;
      const bf16 = new Uint16Array((t.data as Uint8Array).slice().buffer);
      const data = Uint16Array.from(bf16, (b) => {
        const h = convert(BF16, FP16, b);
        if (convert(FP16, BF16, h) !== b) {
          throw new RangeError(`F16 cannot hold 0x${b.toString(16)}`);
        }
        return h;
      });
      return { name: t.name, dtype: "F16", shape: t.shape, data };
    });
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

/**
 * Verifies `predicate` moved onto these weight bytes (`over`), committed to a copy of `blobs`.
 *
 * @param predicate the record's predicate
 * @param blobs the blobs the record names (left as they are)
 * @param bytes the weight file's new bytes
 */
export async function verifyOver(
  predicate: ClaimPredicate,
  blobs: ReadonlyMap<string, Uint8Array>,
  bytes: Uint8Array,
): Promise<RecordResult> {
  const copy: Blobs = new Map(blobs);
  return await verifyAlone(over(predicate, copy, bytes), copy);
}

/** The one weight file's digest of a record. */
export function weightDigest(predicate: ClaimPredicate): string {
  const files = (predicate.workload as ModelForwardWorkload).model.files;
  return Object.values(files)[0]!;
}

/**
 * Fingerprints of a forward pass: SHA-256 over the little-endian BF16 bytes of chosen rows of a
 * hidden state, and the per-layer hash chain that localises a mismatch.
 *
 * Rules (`bitaudit.model-fingerprint/v1`):
 * - fingerprint = SHA-256(rows of the final-norm output at the claimed positions, in claim order,
 *   each row `hidden` BF16 values, little-endian bytes, concatenated);
 * - chain: d_0 = 32 zero bytes; for each layer i and stage s in (attention, mlp):
 *   d = SHA-256(d_prev || the stage's block output rows at the same positions), giving one
 *   digest per (layer, stage); a mismatch first appears at the first diverging stage.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/**
 * The little-endian bytes of chosen rows of a BF16 matrix.
 *
 * @param x BF16 patterns [rows, width]
 * @param o `rows` (indices into x, in output order) and `width`
 * @returns 2 * rows.length * width bytes
 * @example
 * ```ts
 * import { rowBytes } from "./fingerprint.ts";
 * const b = rowBytes(new Uint16Array([1, 2, 0x3f80, 4]), { rows: [1], width: 2 });
 * if (b.join() !== "128,63,4,0") throw new Error();
 * ```
 */
export function rowBytes(
  x: Uint16Array,
  o: { readonly rows: ArrayLike<number>; readonly width: number },
): Uint8Array {
  const { rows, width } = o;
  const out = new Uint8Array(rows.length * width * 2);
  for (let i = 0; i < rows.length; i++) {
    const base = rows[i]! * width;
    for (let j = 0; j < width; j++) {
      const v = x[base + j]!;
      out[2 * (i * width + j)] = v & 0xff;
      out[2 * (i * width + j) + 1] = v >>> 8;
    }
  }
  return out;
}

/**
 * SHA-256 of bytes as lowercase hex.
 *
 * @param bytes input
 * @returns hex digest
 * @example
 * ```ts
 * import { fingerprintOf } from "./fingerprint.ts";
 * if (fingerprintOf(new Uint8Array(0)).slice(0, 8) !== "e3b0c442") throw new Error();
 * ```
 */
export function fingerprintOf(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/**
 * One link of the layer chain.
 *
 * @param prev previous digest (hex), or null for the first
 * @param bytes the stage's row bytes
 * @returns the new digest (hex)
 * @example
 * ```ts
 * import { chainLink } from "./fingerprint.ts";
 * const a = chainLink(null, new Uint8Array([1]));
 * if (chainLink(a, new Uint8Array([1])) === a) throw new Error();
 * ```
 */
export function chainLink(prev: string | null, bytes: Uint8Array): string {
  const msg = new Uint8Array(32 + bytes.length);
  if (prev !== null) {
    for (let i = 0; i < 32; i++) msg[i] = parseInt(prev.slice(2 * i, 2 * i + 2), 16);
  }
  msg.set(bytes, 32);
  return bytesToHex(sha256(msg));
}

/**
 * Deterministic synthetic bf16 tensors for simulated provers and demos: values drawn from a
 * SHA-256 counter stream, so anyone can regenerate the exact bytes from the seed.
 *
 * Element i of stream `label` uses bytes of SHA-256(seed || 0x00 || label || 0x00 || u32be(block));
 * each element takes 4 bytes r: sign = r bit 31, exponent = 127 + (r >>> 16) % (span) - span + 1
 * (values in roughly [2^-(span-1), 2)), fraction = r & 0x7F.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * Generates `count` bf16 patterns.
 *
 * @param seed scenario seed text
 * @param options `label` of the stream, `count` of elements, `span` of binades (default 8)
 * @returns bf16 patterns
 * @example
 * ```ts
 * import { synthBf16 } from "./synth_tensor.ts";
 * const x = synthBf16("s", { label: "w", count: 4 });
 * if (x.length !== 4 || synthBf16("s", { label: "w", count: 4 })[3] !== x[3]) throw new Error();
 * ```
 */
export function synthBf16(
  seed: string,
  options: { label: string; count: number; span?: number },
): Uint16Array {
  const span = options.span ?? 8;
  const out = new Uint16Array(options.count);
  const enc = new TextEncoder();
  const prefix = enc.encode(`${seed}\u0000${options.label}\u0000`);
  const msg = new Uint8Array(prefix.length + 4);
  msg.set(prefix);
  const view = new DataView(msg.buffer);
  for (let block = 0; block * 8 < out.length; block++) {
    view.setUint32(prefix.length, block);
    const h = new DataView(sha256(msg).buffer);
    for (let j = 0; j < 8 && block * 8 + j < out.length; j++) {
      const r = h.getUint32(j * 4);
      const exp = 127 + ((r >>> 16) % span) - span + 1;
      out[block * 8 + j] = ((r >>> 31) << 15) | (exp << 7) | (r & 0x7f);
    }
  }
  return out;
}

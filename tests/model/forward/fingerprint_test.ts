/**
 * The forward's fingerprint and layer chain against their stated rules
 * (`bitaudit.model-fingerprint/v1`, `src/model/forward/fingerprint.ts`; the record's
 * `fingerprint` of `docs/prover.md`), hashed here with WebCrypto's SHA-256 rather than the
 * module's: the fingerprint is SHA-256 of the final-norm rows at the claimed positions, in claim
 * order, as little-endian BF16 bytes; each chain link is SHA-256 of the previous digest (32 zero
 * bytes before the first) followed by the stage's rows.
 */
import assert from "node:assert/strict";
import { runPrefillForward } from "../../../src/model/mod.ts";
import { chainLink } from "../../../src/model/forward/fingerprint.ts";
import { checkpoint, forwardRuntime, GQA_DENSE } from "./_forward_fixture.ts";

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Little-endian bytes of BF16 patterns, written byte by byte. */
function leBytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    out[2 * i] = values[i]! % 256;
    out[2 * i + 1] = Math.floor(values[i]! / 256);
  }
  return out;
}

Deno.test("runPrefillForward(): the fingerprint is SHA-256 of the final-norm rows at the claimed positions, in claim order, little-endian", async () => {
  const ckpt = await checkpoint(GQA_DENSE);
  const sequences = [[1, 5, 9, 33, 2], [60, 2, 8]];
  // Claim order differs from row order; one position is not a sequence's last token.
  const positions = [{ seq: 1, pos: 2 }, { seq: 0, pos: 1 }, { seq: 0, pos: 4 }];
  const r = await runPrefillForward(ckpt, {
    sequences,
    runtime: forwardRuntime(),
    multiProcessorCount: 108,
    padTokenId: 0,
    positions,
  });
  if (!r.supported) throw new Error(r.reason);
  const h = ckpt.config.hidden;
  const { hidden, layout } = r.result;
  const rows = positions.flatMap(({ seq, pos }) => {
    const row = layout.cuSeqlens[seq]! + pos;
    return Array.from(hidden.subarray(row * h, (row + 1) * h));
  });
  // The rows hold values (a hash of zeros would show little).
  assert.ok(rows.some((v) => v !== 0 && v !== 0x8000));
  assert.equal(r.result.fingerprint, await sha256Hex(leBytes(rows)));
});

Deno.test("chainLink(): SHA-256 of the previous digest's 32 bytes (zeros before the first link) and the stage's bytes", async () => {
  const rows = leBytes([0x3f80, 0x0102, 0xc0a0, 0x0000, 0x7f7f]);
  const first = chainLink(null, rows);
  assert.equal(first, await sha256Hex(new Uint8Array([...new Uint8Array(32), ...rows])));
  const prev = new Uint8Array(32).map((_, i) => (i * 37 + 11) % 256);
  const prevHex = Array.from(prev, (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(chainLink(prevHex, rows), await sha256Hex(new Uint8Array([...prev, ...rows])));
  assert.notEqual(chainLink(prevHex, rows), first);
});

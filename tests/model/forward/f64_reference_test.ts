/**
 * The bit-exact forward against an independent float64 forward (`_f64_reference.ts`).
 *
 * Tolerance (stated): at every real token, the relative L2 error of the final-norm row,
 * ||emulated - reference|| / ||reference||, is at most 0.06. Observed on these checkpoints:
 * 0.025 (dense) and 0.022 (MoE): each BF16 rounding adds up to 2^-9 relative error and a
 * two-layer pass has some dozens of them on the residual stream, amplified by the large RMSNorm
 * channels. Every injected wiring mistake (interleaved RoPE, modulo GQA mapping, no QK-norm, no
 * top-k renormalisation) gives 0.13 or more, so the bound separates wiring from rounding.
 *
 * @module
 */
import assert from "node:assert/strict";
import { runPrefillForward } from "../../../src/model/mod.ts";
import { referenceForward, type ReferenceMistakes } from "./_f64_reference.ts";
import {
  checkpoint,
  forwardRuntime,
  forwardStack,
  GQA_DENSE,
  GQA_MOE,
} from "./_forward_fixture.ts";

const TOLERANCE = 0.06;
const SEQS = [[1, 5, 9, 33, 2, 7, 63, 0, 12, 40, 41, 3], [60, 2, 8, 30, 31]];

const _u32 = new Uint32Array(1);
const _f32 = new Float32Array(_u32.buffer);
const bf = (b: number) => {
  _u32[0] = (b << 16) >>> 0;
  return _f32[0]!;
};

/** Largest per-token relative L2 error of the emulated hidden state against the reference. */
function worstRelL2(hidden: Uint16Array, ref: Float64Array[], width: number): number {
  let worst = 0;
  let row = 0;
  for (const seq of ref) {
    for (let t = 0; t < seq.length / width; t++, row++) {
      let err = 0, norm = 0;
      for (let i = 0; i < width; i++) {
        const b = seq[t * width + i]!;
        err += (bf(hidden[row * width + i]!) - b) ** 2;
        norm += b * b;
      }
      worst = Math.max(worst, Math.sqrt(err / norm));
    }
  }
  return worst;
}

async function check(
  config: object,
  mistakes: ReferenceMistakes[],
  attention = "fa2-dao-fastmath",
): Promise<void> {
  const ckpt = await checkpoint(config);
  const r = await runPrefillForward(ckpt, {
    sequences: SEQS,
    runtime: forwardRuntime({ stack: forwardStack({ attention }) }),
    multiProcessorCount: 108,
    padTokenId: 0,
  });
  if (!r.supported) throw new Error(r.reason);
  const h = ckpt.config.hidden;
  const honest = worstRelL2(r.result.hidden, await referenceForward(ckpt, SEQS), h);
  assert.ok(honest <= TOLERANCE, `${ckpt.config.modelType}: ${honest} above ${TOLERANCE}`);
  for (const m of mistakes) {
    const wrong = worstRelL2(r.result.hidden, await referenceForward(ckpt, SEQS, m), h);
    assert.ok(wrong > 2 * TOLERANCE, `${JSON.stringify(m)} stays within ${wrong}`);
  }
}

Deno.test("runPrefillForward() agrees with the float64 reference at every token of a dense model", async () => {
  await check(GQA_DENSE, [{ ropeInterleaved: true }, { gqaModulo: true }, { noQkNorm: true }]);
});

Deno.test("runPrefillForward() agrees with the float64 reference at every token of a MoE model", async () => {
  await check(GQA_MOE, [{ noTopkRenorm: true }, { gqaModulo: true }]);
});

Deno.test("runPrefillForward() with eager attention on a padded batch agrees with the float64 reference", async () => {
  await check(GQA_DENSE, [{ gqaModulo: true }], "eager");
  await check(GQA_MOE, [], "eager");
});

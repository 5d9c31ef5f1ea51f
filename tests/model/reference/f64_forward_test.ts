/**
 * The float64 reference (`f64_forward.ts`) against the bit-exact Qwen3 emulator
 * (`runPrefillForward`), on the bundled tiny checkpoints (`tables/models/qwen3-tiny-dense`,
 * `qwen3-tiny-moe`, run with `referenceKWalker`) and on synthesised GQA checkpoints
 * (`synth_weights.ts`, 4 query heads over 2 KV heads, run with the bundled wasm engine, which
 * gives the reference walk's bits). Both are 2-layer models; every position of a 16-token prefill
 * is compared.
 *
 * Tolerance (stated): per token, `max_i (|e_i - r_i| / |w_i|) / rms(r / w)` <= 2^-3, with `w`
 * the final norm's weight (`withinTolerance` with `normWeight`): the error of the normalised
 * hidden state `x_hat` (RMS 1) in units of its RMS. Why so wide, and why normalised units:
 * - BF16 keeps 8 significant bits (unit roundoff u = 2^-9). The emulated pass rounds to BF16 at
 *   every HF cast: projections, q/k norms, cos/sin, attention probabilities and output, residual
 *   adds, MLP activations, and twice in each RMSNorm (`x_hat.to(bf16)`, then `weight * x_hat`).
 *   The last norm alone puts up to 2u * |x_hat_i| on an element; a 4-sigma element gets 8u =
 *   2^-6 of the RMS before any upstream error. The residual stream then carries the errors of
 *   two attention and two MLP blocks, each several u of its (larger) summands.
 * - Observed (honest, this file's 16 tokens): 0.053 on both bundled checkpoints (0.071 on a
 *   40-token prefill), 0.029..0.032 on the synthesised ones, i.e. 15u..36u; 2^-3 = 64u leaves
 *   1.75x headroom.
 * - Row-RMS units without dividing by `w` (the first suggestion, 2^-6) fail on the
 *   bundled checkpoints for a reason unrelated to wiring: their final norm weights reach 32.5,
 *   so one element is ~26x the row's RMS and its BF16 half-ulp alone is 0.05 of the RMS
 *   (observed 0.21 here, up to 0.59 on 40 tokens). The synthesised weights (0.75..1.25) give
 *   0.031..0.032 either way, so even there 2^-6 is below the noise of the last RMSNorm.
 * Wrong wirings land far outside (normalised units): no QK-norm 1.83..3.63, the default theta
 * 10000 instead of 1e6 1.05..2.80, the bundled MoE without `norm_topk_prob` 0.91. (The
 * synthesised MoE shows `norm_topk_prob` only at 0.14, its experts being small next to the
 * residual stream, so that mistake is checked on the bundled MoE only.) Routing: the closest
 * call is a probability gap of 6.6e-4 between the 2nd and 3rd expert (bundled MoE; 1.1e-2
 * synthesised); a flipped expert would show as a large error at its token, and the failure
 * message names the smallest margin.
 *
 * @module
 */
import assert from "node:assert/strict";
import { checkpointDir } from "../../../src/assets/mod.ts";
import { referenceKWalker } from "../../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  type DecoderCheckpoint,
  encodeSafetensors,
  openDecoderCheckpoint,
  runPrefillForward,
} from "../../../src/model/mod.ts";
import { memFiles } from "../checkpoint/_checkpoint_fixture.ts";
import { forwardRuntime } from "../forward/_forward_fixture.ts";
import { referenceForward as otherReference } from "../forward/_f64_reference.ts";
import { bf16ToF64 } from "./bf16_f64.ts";
import { type FamilySpec, familySpec } from "./family_f64.ts";
import { familyTensorShapes } from "./family_tensors.ts";
import { referenceForward, type TensorReader } from "./f64_forward.ts";
import { synthFamilyWeights, tensorReader } from "./synth_weights.ts";
import { rowErrors, withinTolerance } from "./within_tolerance.ts";

const TOLERANCE = 2 ** -3;
const TOKENS = [1, 5, 9, 33, 2, 7, 63, 0, 12, 40, 41, 3, 30, 51, 18, 27];
const NO_QK_NORM = { adjust: (s: FamilySpec): FamilySpec => ({ ...s, qkNorm: false }) };

interface Run {
  readonly config: Record<string, unknown>;
  readonly read: TensorReader;
  readonly emulated: Uint16Array;
  readonly ckpt: DecoderCheckpoint;
}

async function emulate(ckpt: DecoderCheckpoint, runtime: BlockRuntime): Promise<Uint16Array> {
  const r = await runPrefillForward(ckpt, {
    sequences: [TOKENS],
    runtime,
    multiProcessorCount: 108,
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result.hidden;
}

/** Opens a bundled checkpoint, reads every tensor the reference names, runs the emulator. */
async function bundled(name: string, check: (run: Run) => Promise<void>): Promise<void> {
  const dir = new URL(`../../../tables/models/${name}`, import.meta.url).pathname;
  const config = JSON.parse(await Deno.readTextFile(`${dir}/config.json`));
  using files = await checkpointDir(dir);
  const ckpt = await openDecoderCheckpoint(files);
  const tensors = new Map<string, Float64Array>();
  for (const { name } of familyTensorShapes(familySpec(config))) {
    tensors.set(name, bf16ToF64(await ckpt.tensor(name)));
  }
  const emulated = await emulate(ckpt, { ...forwardRuntime(), walker: referenceKWalker });
  await check({ config, read: (n) => tensors.get(n)!, emulated, ckpt });
}

/** A synthesised checkpoint of a config, opened by the emulator, and its emulated run. */
async function synthesised(config: Record<string, unknown>): Promise<Run> {
  const tensors = synthFamilyWeights(config, { seed: "f64-forward-test" });
  const dir = new Map<string, Uint8Array>([
    ["config.json", new TextEncoder().encode(JSON.stringify(config))],
    ["model.safetensors", encodeSafetensors(tensors)],
  ]);
  const ckpt = await openDecoderCheckpoint(memFiles(dir));
  return {
    config,
    read: tensorReader(tensors),
    emulated: await emulate(ckpt, forwardRuntime()),
    ckpt,
  };
}

/** The run's error against the reference of `config` (default the run's own), normalised units. */
function error(
  run: Run,
  o: { config?: Record<string, unknown>; adjust?: (s: FamilySpec) => FamilySpec } = {},
): number {
  const ref = referenceForward(o.config ?? run.config, run.read, TOKENS, o);
  const h = run.config.hidden_size as number;
  return withinTolerance(run.emulated, ref, h, { normWeight: run.read("model.norm.weight") });
}

function assertHonest(run: Run): void {
  let margin = Infinity;
  const ref = referenceForward(run.config, run.read, TOKENS, {
    onRoute: (_l, _t, r) => (margin = Math.min(margin, r.margin)),
  });
  const h = run.config.hidden_size as number;
  const e = rowErrors(run.emulated, {
    reference: ref,
    hidden: h,
    normWeight: run.read("model.norm.weight"),
  });
  e.forEach((v, t) =>
    assert.ok(
      v <= TOLERANCE,
      `position ${t}: ${v} above ${TOLERANCE} (min routing margin ${margin})`,
    )
  );
}

function assertCaught(run: Run, label: string, wrong: Parameters<typeof error>[1]): void {
  const e = error(run, wrong);
  assert.ok(e > 2 * TOLERANCE, `${label}: ${e} is not above ${2 * TOLERANCE}`);
}

Deno.test("referenceForward() agrees with the emulated qwen3-tiny-dense at every position, and wrong wirings do not", async () => {
  await bundled("qwen3-tiny-dense", async (run) => {
    assertHonest(run);
    assertCaught(run, "no QK-norm", NO_QK_NORM);
    assertCaught(run, "rope_theta 10000", { config: { ...run.config, rope_theta: 10000 } });
    // An independent float64 forward (tests/model/forward/_f64_reference.ts) gives the same values.
    const other = (await otherReference(run.ckpt, [TOKENS]))[0]!;
    const mine = referenceForward(run.config, run.read, TOKENS);
    assert.ok(mine.every((v, i) => Math.abs(v - other[i]!) <= 1e-10 * (1 + Math.abs(v))));
  });
});

Deno.test("referenceForward() agrees with the emulated qwen3-tiny-moe at every position, and wrong wirings do not", async () => {
  await bundled("qwen3-tiny-moe", async (run) => {
    assertHonest(run);
    assertCaught(run, "no QK-norm", NO_QK_NORM);
    assertCaught(run, "rope_theta 10000", { config: { ...run.config, rope_theta: 10000 } });
    assertCaught(run, "norm_topk_prob false", { config: { ...run.config, norm_topk_prob: false } });
    const other = (await otherReference(run.ckpt, [TOKENS]))[0]!;
    const mine = referenceForward(run.config, run.read, TOKENS);
    assert.ok(mine.every((v, i) => Math.abs(v - other[i]!) <= 1e-10 * (1 + Math.abs(v))));
  });
});

const GQA_QWEN3 = Object.freeze({
  model_type: "qwen3",
  vocab_size: 64,
  hidden_size: 256,
  intermediate_size: 768,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 128,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
});

Deno.test("referenceForward() agrees with the emulator on synthesised GQA Qwen3 and Qwen3-MoE checkpoints", async () => {
  const dense = await synthesised(GQA_QWEN3);
  assertHonest(dense);
  assertCaught(dense, "no QK-norm", NO_QK_NORM);
  assertCaught(dense, "rope_theta 10000", { config: { ...GQA_QWEN3, rope_theta: 10000 } });
  const moeConfig = {
    ...GQA_QWEN3,
    model_type: "qwen3_moe",
    num_experts: 8,
    num_experts_per_tok: 2,
    moe_intermediate_size: 128,
    norm_topk_prob: true,
    mlp_only_layers: [0],
    tie_word_embeddings: false,
  };
  const moe = await synthesised(moeConfig);
  assertHonest(moe);
  assertCaught(moe, "rope_theta 10000", { config: { ...moeConfig, rope_theta: 10000 } });
});

/**
 * The block branch of the per-record pipeline: resolve the projections' kernels, load the SFU
 * model the stack names, plan the block (an unmodelled backend, uncovered GEMM
 * or SFU status below the stack's minimum ends as NOT_VERIFIED with the plan's reason), fetch the
 * tensors by digest and run it.
 *
 * @module
 */
import type { AssetStore, BlobStore } from "../assets/mod.ts";
import type { BlockWorkload, ClaimPredicate } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { Fa2Forward, KWalker, StackProfile } from "../kernels/mod.ts";
import {
  checkDenseLayerShape,
  planAttentionBlock,
  planFfnBlock,
  runAttentionBlock,
  runFfnBlock,
  type SfuUse,
} from "../model/mod.ts";
import { _checkCost, _checkSize, _refusable, _Stop, _tensor16, _tensorBytes } from "./_stop.ts";
import { recordProducts } from "./record_products.ts";
import type { ComponentEvidence } from "../hardware/mod.ts";
import { _layerRuntime } from "./_layer_runtime.ts";
import { _attentionEvidence, _blockOperatorEvidence, _sfuEvidence } from "./_record_evidence.ts";
import { _checkAttentionSupport } from "./_model_support.ts";
import { _checkOutputDescription } from "./_output_description.ts";
import { _checkClaimedSmCount } from "./_claimed_sm_count.ts";
import { _checkDataParallel } from "./_claimed_parallel.ts";

/** What the block branch needs. */
export interface BlockRecomputeInput {
  readonly store: AssetStore;
  readonly blobs: BlobStore;
  readonly walker: KWalker;
  /**
   * Runs the attention core (e.g. an `Fa2Pool`'s `forward`: heads over threads, tile products on
   * the wasm engine); default `flashAttentionForward` on the calling thread with the plain
   * K-walk. Same bits either way.
   */
  readonly attention?: Fa2Forward | undefined;
  readonly predicate: ClaimPredicate;
  readonly workload: BlockWorkload;
  readonly profile: GpuProfile;
  readonly stack: StackProfile;
  /** Records a passed pipeline step. */
  readonly step: (name: string, detail: string) => void;
}

/**
 * Recomputes a block record's output.
 *
 * @param input assets, blobs, walker, the record's predicate and workload, profile, stack
 * @returns the block output (BF16) and the SFU functions it depended on
 * @throws {_Stop} NOT_VERIFIED (unmodelled configuration), FAIL (a layer shape no model can
 *   have, an output description the block does not compute) or FAIL with
 *   `obligation: "committed-input"` (a committed tensor missing, mismatching or unreadable)
 */
export async function _recomputeBlock(
  input: BlockRecomputeInput,
): Promise<{ out: Uint16Array; sfu: readonly SfuUse[]; evidence: ComponentEvidence[] }> {
  const { predicate: p, workload: w, step } = input;
  _checkOutputDescription(p.fingerprint, {
    kind: w.kind,
    dtype: "bf16",
    shape: [w.tokens, w.shape.hidden],
    what: `the ${w.kind} of ${w.tokens} tokens`,
  });
  try {
    checkDenseLayerShape(w.shape);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new _Stop("FAIL", `record contradicts itself: ${e.message}`);
  }
  // An SM count above the chip's contradicts the GPU: that FAIL comes before anything this
  // version does not model (its NOT_VERIFIED, a count the verifier cannot judge, is said below).
  if (w.attention !== undefined) {
    _refusable([], () => _checkClaimedSmCount(input.profile, w.attention!.multiProcessorCount));
  }
  // The block's contradictions are checked above: what is not modelled of its kernel or its
  // sharding is said at once.
  const refusals: string[] = [];
  const { runtime, evidence } = await _layerRuntime(
    { ...input, kernel: w.kernel, refusals },
    "blocks",
  );
  if (refusals.length > 0) throw new _Stop("NOT_VERIFIED", refusals[0]!);
  if (p.batch.size !== 1) {
    throw new _Stop(
      "NOT_VERIFIED",
      `batch of ${p.batch.size} sequences: blocks are modelled for one sequence`,
    );
  }
  _checkDataParallel(p, input.stack);
  const eps = Number(w.rmsNormEps);
  const { hidden: h, heads, kvHeads, headDim: d } = w.shape;
  const widest = Math.max(h, w.shape.intermediate, heads * d, kvHeads * d);
  _checkSize([w.tokens, widest], "activation");
  // Every tensor the record names by digest within the limit before the first is read (inv_freq,
  // [headDim / 2], is by the layer shape's bounds; `_tensorBytes` checks it again as it reads).
  _checkSize(w.input.shape, "input");
  const shapes = _weightShapes(w);
  for (const [name, shape] of Object.entries(shapes)) _checkSize(shape, `weight '${name}'`);
  _checkCost(recordProducts(w) ?? 0, `the ${w.kind} of ${w.tokens} tokens`);
  const blobs = input.blobs;
  const t16 = (name: string) =>
    _tensor16(blobs, { digest: w.weights[name]!, shape: shapes[name]!, what: `weight '${name}'` });
  const input16 = () =>
    _tensor16(blobs, { digest: w.input.sha256, shape: w.input.shape, what: "input" });
  if (w.kind === "ffn_block") {
    const planned = planFfnBlock(w.tokens, { shape: w.shape, runtime, eps });
    if (!planned.supported) throw new _Stop("NOT_VERIFIED", planned.reason);
    step("support", _supportDetail(planned.plan.sfu));
    const x = await input16();
    const weights = {
      norm: await t16("norm"),
      gate: await t16("gate"),
      up: await t16("up"),
      down: await t16("down"),
    };
    step("tensors", `input [${w.tokens},${h}] and 4 weights by digest`);
    const r = await runFfnBlock(x, { plan: planned.plan, runtime, weights });
    return {
      out: r.out,
      sfu: r.sfu,
      evidence: [
        ...evidence(),
        _blockOperatorEvidence("ffn_block", input.stack, {
          profile: input.profile,
          tokens: w.tokens,
          hidden: h,
        }),
        ..._sfuEvidence(r.sfu),
      ],
    };
  }
  _checkAttentionSupport(d, input);
  const a = w.attention!;
  const rope = "theta" in a.rope
    ? { theta: Number(a.rope.theta) }
    : { invFreq: await _invFreq(blobs, a.rope.invFreqSha256, d / 2) };
  const planned = planAttentionBlock(w.tokens, {
    shape: w.shape,
    runtime,
    rope,
    multiProcessorCount: a.multiProcessorCount,
    eps,
  });
  if (!planned.supported) throw new _Stop("NOT_VERIFIED", planned.reason);
  _checkClaimedSmCount(input.profile, a.multiProcessorCount);
  step(
    "support",
    `${planned.plan.build.id}, ${planned.plan.splits} split(s); ${
      _supportDetail(planned.plan.sfu)
    }`,
  );
  const x = await input16();
  const weights = {
    norm: await t16("norm"),
    q: await t16("q"),
    k: await t16("k"),
    v: await t16("v"),
    o: await t16("o"),
    qNorm: await t16("qNorm"),
    kNorm: await t16("kNorm"),
  };
  step("tensors", `input [${w.tokens},${h}] and 7 weights by digest`);
  const r = await runAttentionBlock(x, { plan: planned.plan, runtime, weights });
  return {
    out: r.out,
    sfu: r.sfu,
    evidence: [
      ...evidence(),
      _blockOperatorEvidence("attention_block", input.stack, {
        profile: input.profile,
        headDim: d,
        tokens: w.tokens,
        hidden: h,
        ropeTheta: "theta" in a.rope ? Number(a.rope.theta) : null,
      }),
      ..._sfuEvidence(r.sfu),
      // One sequence (checked above) prefilled from its first position.
      _attentionEvidence(input.stack, {
        headDim: d,
        profile: input.profile,
        sfu: r.sfu,
        scope: { oneSequence: true, fromStart: true, minRows: w.tokens, maxRows: w.tokens },
      }),
    ],
  };
}

function _supportDetail(sfu: readonly SfuUse[]): string {
  return sfu.length === 0
    ? "no SFU function used"
    : `SFU ${sfu.map((u) => `${u.fn} ${u.status}`).join(", ")} (${sfu[0]!.model})`;
}

/**
 * The weights a block record names by digest, name -> shape (BF16, [out, in] for projections).
 *
 * @param w the workload
 * @returns the shapes, in the order the block reads them
 */
function _weightShapes(w: BlockWorkload): Record<string, readonly number[]> {
  const { hidden: h, intermediate: f, heads, kvHeads, headDim: d } = w.shape;
  if (w.kind === "ffn_block") return { norm: [h], gate: [f, h], up: [f, h], down: [h, f] };
  return {
    norm: [h],
    q: [heads * d, h],
    k: [kvHeads * d, h],
    v: [kvHeads * d, h],
    o: [h, heads * d],
    qNorm: [d],
    kNorm: [d],
  };
}

async function _invFreq(blobs: BlobStore, digest: string, count: number): Promise<Uint32Array> {
  const bytes = await _tensorBytes(blobs, { digest, shape: [count], width: 4, what: "inv_freq" });
  return new Uint32Array(bytes.buffer, bytes.byteOffset, count);
}

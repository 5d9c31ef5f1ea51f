/**
 * The block branch of the per-record pipeline: the record's own contradictions and its tensors by
 * digest (before its profile and stack are loaded, so that nothing not modelled hides a FAIL),
 * then resolve the projections' kernels, load the SFU model the stack names, plan the block (an
 * unmodelled backend, uncovered GEMM or SFU status below the stack's minimum ends as NOT_VERIFIED
 * with the plan's reason) and run it.
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
import { _checkCost, _checkSize, _refusable, _sayRefusal, _Stop, _tensorBytes } from "./_stop.ts";
import { recordProducts } from "./record_products.ts";
import { _held, _tensors16 } from "./_unheld_tensor.ts";
import type { ComponentEvidence } from "../hardware/mod.ts";
import { _layerRuntime } from "./_layer_runtime.ts";
import { _attentionEvidence, _blockOperatorEvidence, _sfuEvidence } from "./_record_evidence.ts";
import { _checkAttentionSupport } from "./_model_support.ts";
import { _checkOutputDescription } from "./_output_description.ts";
import type { _TensorsInput } from "./_tensors_input.ts";
import { _claimedSmCountFinding } from "./_claimed_sm_count.ts";

/** What the block branch needs. */
export interface BlockRecomputeInput {
  readonly store: AssetStore;
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
  /** The branch's refusals (`_TensorsInput.refusals`): the first is said before the run. */
  readonly refusals: readonly string[];
}

/** A block record's committed tensors, read and held to its layer shape. */
export interface BlockTensors {
  /**
   * The input [tokens, hidden] and the weights by name (`_weightShapes`' names and shapes), or
   * null where a refusal waits (checked, not held: see `_blockTensors`).
   */
  readonly held: {
    readonly x: Uint16Array;
    readonly weights: Readonly<Record<string, Uint16Array>>;
  } | null;
  /** The attention block's RoPE frequencies, where it commits to them instead of a theta. */
  readonly invFreq: Uint32Array | null;
}

/**
 * The checks of a block record that need only the record and the blob store, in order: its output
 * description and its layer shape (FAIL), the verifier's size limits and its budget (refusals
 * that wait in `refusals`: bounds on memory and time, they hide none of the record's FAILs), then
 * its input, weights and `inv_freq` by digest (a passed `tensors` step): read into memory where
 * nothing is refused (a sharded record's refusal waits there already: `_shardedRefusal`), else
 * checked a chunk at a time and not held (`_checkTensorUnheld`). Run before the record's profile,
 * stack or kernel is loaded: none of those, known or not, hides these.
 *
 * @param blobs the blob store
 * @param o the record's predicate and workload, the step recorder, the audit's budget a record
 *   and the branch's refusals
 * @returns the tensors (the input and weights not held where a refusal waits)
 * @throws {_Stop} FAIL (a layer shape no model can have, an output description the block does not
 *   compute, a tensor whose length contradicts its shape) or FAIL with `obligation:
 *   "committed-input"` (a committed tensor missing, mismatching or unreadable)
 */
export async function _blockTensors(
  blobs: BlobStore,
  o: _TensorsInput<BlockWorkload>,
): Promise<BlockTensors> {
  const { predicate: p, workload: w } = o;
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
  const { hidden: h, heads, kvHeads, headDim: d } = w.shape;
  const widest = Math.max(h, w.shape.intermediate, heads * d, kvHeads * d);
  // The limits bound the recomputation's memory and the budget its time: each refusal waits for
  // the record's contradictions, and a tensor over its limit is never read into memory (inv_freq,
  // [headDim / 2], is within it by the layer shape's bounds, and is read).
  _refusable(o.refusals, () => _checkSize([w.tokens, widest], "activation"));
  _refusable(o.refusals, () => _checkSize(w.input.shape, "input"));
  const shapes = _weightShapes(w);
  for (const [name, shape] of Object.entries(shapes)) {
    _refusable(o.refusals, () => _checkSize(shape, `weight '${name}'`));
  }
  _refusable(o.refusals, () =>
    _checkCost(recordProducts(w) ?? 0, {
      what: `the ${w.kind} of ${w.tokens} tokens`,
      budget: o.maxRecordProducts,
    }));
  const input = { digest: w.input.sha256, shape: w.input.shape, what: "input" };
  const named = Object.entries(shapes).map(([name, shape]) => ({
    name,
    digest: w.weights[name]!,
    shape,
    what: `weight '${name}'`,
  }));
  const read = await _tensors16(blobs, [input, ...named], o.refusals.length > 0);
  const held: BlockTensors["held"] = read.held === null ? null : {
    x: read.held[0]!,
    weights: Object.fromEntries(named.map((t, i) => [t.name, read.held![i + 1]!])),
  };
  const rope = w.attention?.rope;
  const invFreq = rope === undefined || "theta" in rope
    ? null
    : await _invFreq(blobs, rope.invFreqSha256, d / 2);
  const names = Object.keys(shapes).length;
  if (read.checked) {
    o.step(
      "tensors",
      invFreq === null
        ? `input [${w.tokens},${h}] and ${names} weights by digest`
        : `input [${w.tokens},${h}], ${names} weights and inv_freq by digest`,
    );
  }
  return { held, invFreq };
}

/**
 * Recomputes a block record's output from its tensors (`_blockTensors`) and its parallelism
 * (`_checkedParallel`), whose checks came first (their refusals, sharding among them, wait in
 * `refusals`): its SM count, kernel and support, the first of the branch's refusals (the budget,
 * sharding), then the run.
 *
 * @param input assets, walker, the record's predicate and workload, profile, stack, tensors and
 *   the branch's refusals
 * @returns the block output (BF16) and the SFU functions it depended on
 * @throws {_Stop} NOT_VERIFIED (unmodelled configuration, a waiting refusal) or FAIL (an SM count
 *   above the chip's, a kernel its stack does not run)
 */
export async function _recomputeBlock(
  input: BlockRecomputeInput & { readonly tensors: BlockTensors },
): Promise<{ out: Uint16Array; sfu: readonly SfuUse[]; evidence: ComponentEvidence[] }> {
  const { predicate: p, workload: w, step, tensors, refusals, ...layer } = input;
  // An SM count above the chip's contradicts the GPU: that FAIL comes before anything this
  // version does not model (its NOT_VERIFIED, a count the verifier cannot judge, is said below).
  const sms = w.attention === undefined
    ? null
    : _claimedSmCountFinding(input.profile, w.attention.multiProcessorCount);
  if (sms?.status === "FAIL") throw new _Stop("FAIL", sms.why);
  // The block's contradictions are checked above (its parallelism's by `_checkedParallel`): what
  // is not modelled of its kernel is said at once (a waiting refusal, sharding among them, is said
  // in its place: `_refusedFirst`).
  const { runtime, evidence } = await _layerRuntime({ ...layer, step, kernel: w.kernel });
  if (p.batch.size !== 1) {
    throw new _Stop(
      "NOT_VERIFIED",
      `batch of ${p.batch.size} sequences: blocks are modelled for one sequence`,
    );
  }
  const eps = Number(w.rmsNormEps);
  const { hidden: h, headDim: d } = w.shape;
  // Called only after `_sayRefusal`: tensors are not held only where a refusal waits.
  const t16 = (name: string) => _held(tensors.held).weights[name]!;
  if (w.kind === "ffn_block") {
    const planned = planFfnBlock(w.tokens, { shape: w.shape, runtime, eps });
    if (!planned.supported) throw new _Stop("NOT_VERIFIED", planned.reason);
    step("support", _supportDetail(planned.plan.sfu));
    _sayRefusal(refusals);
    const weights = { norm: t16("norm"), gate: t16("gate"), up: t16("up"), down: t16("down") };
    const r = await runFfnBlock(_held(tensors.held).x, { plan: planned.plan, runtime, weights });
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
  // A rope without a theta committed its inv_freq, read by `_blockTensors`.
  const rope = "theta" in a.rope ? { theta: Number(a.rope.theta) } : { invFreq: tensors.invFreq! };
  const planned = planAttentionBlock(w.tokens, {
    shape: w.shape,
    runtime,
    rope,
    multiProcessorCount: a.multiProcessorCount,
    eps,
  });
  if (!planned.supported) throw new _Stop("NOT_VERIFIED", planned.reason);
  if (sms !== null) throw new _Stop("NOT_VERIFIED", sms.why); // its FAIL is said above
  step(
    "support",
    `${planned.plan.build.id}, ${planned.plan.splits} split(s); ${
      _supportDetail(planned.plan.sfu)
    }`,
  );
  _sayRefusal(refusals);
  const weights = {
    norm: t16("norm"),
    q: t16("q"),
    k: t16("k"),
    v: t16("v"),
    o: t16("o"),
    qNorm: t16("qNorm"),
    kNorm: t16("kNorm"),
  };
  const r = await runAttentionBlock(_held(tensors.held).x, {
    plan: planned.plan,
    runtime,
    weights,
  });
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
export function _weightShapes(w: BlockWorkload): Record<string, readonly number[]> {
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

/**
 * The simulated prover's block records: attention and FFN blocks of one dense layer, alternating,
 * each a prefill of a length drawn from the scenario seed, computed with the block emulation on
 * the stack the scenario names (honest), with optional fingerprint falsifications.
 *
 * @module
 */
import { claimEnvelope, type ClaimsContext } from "./claims_context.ts";
import { sha256Hex } from "../assets/mod.ts";
import { InputError } from "../errors.ts";

import { type ClaimRecord, makeClaimRecord, recordDigest } from "../claims/mod.ts";
import { planAttentionBlock, planFfnBlock, runAttentionBlock, runFfnBlock } from "../model/mod.ts";
import { loadAsset, modelRuntime, recipeFromDescriptor, STACK_PROFILES } from "../resolve/mod.ts";
import type { Scenario } from "./scenario.ts";
import { synthBf16 } from "./synth_tensor.ts";
import { checkHonestRecord } from "./honest_record.ts";

/** Where the block records go in the log and how tensors are stored. */
export type BlockClaimsContext = ClaimsContext;

/**
 * Appends the scenario's block records.
 *
 * @param scenario a scenario with a `blocks` section
 * @param ctx assets, walker, hardware, log position, tensor store
 * @returns the records and the falsified sequence numbers
 * @throws {InputError} `SCENARIO_UNSUPPORTED` when a block cannot be emulated as configured,
 *   `SCENARIO_INVALID` for a record no falsification names that the audit would FAIL for what it
 *   states of its world, SM count or kernel (`checkHonestRecord`)
 * @example
 * ```ts ignore
 * const { records } = await makeBlockClaims(scenario, ctx);
 * ```
 */
export async function makeBlockClaims(
  scenario: Scenario,
  ctx: BlockClaimsContext,
): Promise<{ records: ClaimRecord[]; falsified: { seq: number; kind: string }[] }> {
  const b = scenario.blocks;
  if (b === undefined) return { records: [], falsified: [] };
  if (b.tokens.length === 0) {
    throw new InputError("SCENARIO_INVALID", "Cannot run block records: 'tokens' is empty");
  }
  const stack = (await loadAsset(ctx.store, { kind: STACK_PROFILES, id: b.stack })).value;
  const runtime = await modelRuntime(ctx.store, {
    profile: ctx.hardware.profile,
    stack,
    kernel: {
      recipe: await recipeFromDescriptor(ctx.store, { json: b.recipe, where: "scenario blocks" }),
    },
    walker: ctx.walker,
    attention: ctx.attention,
  });
  const { hidden: h, intermediate: f, heads, kvHeads, headDim: d } = b.shape;
  const seed = scenario.seed;
  const t = (label: string, count: number, span: number) =>
    synthBf16(seed, { label: `blocks.${label}`, count, span });
  const near1 = (label: string, count: number) =>
    t(label, count, 1).map((v) => (v & 0x7f) | 0x3f80);
  const attnW = {
    norm: near1("input_layernorm", h),
    q: t("q_proj", heads * d * h, 6),
    k: t("k_proj", kvHeads * d * h, 6),
    v: t("v_proj", kvHeads * d * h, 6),
    o: t("o_proj", h * heads * d, 6),
    qNorm: near1("q_norm", d),
    kNorm: near1("k_norm", d),
  };
  const ffnW = {
    norm: near1("post_attention_layernorm", h),
    gate: t("gate_proj", f * h, 6),
    up: t("up_proj", f * h, 6),
    down: t("down_proj", h * f, 6),
  };
  const digests = (w: Record<string, Uint16Array>) =>
    Object.fromEntries(Object.entries(w).map(([k, v]) => [k, ctx.put(v)]));
  const kernel = { recipe: b.recipe };
  const attnDigests = digests(attnW);
  const ffnDigests = digests(ffnW);
  const records: ClaimRecord[] = [];
  const falsified: { seq: number; kind: string }[] = [];
  let prev = ctx.prev;
  for (let i = 0; i < b.records; i++) {
    const seq = ctx.firstSeq + i;
    const kind = i % 2 === 0 ? "attention_block" : "ffn_block";
    const envelope = claimEnvelope(scenario, {
      hardware: ctx.hardware,
      seq,
      prev,
      stack: stack.id,
      components: b.components,
    });
    const fake = scenario.falsify.find((fx) => fx.seq === seq);
    if (fake === undefined) {
      checkHonestRecord(envelope, {
        seq,
        section: "scenario.blocks",
        stack,
        gpu: ctx.hardware.profile,
        kernel,
        ...(kind === "attention_block" ? { multiProcessorCount: b.multiProcessorCount } : {}),
      });
    }
    const tokens = b.tokens[_pick(seed, seq, b.tokens.length)]!;
    const x = t(`input.${seq}`, tokens * h, 4);
    let out: Uint16Array;
    if (kind === "attention_block") {
      const p = planAttentionBlock(tokens, {
        shape: b.shape,
        runtime,
        rope: { theta: Number(b.ropeTheta) },
        multiProcessorCount: b.multiProcessorCount,
      });
      if (!p.supported) {
        throw new InputError("SCENARIO_UNSUPPORTED", `Cannot run record ${seq}: ${p.reason}`);
      }
      out = (await runAttentionBlock(x, { plan: p.plan, runtime, weights: attnW })).out;
    } else {
      const p = planFfnBlock(tokens, { shape: b.shape, runtime });
      if (!p.supported) {
        throw new InputError("SCENARIO_UNSUPPORTED", `Cannot run record ${seq}: ${p.reason}`);
      }
      out = (await runFfnBlock(x, { plan: p.plan, runtime, weights: ffnW })).out;
    }
    let fingerprint = ctx.put(out);
    if (fake?.kind === "fingerprint") {
      fingerprint = ctx.flip(fingerprint, fake.bit);
      falsified.push({ seq, kind: fake.kind });
    }
    const record = makeClaimRecord({
      ...envelope,
      batch: { size: 1 },
      workload: {
        kind,
        tokens,
        shape: b.shape,
        rmsNormEps: "1e-6",
        kernel,
        ...(kind === "attention_block"
          ? {
            attention: {
              multiProcessorCount: b.multiProcessorCount,
              rope: { theta: b.ropeTheta },
            },
          }
          : {}),
        weights: kind === "attention_block" ? attnDigests : ffnDigests,
        input: { sha256: ctx.put(x), shape: [tokens, h] },
      },
      fingerprint: {
        tensor: `layers.0.${kind}.out`,
        dtype: "bf16",
        shape: [tokens, h],
        sha256: fingerprint,
      },
    });
    records.push(record);
    prev = recordDigest(record);
  }
  return { records, falsified };
}

function _pick(seed: string, seq: number, n: number): number {
  const hex = sha256Hex(new TextEncoder().encode(`${seed}\u0000tokens\u0000${seq}`));
  return parseInt(hex.slice(0, 8), 16) % n;
}

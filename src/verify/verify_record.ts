/**
 * The recompute-and-compare pipeline for one sampled claim record, as named steps: inclusion in
 * the committed log, profile, stack, kernel (recipe or catalog), support, tensors, recompute,
 * compare. Anything the verifier cannot emulate ends as NOT_VERIFIED with its reason; a committed
 * blob the prover does not produce (missing, or bytes that do not hash to the digest) is the
 * record's FAIL with `obligation: "committed-input"`; a record that contradicts itself (its output
 * description included), its history or its checkpoint FAILs with finding `contradiction`; PASS
 * is only reachable through the compare step. Nothing a prover supplies ends the audit: every
 * such problem is one of these results (issue 25). A NOT_VERIFIED is never said before a
 * contradiction the verifier can establish: a GEMM or block record's own checks and its tensors
 * by digest (`_gemmTensors`, `_blockTensors`: all it needs is the record and the blob store) come
 * before its profile and stack (`_recordWorld`); its parallelism's contradictions (an invalid
 * all-reduce, or one its stack's layout does not run, FAILs it as it does a model record:
 * `_checkedParallel`) come before its kernel and its support; and its budget (a bound on time, not
 * memory) and its sharding wait for all of them, as a model record's refusals do.
 *
 * @module
 */
import { type AssetStore, type BlobStore, sha256Hex } from "../assets/mod.ts";
import type { ComponentEvidence, EvidenceLevel, GpuProfile } from "../hardware/mod.ts";
import type { Fa2Forward, KWalker, StackProfile } from "../kernels/mod.ts";
import type { SfuUse } from "../model/mod.ts";
import {
  type ClaimLog,
  hexToBytes,
  isBlockWorkload,
  isGemmWorkload,
  isModelForwardWorkload,
  isSequenceWorkload,
  logTree,
  recordDigest,
  uncoveredPosition,
  verifyInclusion,
} from "../claims/mod.ts";
import { _MAX_COMPONENT, _MAX_REASON, _refusedFirst, _Stop } from "./_stop.ts";
import { clipText } from "../clip_text.ts";
import { evidenceShortfall } from "./evidence_shortfall.ts";
import { _recordWorld } from "./_record_world.ts";
import { _checkedParallel, _shardedRefusal } from "./_claimed_parallel.ts";
import type { _TensorsInput } from "./_tensors_input.ts";
import { _blockTensors, _recomputeBlock } from "./recompute_block.ts";
import { _gemmTensors, _recomputeGemm } from "./recompute_gemm.ts";
import { _recomputeModelForward } from "./recompute_model_forward.ts";
import { _recomputeSequence, type TokenCheck } from "./recompute_sequence.ts";
import type {
  FailFinding,
  FirstDifference,
  LayerDivergence,
  ProverObligation,
  RecordResult,
  StepResult,
} from "./record_result.ts";

/** What the pipeline needs besides the record. */
export interface VerifyContext {
  /** Hash-checked profiles, stacks, catalogs. */
  readonly store: AssetStore;
  /** Weights, inputs and (optionally) the prover's outputs, by digest. */
  readonly blobs: BlobStore;
  /** K-walk implementation. */
  readonly walker: KWalker;
  /**
   * Runs the attention core (e.g. an `Fa2Pool`'s `forward`: heads over threads, tile products on
   * the wasm engine); default `flashAttentionForward` on the calling thread with the plain
   * K-walk. Same bits either way.
   */
  readonly attention?: Fa2Forward | undefined;
  /**
   * The weakest evidence a PASS may rest on (`--require-evidence`): a record whose recomputation
   * matched but rests on a component known less well is NOT_VERIFIED, naming it
   * (`evidenceShortfall`). An audit's report and verdict record it (`AuditReport.requireEvidence`).
   */
  readonly requireEvidence?: EvidenceLevel | undefined;
  /**
   * Most products one record's recomputation may take (`--max-record-products`; default
   * `MAX_RECORD_PRODUCTS`): a record predicted over it is NOT_VERIFIED, naming its count and the
   * budget, before anything is computed. An audit's plan, report and verdict record it.
   */
  readonly maxRecordProducts?: number | undefined;
}

/**
 * Verifies one record of a log.
 *
 * @param ctx assets, blobs and walker
 * @param target the log and the record's index
 * @returns the record result (never throws for problems of the record itself)
 * @example
 * ```ts ignore
 * const r = await verifyRecord(ctx, { log, index: 17 });
 * ```
 */
export async function verifyRecord(
  ctx: VerifyContext,
  target: { log: ClaimLog; index: number },
): Promise<RecordResult> {
  const { log, index } = target;
  if (!Number.isSafeInteger(index) || index < 0 || index >= log.records.length) {
    throw new RangeError(
      `Cannot verify record ${index}: the log holds records 0..${log.records.length - 1}`,
    );
  }
  const record = log.records[index]!;
  // The record recomputed must be the one its log commits to (a log edited after parsing would
  // otherwise have one record checked for inclusion and another recomputed).
  if (recordDigest(record) !== log.digests[index]) {
    throw new RangeError(
      `Cannot verify record ${index}: it no longer hashes to its digest in the log (changed ` +
        "after the log was parsed)",
    );
  }
  const p = record.predicate;
  const steps: StepResult[] = [];
  const step = (name: string, detail: string) =>
    steps.push({ step: name, ok: true, detail: clipText(detail, _MAX_REASON) });
  const failed = (name: string, detail: string) =>
    steps.push({ step: name, ok: false, detail: clipText(detail, _MAX_REASON) });
  let recomputed: string | null = null;
  let firstDifference: FirstDifference | null = null;
  let sfu: readonly SfuUse[] | undefined;
  let divergence: LayerDivergence | null = null;
  // Why a match cannot vouch for the record (the named all-reduce's path its links decide, a
  // token budget the record's passes are not held to): applied after the comparison.
  let matchGap: string | null = null;
  let evidence: readonly ComponentEvidence[] | undefined;
  const result = (
    status: RecordResult["status"],
    reason: string,
    found?: { finding: FailFinding; obligation?: ProverObligation | undefined },
  ): RecordResult => ({
    index,
    digest: log.digests[index]!,
    status,
    reason: clipText(reason, _MAX_REASON),
    claimed: p.fingerprint.sha256,
    recomputed,
    firstDifference,
    steps,
    ...(sfu === undefined ? {} : { sfu }),
    ...(evidence === undefined ? {} : {
      evidence: evidence.map((e) => ({ ...e, component: clipText(e.component, _MAX_COMPONENT) })),
    }),
    ...(divergence === null ? {} : { firstDivergence: divergence }),
    ...(found?.obligation === undefined ? {} : { obligation: found.obligation }),
    ...(found === undefined ? {} : { finding: found.finding }),
  });
  try {
    // One tree per log (built on the first record sampled), O(log n) hashes a proof.
    const proof = logTree(log).proof(index);
    const leaf = hexToBytes(log.digests[index]!);
    const root = hexToBytes(log.root);
    if (!verifyInclusion({ leaf, index, treeSize: log.digests.length, proof, root })) {
      throw new _Stop("FAIL", "record is not included in the committed log");
    }
    step("inclusion", `leaf ${index} of ${log.digests.length}, ${proof.length}-hash proof to root`);
    const w = p.workload;
    if (
      !isGemmWorkload(w) && !isBlockWorkload(w) && !isModelForwardWorkload(w) &&
      !isSequenceWorkload(w)
    ) {
      throw new _Stop(
        "NOT_VERIFIED",
        `workload kind '${w.kind}' is not supported by this verifier version`,
      );
    }
    let out: Uint16Array;
    let tokens: TokenCheck | null = null;
    let versionGap: string | null;
    if (isGemmWorkload(w) || isBlockWorkload(w)) {
      // Its own contradictions and committed tensors before its profile and stack.
      const r: {
        out: Uint16Array;
        sfu?: readonly SfuUse[];
        evidence: ComponentEvidence[];
        versionGap: string | null;
      } = isGemmWorkload(w)
        ? await _tensorsFirst(ctx, { predicate: p, workload: w, step }, {
          tensors: _gemmTensors,
          recompute: _recomputeGemm,
          unsharded: "GEMMs",
        })
        : await _tensorsFirst(ctx, { predicate: p, workload: w, step }, {
          tensors: _blockTensors,
          recompute: _recomputeBlock,
          unsharded: "blocks",
        });
      versionGap = r.versionGap;
      out = r.out;
      sfu = r.sfu;
      evidence = r.evidence;
    } else {
      const world = await _recordWorld(ctx.store, { p, step });
      versionGap = world.versionGap;
      const common = { ...ctx, predicate: p, profile: world.profile, stack: world.stack, step };
      const r: {
        out: Uint16Array;
        sfu: readonly SfuUse[];
        divergence: LayerDivergence | null;
        tokens?: TokenCheck;
        evidence: ComponentEvidence[];
        matchGap?: string | null;
      } = isModelForwardWorkload(w)
        ? await _recomputeModelForward({ ...common, workload: w })
        : await _recomputeSequence({ ...common, workload: w });
      out = r.out;
      sfu = r.sfu;
      divergence = r.divergence;
      tokens = r.tokens ?? null;
      evidence = r.evidence;
      matchGap = r.matchGap ?? null;
    }
    const outBytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    recomputed = sha256Hex(outBytes);
    const what = isGemmWorkload(w)
      ? `${w.m}x${w.n}x${w.k}`
      : isModelForwardWorkload(w)
      ? `forward of ${w.tokens.sequences.length} sequence(s), ${w.positions.length} position(s)`
      : isSequenceWorkload(w)
      ? `sequence of ${w.tokens.prompt.length}+${w.tokens.generated.length} tokens, ` +
        `${w.positions.length} position(s)`
      : `${w.kind} of ${w.tokens} tokens`;
    step("recompute", `${what} -> sha256 ${recomputed.slice(0, 16)}…`);
    const at = divergence === null
      ? ""
      : `; first diverging stage: layer ${divergence.layer} ${divergence.stage}`;
    if (recomputed === p.fingerprint.sha256 && divergence === null) {
      step("compare", "fingerprints equal");
      if (tokens?.status === "mismatch") {
        failed("tokens", tokens.detail);
        return result("FAIL", `hidden states match but ${tokens.detail}`, {
          finding: "greedy-token",
        });
      }
      if (tokens?.status === "not-verifiable") {
        failed("tokens", tokens.detail);
        return result(
          "NOT_VERIFIED",
          `hidden states match the fingerprint bit for bit; ${tokens.detail}`,
        );
      }
      if (tokens !== null) step("tokens", tokens.detail);
      // A match vouches only for what the fingerprint covers: without each sequence's last
      // position, later tokens and passes are unbound (a mismatch above is a FAIL either way).
      const gap = isModelForwardWorkload(w) || isSequenceWorkload(w) ? uncoveredPosition(w) : null;
      if (gap !== null) {
        failed("coverage", gap);
        return result("NOT_VERIFIED", `recomputed output matches the fingerprint, but ${gap}`);
      }
      const worldGap = [versionGap, matchGap].filter((g) => g !== null).join("; ");
      if (worldGap !== "") {
        failed("versions", worldGap);
        return result(
          "NOT_VERIFIED",
          `recomputed output matches the fingerprint, but ${worldGap}`,
        );
      }
      const weak = ctx.requireEvidence === undefined
        ? null
        : evidenceShortfall(evidence, ctx.requireEvidence);
      if (weak !== null) {
        failed("evidence", weak);
        return result("NOT_VERIFIED", `recomputed output matches the fingerprint, but ${weak}`);
      }
      return result("PASS", "recomputed output matches the fingerprint bit for bit");
    }
    if (recomputed === p.fingerprint.sha256) {
      failed("compare", `layer chain differs${at}`);
      return result("FAIL", `fingerprint matches but the claimed layer chain does not${at}`, {
        finding: "layer-chain",
      });
    }
    firstDifference = await _firstDifference(ctx, p.fingerprint.sha256, out);
    failed("compare", `fingerprints differ${at}`);
    return result(
      "FAIL",
      `recomputed fingerprint ${recomputed} differs from the claimed ${p.fingerprint.sha256}${at}`,
      { finding: "fingerprint" },
    );
  } catch (e) {
    if (e instanceof _Stop) {
      failed(e.status === "FAIL" ? "check" : "support", e.why);
      if (e.status === "NOT_VERIFIED") return result(e.status, e.why);
      const finding = e.obligation === undefined ? "contradiction" : "committed-input";
      return result(e.status, e.why, { finding, obligation: e.obligation });
    }
    throw e;
  }
}

/** The record, as a GEMM's or block's branch reads it. */
type _Record<W> = Omit<_TensorsInput<W>, "maxRecordProducts" | "refusals">;

/**
 * A GEMM's or block's pipeline, in three steps: its own contradictions and committed tensors,
 * which need only the record and the blob store (`_gemmTensors`, `_blockTensors`), before its
 * profile and stack are loaded (`_recordWorld`), so that neither an unknown or differently hashed
 * one nor anything not modelled hides the record's FAIL; then its parallelism, checked as every
 * record's is (`_checkedParallel`: an all-reduce the record or its stack contradicts FAILs); then
 * its recomputation. A sharded run (`_shardedRefusal`, from the record alone) is refused before
 * its tensors are read, so that they are checked without being held; it, and a recomputation over
 * the budget, wait in the branch's refusals until the last check that could FAIL the record (its
 * world, its parallelism, its kernel, its SM count): said before the run, or in place of a
 * NOT_VERIFIED found on the way (`_refusedFirst`), so that its reason is the one it was before any
 * check that FAILs.
 *
 * @param ctx the verifier's context
 * @param o the record's predicate and workload, and the step recorder
 * @param branch the branch's tensor checks, its recomputation, and what it computes (for the
 *   reason a sharded run is refused: it models none)
 * @returns the recomputation's result, and what `_checkClaimedWorld` leaves unvouched
 * @throws {_Stop} as each step does
 */
async function _tensorsFirst<W, T, R>(
  ctx: VerifyContext,
  o: _Record<W>,
  branch: {
    readonly tensors: (blobs: BlobStore, o: _TensorsInput<W>) => Promise<T>;
    readonly recompute: (
      input: VerifyContext & _Record<W> & {
        readonly profile: GpuProfile;
        readonly stack: StackProfile;
        readonly tensors: T;
        readonly refusals: readonly string[];
      },
    ) => Promise<R>;
    readonly unsharded: string;
  },
): Promise<R & { versionGap: string | null }> {
  const refusals: string[] = [];
  // Known from the record alone: waiting before its tensors are read, it has them checked a chunk
  // at a time and held by nothing, as the budget's refusal does.
  const sharded = _shardedRefusal(o.predicate, branch.unsharded);
  if (sharded !== null) refusals.push(sharded);
  const tensors = await branch.tensors(ctx.blobs, {
    ...o,
    maxRecordProducts: ctx.maxRecordProducts,
    refusals,
  });
  try {
    const world = await _recordWorld(ctx.store, { p: o.predicate, step: o.step });
    _checkedParallel(o.predicate, {
      stack: world.stack,
      gpu: world.profile,
      refusals,
    });
    const r = await branch.recompute({
      ...ctx,
      ...o,
      profile: world.profile,
      stack: world.stack,
      tensors,
      refusals,
    });
    return { ...r, versionGap: world.versionGap };
  } catch (e) {
    throw _refusedFirst(refusals, e);
  }
}

async function _firstDifference(
  ctx: VerifyContext,
  digest: string,
  out: Uint16Array,
): Promise<FirstDifference | null> {
  const claimed = await ctx.blobs.get(digest, { maxBytes: out.length * 2 }).catch(() => null);
  if (claimed === null || claimed.length !== out.length * 2) return null;
  const view = new Uint16Array(
    claimed.buffer.slice(claimed.byteOffset, claimed.byteOffset + claimed.length),
  );
  for (let i = 0; i < out.length; i++) {
    if (view[i] !== out[i]) {
      const h = (x: number) => `0x${x.toString(16).padStart(4, "0")}`;
      return { index: i, claimed: h(view[i]!), recomputed: h(out[i]!) };
    }
  }
  return null;
}

/**
 * The parallelism a model record claims, checked against itself and its stack and resolved into
 * the split the forward runs (`tensorParallelOf`): tensor-parallel size and the recorded
 * all-reduce. The world (GPU count against tp x pp x dp; data parallelism on vLLM) is checked
 * for every record (`_checkClaimedWorld`), and so is the split's parse against the stack
 * (`_checkedParallel`: GEMM and block records, which model no sharding and are refused a split
 * (`_shardedRefusal`), FAIL on its contradictions as model records do). Pipeline stages move activations between GPUs by
 * copies and do not change bits (a record with pp above 1 is verified as the tensor-parallel pass
 * of each stage); data-parallel replicas off vLLM each run their own passes; an expert-parallel
 * size vLLM never runs with (other than 1 or tp x dp) FAILs for every model, and expert
 * parallelism runs where the layout models it and is refused with the layout's reason elsewhere.
 * Where the stack states its all-reduce dispatch, the named all-reduce must be the path each of
 * the record's messages takes.
 *
 * @module
 */
import type { ClaimPredicate } from "../claims/mod.ts";
import {
  type ClaimedAllReduce,
  componentMismatch,
  interconnectContradiction,
  isVllmStack,
  type LinkedGpu,
  ncclEnvFinding,
  ncclReleaseGap,
  parseClaimedAllReduce,
  type StackProfile,
  statedSettings,
  vllmExpertParallelContradiction,
} from "../kernels/mod.ts";
import type { DecoderConfig, TensorParallel } from "../model/mod.ts";
import {
  allReducePathFinding,
  type DispatchGpu,
  ncclAllReduceUse,
  stackSplitContradiction,
  tensorParallelOf,
  unknownInterconnect,
} from "../resolve/mod.ts";
import { _refusable, _REFUSED, _Stop } from "./_stop.ts";
import { stackHardwareContradiction } from "./stack_hardware_contradiction.ts";

/** What a record's stated world says against it (`_claimedWorld`). */
export interface _ClaimedWorld {
  /** Why the record describes a run that never happened (the audit FAILs it), or null. */
  readonly contradiction: string | null;
  /**
   * Why a matching recomputation still cannot vouch for the record's stated world (a library
   * version the stack pins, stated with no release number to compare; an NCCL environment that
   * leaves the channel count free; an interconnect the all-reduce dispatch is not modelled on),
   * or null.
   */
  readonly gap: string | null;
}

/**
 * Reads the world a record claims, for every kind of record: the library versions it states
 * must be those its stack pins (`componentMismatch`), the stack must run on the GPU
 * (`stackHardwareContradiction`: its attention backend, or the architecture its kernels are
 * built for), a stated NCCL environment must allow the recorded NCCL all-reduce, the stated
 * interconnect must be one the GPU part can have (`interconnectContradiction`: no NVLink on an
 * L40S, no NVSwitch on bridged pairs), the GPU count must hold every rank (tp x pp x dp), and on
 * vLLM the expert-parallel size must be 1 or tp x dp (`vllmExpertParallelContradiction`, any
 * model, dense included). The verifier FAILs a record on the first contradiction
 * (`_checkClaimedWorld`); the simulated prover refuses to write an honest one that has any
 * (`recordContradiction`).
 *
 * @param p the record's hardware, software and parallelism
 * @param stack the record's stack
 * @param gpu the record's GPU profile (its architecture decides the stack's conditional settings;
 *   its links, the interconnects its GPUs can have)
 * @returns the first contradiction, in the order above, and the gaps
 */
export function _claimedWorld(
  p: Pick<ClaimPredicate, "hardware" | "software" | "parallelism">,
  stack: StackProfile,
  gpu: LinkedGpu & { readonly architecture: string },
): _ClaimedWorld {
  // The recomputation follows the stack's pinned versions: a record stating others describes
  // another run (another reduction tree, FlashAttention build, RoPE reading, vLLM path).
  const versions = componentMismatch(stack.components, p.software.components, gpu);
  // A stated NCCL environment that rules out the recorded NCCL all-reduce describes another run.
  const nccl = ncclEnvFinding(statedSettings(p.software.components), _recordedAllReduce(p));
  const { tp, pp, dp } = p.parallelism;
  const contradiction = () => {
    if (versions?.kind === "contradiction") {
      return `record contradicts its stack '${stack.id}': ${versions.reason}`;
    }
    // A stack that cannot run on the record's GPU (attention kernels of other architectures,
    // kernels built for a later one) never ran there, whatever the record computes.
    const off = stackHardwareContradiction(stack, gpu);
    if (off !== null) return `record contradicts its ${off}`;
    if (nccl?.kind === "contradiction") return `record contradicts itself: ${nccl.reason}`;
    // Links the part's data sheet rules out (NVLink on a PCIe-only card) describe other hardware.
    const links = interconnectContradiction(gpu, {
      interconnect: p.parallelism.interconnect,
      worldSize: tp,
    });
    if (links !== null) return `record contradicts its hardware: ${links}`;
    if (p.hardware.count < tp * pp * dp) {
      return `record contradicts itself: tp=${tp} x pp=${pp} x dp=${dp} ranks on ${p.hardware.count} GPU(s)`;
    }
    // An expert-parallel size the stack's engine never runs with, whatever the model and the
    // record kind: said here, before any record's first refusal, so that no refusal hides it.
    const ep = vllmExpertParallelContradiction(stack, { tp, dp, ep: p.parallelism.ep });
    return ep === null ? null : `record contradicts its stack '${stack.id}': ${ep}`;
  };
  const gaps = [
    versions === null ? null : `stack '${stack.id}': ${versions.reason}`,
    nccl === null ? null : nccl.reason,
    unknownInterconnect(p.parallelism.interconnect),
  ].filter((g) => g !== null);
  return { contradiction: contradiction(), gap: gaps.length === 0 ? null : gaps.join("; ") };
}

/**
 * Checks the world a record claims (`_claimedWorld`).
 *
 * @param p the record's predicate
 * @param stack the record's stack
 * @param gpu the record's GPU profile
 * @returns why a matching recomputation still cannot vouch for the record's stated world, or
 *   null; applied only after the comparison, so that such a statement hides no FAIL
 * @throws {_Stop} FAIL with the first contradiction `_claimedWorld` finds
 */
export function _checkClaimedWorld(
  p: ClaimPredicate,
  stack: StackProfile,
  gpu: LinkedGpu & { readonly architecture: string },
): string | null {
  const world = _claimedWorld(p, stack, gpu);
  if (world.contradiction !== null) throw new _Stop("FAIL", world.contradiction);
  return world.gap;
}

/**
 * Refuses data parallelism on vLLM: its data-parallel ranks are not independent replicas (they
 * step together: MoE layers are sharded over dp x tp ranks with tokens gathered across them, and
 * a graph-captured step is padded to the largest token count of any rank), which is not
 * modelled. Every kind of record runs it through `_checkedParallel`, its refusal waiting for the
 * record's contradictions (a refusal here never hides a FAIL).
 *
 * @param p the record's predicate
 * @param stack the record's stack
 * @throws {_Stop} NOT_VERIFIED for dp above 1 on a vLLM stack
 */
export function _checkDataParallel(p: ClaimPredicate, stack: StackProfile): void {
  const { dp } = p.parallelism;
  if (dp > 1 && isVllmStack(stack)) {
    throw new _Stop(
      "NOT_VERIFIED",
      `dp=${dp} on vLLM: data-parallel ranks step together (MoE layers sharded over dp x tp ` +
        "ranks, graph-captured steps padded across ranks); this is not modelled",
    );
  }
}

/** The record's all-reduce, where it is valid (an invalid one FAILs in `_claimedParallel`). */
function _recordedAllReduce(
  p: Pick<ClaimPredicate, "parallelism">,
): ClaimedAllReduce | undefined {
  const { allReduce, tp } = p.parallelism;
  if (allReduce === undefined) return undefined;
  try {
    return parseClaimedAllReduce(allReduce, tp);
  } catch {
    return undefined;
  }
}

/**
 * Resolves a record's parallelism.
 *
 * @param p the record's predicate
 * @param stack the record's stack
 * @param gpu the GPU profile (vLLM's dispatch reads its compute capability and links)
 * @returns the split, or undefined for a one-GPU pass (tp = 1)
 * @throws {_Stop} FAIL when the record contradicts itself or its stack (an all-reduce with
 *   tp = 1, an invalid all-reduce, one the stack cannot run, none named at tp above 2);
 *   NOT_VERIFIED for what is not modelled (no layout in the stack, expert parallelism, an
 *   unmodelled all-reduce, pipeline stages beside HF's tp_plan)
 */
export function _claimedParallel(
  p: ClaimPredicate,
  stack: StackProfile,
  gpu: DispatchGpu,
): TensorParallel | undefined {
  const par = p.parallelism;
  let allReduce: ClaimedAllReduce | undefined;
  if (par.allReduce !== undefined) {
    try {
      allReduce = parseClaimedAllReduce(par.allReduce, par.tp);
    } catch (e) {
      throw new _Stop("FAIL", `record's all-reduce is invalid: ${(e as Error).message}`);
    }
  }
  const r = tensorParallelOf(stack, {
    tp: par.tp,
    ep: par.ep,
    dp: par.dp,
    allReduce,
    links: { gpu, interconnect: par.interconnect },
  });
  if (!r.ok) {
    throw r.kind === "unmodelled"
      ? new _Stop("NOT_VERIFIED", r.reason)
      : new _Stop("FAIL", `record contradicts its stack: ${r.reason}`);
  }
  // After the split's own contradictions: HF's tp_plan shards one model over the torchrun
  // ranks, `from_pretrained` refuses a device_map beside it and Transformers has no other way
  // to split stages, so pipeline stages of tensor-parallel groups are no HF run modelled here.
  if (par.tp > 1 && par.pp > 1 && stack.operators?.tensorParallel === "hf-tp-plan") {
    throw new _Stop(
      "NOT_VERIFIED",
      `tp=${par.tp} with pp=${par.pp} on stack '${stack.id}': HF Transformers' tp_plan runs ` +
        "no pipeline stages (from_pretrained takes no device_map beside it); such a split is " +
        "not modelled",
    );
  }
  return r.parallel;
}

/**
 * Why a record of a kind that models no sharding is refused: a tp, pp or ep other than 1. It
 * needs only the record, so a GEMM's or block's branch keeps it in its refusals before its
 * committed tensors are read (they are then checked a chunk at a time and held by nothing), where
 * it waits, as every refusal does, for the record's contradictions (`_checkedParallel` among them).
 *
 * @param p the record's predicate
 * @param unsharded what the record computes, for the reason (e.g. `GEMMs`)
 * @returns the reason, or null for a record on one rank of each kind
 */
export function _shardedRefusal(
  p: Pick<ClaimPredicate, "parallelism">,
  unsharded: string,
): string | null {
  const { tp, pp, ep } = p.parallelism;
  if (tp === 1 && pp === 1 && ep === 1) return null;
  return `parallelism tp=${tp} pp=${pp} ep=${ep}: sharded ${unsharded} are not modelled`;
}

/**
 * The parallelism checks of every kind of record, after its world (`_checkClaimedWorld`), each
 * refusal waiting in `refusals` (`_refusable`) so that none hides a FAIL: data parallelism on
 * vLLM (`_checkDataParallel`); then the split (`_claimedParallel`), whose contradictions (an
 * invalid all-reduce, one the stack's layout does not run, none named at tp above 2 where the
 * stack has a layout) FAIL a record of any kind, sharded or not (a kind that models no sharding
 * has its refusal waiting already: `_shardedRefusal`).
 *
 * @param p the record's predicate
 * @param o the record's stack and GPU profile, and the branch's refusals
 * @returns the split (undefined for one rank), or `_REFUSED` where it is not modelled
 * @throws {_Stop} FAIL as `_claimedParallel`
 */
export function _checkedParallel(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly gpu: DispatchGpu;
    readonly refusals: string[];
  },
): TensorParallel | undefined | typeof _REFUSED {
  const { refusals } = o;
  _refusable(refusals, () => _checkDataParallel(p, o.stack));
  return _refusable(refusals, () => _claimedParallel(p, o.stack, o.gpu));
}

/**
 * FAILs a model record whose tensor-parallel split its stack's layout can never make of its
 * checkpoint (`splitContradiction`: vLLM refuses at start-up ranks that do not divide the heads,
 * the KV heads, the dense intermediate size or the padded vocabulary; HF's tp_plan cannot view
 * a rank's q/k/v block that cuts a head; vLLM's MoE checks spread over tp x dp ranks): such a
 * run never happened, whatever else the record leaves unmodelled. A split that runs but is not
 * modelled is left to the forward's reason.
 *
 * @param p the record's predicate (its tp, ep and dp)
 * @param o the record's stack and its checkpoint's config
 * @throws {_Stop} FAIL naming the dimension the ranks cannot split
 */
export function _checkSplit(
  p: ClaimPredicate,
  o: { readonly stack: StackProfile; readonly config: DecoderConfig },
): void {
  const why = stackSplitContradiction(o.stack, {
    tp: p.parallelism.tp,
    ep: p.parallelism.ep,
    dp: p.parallelism.dp,
    config: o.config,
  });
  if (why !== null) throw new _Stop("FAIL", `record contradicts its checkpoint: ${why}`);
}

/**
 * The split a record's all-reduce path is checked against when its own split is not modelled:
 * the same split without experts spread over the ranks (the all-reduces move the same messages),
 * or, where that is not modelled either (an all-reduce no layout models, such as NCCL's NVLS),
 * the record's rank count and all-reduce, which are all the path check reads; so no unmodelled
 * detail hides a FAIL of the path.
 *
 * @param p the record's predicate
 * @param stack the record's stack
 * @param gpu the GPU profile
 * @returns the split (undefined for one rank), or null when the record names no readable one
 */
export function _splitForPathCheck(
  p: ClaimPredicate,
  stack: StackProfile,
  gpu: DispatchGpu,
): Pick<TensorParallel, "size" | "allReduce"> | undefined | null {
  try {
    return _claimedParallel({ ...p, parallelism: { ...p.parallelism, ep: 1 } }, stack, gpu);
  } catch (e) {
    if (!(e instanceof _Stop)) throw e;
  }
  const { tp, allReduce } = p.parallelism;
  if (tp === 1 || allReduce === undefined) return null;
  try {
    return { size: tp, allReduce: parseClaimedAllReduce(allReduce, tp) };
  } catch {
    return null; // an invalid all-reduce FAILs where the split is resolved
  }
}

/** What the all-reduce checks read besides the record: its stack, GPU, split and passes. */
interface _AllReduceFacts {
  readonly stack: StackProfile;
  readonly gpu: DispatchGpu;
  readonly parallel: TensorParallel | undefined | typeof _REFUSED;
  readonly hidden: number;
  readonly passRows: readonly number[];
}

/**
 * FAILs a record whose named all-reduce is not the path its stack's dispatch takes for the
 * record's messages on any link its GPUs can have (`allReducePathFinding`), and says where the
 * links the record leaves unstated decide the path.
 *
 * @param p the record's predicate (whether it names an all-reduce, its interconnect)
 * @param o the stack, the GPU part, the split, the hidden size and each pass's token count
 * @returns why a matching recomputation still cannot vouch for the named all-reduce (its path
 *   depends on links the record does not state), or null; the caller applies it only after the
 *   comparison, so that it hides no FAIL
 * @throws {_Stop} FAIL with the path the dispatch takes and its rule
 */
export function _checkAllReducePath(
  p: ClaimPredicate,
  o: _AllReduceFacts,
): string | null {
  // An unmodelled expert split still has its all-reduce path checked (it must not hide a FAIL).
  const parallel = o.parallel !== _REFUSED ? o.parallel : _splitForPathCheck(p, o.stack, o.gpu);
  if (parallel === null) return null;
  const found = allReducePathFinding(o.stack, {
    ...o,
    parallel,
    named: p.parallelism.allReduce !== undefined,
    interconnect: p.parallelism.interconnect,
  });
  if (found?.kind === "contradiction") throw new _Stop("FAIL", found.reason);
  return found?.reason ?? null;
}

/**
 * Refuses a record whose all-reduces NCCL runs (its named ring or tree, or messages vLLM's
 * dispatch sends to NCCL) and whose stated NCCL release is not the one the replay follows
 * (`ncclReleaseGap`: the chunking, and so each element's order of adds, differs between
 * releases). At two ranks every order adds once and rounds once, so no release changes the bits
 * and none is refused. Each kind of record that replays an all-reduce calls it after its own
 * contradictions (the all-reduce path among them) and before any recomputation: a mismatch under
 * another release would say nothing of the run.
 *
 * @param p the record's predicate (its components and interconnect)
 * @param o the stack, the GPU part, the split, the hidden size and each pass's token count
 * @throws {_Stop} NOT_VERIFIED naming the stated release and where NCCL runs
 */
export function _checkNcclRelease(
  p: ClaimPredicate,
  o: _AllReduceFacts,
): void {
  // A split that is not modelled is refused already, with its own reason.
  if (o.parallel === _REFUSED || o.parallel === undefined || o.parallel.size <= 2) return;
  const gap = ncclReleaseGap(p.software.components);
  if (gap === null) return;
  const where = ncclAllReduceUse(o.stack, {
    ...o,
    parallel: o.parallel,
    interconnect: p.parallelism.interconnect,
  });
  if (where !== null) throw new _Stop("NOT_VERIFIED", `${gap} (${where})`);
}

/**
 * All-reduce plans: plain data naming an implementation and every parameter that fixes its
 * order of additions, and the one parser that validates them (spec `parallel_and_vllm.md` §A2).
 *
 * @module
 */
import {
  type AllReduceKind,
  allReduceUnsupported,
  isModelledAllReduceKind,
  isUnmodelledAllReduceKind,
} from "./all_reduce_kinds.ts";
import { NCCL_GRAIN_BYTES, type NcclCbd, type NcclProtocol } from "./nccl_cbd.ts";
import { _cbd, _int, _keys, _object, _ring, _tree } from "./_plan_fields.ts";

/** vLLM custom all-reduce, one stage or two (`csrc/custom_all_reduce.cuh`, §A2.1). */
export interface VllmCustomPlan {
  /** `vllm-custom-1stage` or `vllm-custom-2stage`. */
  readonly kind: "vllm-custom-1stage" | "vllm-custom-2stage";
  /** Ranks in the tensor-parallel group: 2, 4, 6 or 8. */
  readonly worldSize: number;
}

/** PyTorch symmetric-memory `two_shot_all_reduce_` (§A2.2). */
export interface TorchSymmMemTwoShotPlan {
  /** `torch-symm-mem-two-shot`. */
  readonly kind: "torch-symm-mem-two-shot";
  /** Ranks in the group (at least 2). */
  readonly worldSize: number;
}

/**
 * One NCCL tree of one channel: `down[r]` lists the children of rank `r` in `tree.down[]` order
 * (the `Trees [c] d0/d1/d2->r->up` lines of NCCL_DEBUG=INFO, without the -1 entries).
 */
export interface NcclTree {
  /** Children per rank, at most 3 each (NCCL_MAX_TREE_ARITY). */
  readonly down: readonly (readonly number[])[];
}

/** Fields shared by the NCCL plans. */
export interface NcclPlanBase {
  /** Ranks in the communicator (the tensor-parallel group). */
  readonly worldSize: number;
  /** Protocol the tuner chose or NCCL_PROTO pinned. */
  readonly protocol: NcclProtocol;
  /** The work descriptor's channel split ({@link NcclCbd}). */
  readonly cbd: NcclCbd;
}

/**
 * NCCL ring all-reduce (§A2.3). `rings[k]` is channel `channelLo + k`'s ring as rank 0 prints it
 * (`Channel kk/nn : 0 a b ...`): ranks in `next` order starting at rank 0, so a rank's position is
 * NCCL's `ring.index`. `rings.length` is the channel count.
 */
export interface NcclRingPlan extends NcclPlanBase {
  /** `nccl-ring`. */
  readonly kind: "nccl-ring";
  /** One ring per channel. */
  readonly rings: readonly (readonly number[])[];
}

/** NCCL tree all-reduce (§A2.3): one tree per channel; `trees.length` is the channel count. */
export interface NcclTreePlan extends NcclPlanBase {
  /** `nccl-tree`. */
  readonly kind: "nccl-tree";
  /** One tree per channel. */
  readonly trees: readonly NcclTree[];
}

/** A modelled all-reduce with all the parameters that fix its order of additions. */
export type AllReducePlan =
  | VllmCustomPlan
  | TorchSymmMemTwoShotPlan
  | NcclRingPlan
  | NcclTreePlan;

/** Channel bound of NCCL (MAXCHANNELS). */
const _MAX_CHANNELS = 64;

/**
 * Validates plan data (from a record or built in code) and returns it frozen. Unknown fields are
 * refused, so a record cannot carry a parameter this emulator ignores.
 *
 * @param value candidate plan
 * @returns the plan, deep-frozen
 * @throws {TypeError} when the value or a field has the wrong type
 * @throws {RangeError} naming the bad field: an unknown kind, an unmodelled kind (with the reason
 *   of {@link allReduceUnsupported}), a world size the implementation does not support, a ring
 *   that is not a permutation starting at rank 0, a tree that is not a tree, a cbd that does not
 *   fit its channel count
 * @example
 * ```ts
 * import { parseAllReducePlan } from "./all_reduce_plan.ts";
 * const plan = parseAllReducePlan({ kind: "vllm-custom-1stage", worldSize: 4 });
 * if (!Object.isFrozen(plan)) throw new Error();
 * ```
 */
export function parseAllReducePlan(value: unknown): AllReducePlan {
  const o = _object(value, "plan");
  const kind = o.kind;
  if (typeof kind !== "string") throw new TypeError("Cannot parse plan: 'kind' is not a string");
  if (isUnmodelledAllReduceKind(kind)) {
    throw new RangeError(`Cannot use all-reduce '${kind}': ${allReduceUnsupported(kind)}`);
  }
  if (!isModelledAllReduceKind(kind)) {
    throw new RangeError(`Cannot parse plan: unknown kind '${kind}'`);
  }
  const ws = _int(o.worldSize, "worldSize", 2);
  if (kind === "vllm-custom-1stage" || kind === "vllm-custom-2stage") {
    _keys(o, ["kind", "worldSize"]);
    if (![2, 4, 6, 8].includes(ws)) {
      throw new RangeError(
        `Cannot parse plan: 'worldSize' ${ws} is not one the custom all-reduce supports (2, 4, 6, 8)`,
      );
    }
    return Object.freeze({ kind, worldSize: ws });
  }
  if (kind === "torch-symm-mem-two-shot") {
    _keys(o, ["kind", "worldSize"]);
    return Object.freeze({ kind, worldSize: ws });
  }
  return _ncclPlan(o, kind, ws);
}

function _ncclPlan(o: Record<string, unknown>, kind: AllReduceKind, ws: number): AllReducePlan {
  const list = kind === "nccl-ring" ? "rings" : "trees";
  _keys(o, ["kind", "worldSize", "protocol", "cbd", list]);
  const protocol = o.protocol;
  if (typeof protocol !== "string" || !Object.hasOwn(NCCL_GRAIN_BYTES, protocol)) {
    throw new RangeError(
      `Cannot parse plan: 'protocol' ${String(protocol)} is not simple|ll|ll128`,
    );
  }
  const items = o[list];
  if (!Array.isArray(items)) throw new TypeError(`Cannot parse plan: '${list}' is not an array`);
  if (items.length < 1 || items.length > _MAX_CHANNELS) {
    throw new RangeError(`Cannot parse plan: '${list}' has ${items.length} channels, not 1..64`);
  }
  const cbd = _cbd(o.cbd, items.length);
  const base = { worldSize: ws, protocol: protocol as NcclProtocol, cbd };
  if (kind === "nccl-ring") {
    const rings = items.map((r, k) => _ring(r, ws, `rings[${k}]`));
    return Object.freeze({ kind: "nccl-ring", ...base, rings: Object.freeze(rings) });
  }
  const trees = items.map((t, k) => _tree(t, ws, `trees[${k}]`));
  return Object.freeze({ kind: "nccl-tree", ...base, trees: Object.freeze(trees) });
}

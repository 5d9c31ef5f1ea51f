/**
 * The all-reduce a pass records (claim field `parallelism.allReduce`): the implementation that
 * ran at every all-reduce call site of the pass and the settings that fix its order, without
 * what follows from the message (its element count). Every call site of a modelled pass moves a
 * message of the same size (rows x hidden BF16 elements: the o_proj, MLP and vocab-parallel
 * embedding reductions), so one description per pass names the path of each.
 *
 * ```
 * {"kind": "vllm-custom-1stage" | "vllm-custom-2stage" | "torch-symm-mem-two-shot"}
 * {"kind": "nccl-ring", "protocol": "simple"|"ll"|"ll128", "chunkBytes": n, "rings": [[0, ...]]}
 * {"kind": "nccl-tree", "protocol": "simple"|"ll"|"ll128", "trees": [{"down": [[...], ...]}]}
 * {"kind": <an unmodelled implementation>}                   (kept, so it is NOT_VERIFIED by name)
 * {"kind": "vllm-dispatch", "nccl"?: {"kind": "nccl-ring" | "nccl-tree", ...}}
 * ```
 * `vllm-dispatch` states that each message took the path vLLM's dispatch chooses for its size
 * (`vllmAllReducePath`: a served sequence's prefill chunk and its decode steps may take different
 * paths), and how NCCL ran for the messages the dispatch sends there; the verifier resolves the
 * path of each message before replaying it.
 * NCCL is modelled with one channel (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 1, the algorithm
 * pinned with NCCL_ALGO): its channel split of a message follows from the count alone
 * (`ncclSingleChannelCbd`). Several channels split a message by the tuner's traffic rules, which
 * are not derived here: such records are refused with that reason.
 *
 * @module
 */
import { type AllReduceKind, isUnmodelledAllReduceKind } from "./all_reduce_kinds.ts";
import { type AllReducePlan, parseAllReducePlan } from "./all_reduce_plan.ts";
import { NCCL_GRAIN_BYTES, type NcclProtocol, ncclSingleChannelCbd } from "./nccl_cbd.ts";

/** A recorded NCCL all-reduce (one channel) and its settings. */
export type ClaimedNcclAllReduce =
  | {
    readonly kind: "nccl-ring";
    readonly protocol: NcclProtocol;
    readonly chunkBytes: number;
    readonly rings: readonly (readonly number[])[];
  }
  | {
    readonly kind: "nccl-tree";
    readonly protocol: NcclProtocol;
    readonly trees: readonly { readonly down: readonly (readonly number[])[] }[];
  };

/** The claim that each message took vLLM's dispatch path for its size ({@link VLLM_DISPATCH}). */
export interface ClaimedVllmDispatch {
  /** {@link VLLM_DISPATCH}. */
  readonly kind: typeof VLLM_DISPATCH;
  /** How NCCL ran, for the messages the dispatch sends to NCCL (absent: none went there). */
  readonly nccl?: ClaimedNcclAllReduce;
}

/** A recorded all-reduce: the implementation and its message-independent settings. */
export type ClaimedAllReduce =
  | { readonly kind: PlainAllReduceKind }
  | ClaimedNcclAllReduce
  | ClaimedVllmDispatch
  | { readonly kind: Exclude<AllReduceKind, "nccl-ring" | "nccl-tree" | PlainAllReduceKind> };

/** The claimed kind "each message as vLLM's dispatch chose" (not an implementation itself). */
export const VLLM_DISPATCH = "vllm-dispatch";

/** Implementations whose order follows from the rank count alone (no settings recorded). */
export type PlainAllReduceKind =
  | "vllm-custom-1stage"
  | "vllm-custom-2stage"
  | "torch-symm-mem-two-shot";

/** Largest chunk a record may state (NCCL_BUFFSIZE is at most a few hundred MiB). */
const _MAX_CHUNK_BYTES = 1 << 30;

/**
 * Validates a recorded all-reduce for a tensor-parallel group of `worldSize` ranks: the settings
 * must form a valid plan (checked by building the plan of a one-element message). Unmodelled
 * implementations pass with their kind only; ask {@link claimedAllReduceUnsupported}.
 *
 * @param value candidate (parsed JSON)
 * @param worldSize the record's tensor-parallel size
 * @returns the description, frozen
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseClaimedAllReduce } from "./claimed_all_reduce.ts";
 * const c = parseClaimedAllReduce({ kind: "nccl-tree", protocol: "simple", trees: [{ down: [[1], []] }] }, 2);
 * if (c.kind !== "nccl-tree") throw new Error();
 * ```
 */
export function parseClaimedAllReduce(value: unknown, worldSize: number): ClaimedAllReduce {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("Cannot read all-reduce: it is not an object");
  }
  const o = value as Record<string, unknown>;
  const kind = o.kind;
  if (typeof kind !== "string") {
    throw new TypeError("Cannot read all-reduce: 'kind' is not a string");
  }
  const keys = kind === "nccl-ring"
    ? ["kind", "protocol", "chunkBytes", "rings"]
    : kind === "nccl-tree"
    ? ["kind", "protocol", "trees"]
    : kind === VLLM_DISPATCH
    ? ["kind", "nccl"]
    : ["kind"];
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) throw new RangeError(`Cannot read all-reduce: unknown field '${k}'`);
  }
  if (isUnmodelledAllReduceKind(kind)) return Object.freeze({ kind });
  if (kind === VLLM_DISPATCH) {
    if (o.nccl === undefined) return Object.freeze({ kind });
    const nccl = parseClaimedAllReduce(o.nccl, worldSize);
    if (nccl.kind !== "nccl-ring" && nccl.kind !== "nccl-tree") {
      throw new RangeError("Cannot read all-reduce: 'nccl' must be an nccl-ring or nccl-tree");
    }
    return Object.freeze({ kind, nccl });
  }
  if (kind === "nccl-ring") {
    const cb = o.chunkBytes;
    if (!Number.isSafeInteger(cb) || (cb as number) < 1 || (cb as number) > _MAX_CHUNK_BYTES) {
      throw new RangeError("Cannot read all-reduce: 'chunkBytes' is not an integer in 1..2^30");
    }
  }
  const list = kind === "nccl-ring" ? o.rings : kind === "nccl-tree" ? o.trees : undefined;
  if (Array.isArray(list) && list.length !== 1) {
    throw new RangeError(
      `Cannot read all-reduce: ${list.length} NCCL channels; only one channel is modelled (a ` +
        "message's split over several channels follows NCCL's traffic rules, not derived here)",
    );
  }
  // Validation is the plan parser's, on a message of one element per rank.
  messageAllReducePlan(o as unknown as ClaimedAllReduce, { worldSize, count: 1 });
  return Object.freeze(JSON.parse(JSON.stringify(o))) as ClaimedAllReduce;
}

/**
 * Why a recorded all-reduce cannot be replayed, or null when it is modelled.
 *
 * @param c the recorded all-reduce
 * @returns the reason, or null
 * @example
 * ```ts
 * import { claimedAllReduceUnsupported } from "./claimed_all_reduce.ts";
 * if (claimedAllReduceUnsupported({ kind: "nccl-nvls" }) === null) throw new Error();
 * if (claimedAllReduceUnsupported({ kind: "vllm-custom-1stage" }) !== null) throw new Error();
 * ```
 */
export function claimedAllReduceUnsupported(c: ClaimedAllReduce): string | null {
  if (!isUnmodelledAllReduceKind(c.kind)) return null;
  try {
    parseAllReducePlan({ kind: c.kind, worldSize: 2 });
  } catch (e) {
    return (e as Error).message;
  }
  return `all-reduce '${c.kind}' is not modelled`;
}

/**
 * The plan of one message: the recorded settings plus what the message's element count fixes
 * (NCCL's one-channel split).
 *
 * @param c the recorded all-reduce (modelled)
 * @param o the group size and the message's BF16 element count
 * @returns the validated plan
 * @throws {RangeError} for an unmodelled implementation or settings that do not fit
 * @example
 * ```ts
 * import { messageAllReducePlan } from "./claimed_all_reduce.ts";
 * const p = messageAllReducePlan({ kind: "nccl-ring", protocol: "simple", chunkBytes: 1024, rings: [[0, 1]] }, { worldSize: 2, count: 4096 });
 * if (p.kind !== "nccl-ring" || p.cbd.countLo !== 4096) throw new Error();
 * ```
 */
export function messageAllReducePlan(
  c: ClaimedAllReduce,
  o: { readonly worldSize: number; readonly count: number },
): AllReducePlan {
  const { worldSize } = o;
  if (c.kind === VLLM_DISPATCH) {
    throw new RangeError(
      "Cannot plan a 'vllm-dispatch' all-reduce: resolve each message's path first",
    );
  }
  if (c.kind === "nccl-ring" || c.kind === "nccl-tree") {
    const protocol = c.protocol;
    if (typeof protocol !== "string" || !Object.hasOwn(NCCL_GRAIN_BYTES, protocol)) {
      throw new RangeError(
        `Cannot read all-reduce: 'protocol' ${String(protocol)} is not simple|ll|ll128`,
      );
    }
    // A tree reduces each element up the same tree whatever its chunk: one grain per chunk.
    const chunkBytes = c.kind === "nccl-ring" ? c.chunkBytes : NCCL_GRAIN_BYTES[protocol];
    const cbd = ncclSingleChannelCbd(o.count, { chunkBytes, protocol });
    return c.kind === "nccl-ring"
      ? parseAllReducePlan({ kind: c.kind, worldSize, protocol, cbd, rings: c.rings })
      : parseAllReducePlan({ kind: c.kind, worldSize, protocol, cbd, trees: c.trees });
  }
  return parseAllReducePlan({ kind: c.kind, worldSize });
}

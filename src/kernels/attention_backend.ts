/**
 * Attention backends a software stack can run, as data: which ones this emulator models and, for
 * the others, why not. The backend is a stack property (HF `attn_implementation`, the SDPA
 * priority of the PyTorch version, the wheel that is installed); spec `stack_pytorch_hf.md` §1.4,
 * §3.1, §3.2.
 *
 * @module
 */
import { FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED, type Fa2Build } from "./attention/mod.ts";

/** Attention backends a stack profile can name. */
export const ATTENTION_BACKEND_IDS = [
  "fa2-dao-fastmath",
  "fa2-pytorch-bundled",
  "cudnn-sdpa",
  "sdpa-mem-efficient",
  "eager",
] as const;

/** One of {@link ATTENTION_BACKEND_IDS}. */
export type AttentionBackendId = typeof ATTENTION_BACKEND_IDS[number];

/**
 * Where an attention core runs: a prefill forward over a padded or flattened batch, a serving
 * replay (varlen passes over a KV cache, split-KV decode), or a one-sequence block claim.
 */
export type AttentionDriver = "prefill" | "serving" | "block";

/** What the emulator can do with a backend in one driver. */
export type AttentionBackendSupport =
  | {
    readonly modelled: true;
    readonly id: AttentionBackendId;
    /** The FA2 build, or null for HF's eager attention (batched GEMMs and a softmax). */
    readonly build: Fa2Build | null;
  }
  | { readonly modelled: false; readonly id: AttentionBackendId; readonly reason: string };

/** One backend: its FA2 build (or none) and, per driver, true or why it is not modelled there. */
interface _Backend {
  readonly build: Fa2Build | null;
  readonly drivers: Readonly<Record<AttentionDriver, true | string>>;
}

const _EVERYWHERE = { prefill: true, serving: true, block: true } as const;
const _NOWHERE = (why: string) => ({ prefill: why, serving: why, block: why });

/** The registry: every backend a stack can name, and where each is modelled. */
const _BACKENDS: Readonly<Record<AttentionBackendId, _Backend>> = {
  "fa2-dao-fastmath": { build: FA2_DAO_FASTMATH, drivers: _EVERYWHERE },
  "fa2-pytorch-bundled": { build: FA2_PYTORCH_BUNDLED, drivers: _EVERYWHERE },
  "cudnn-sdpa": {
    build: null,
    drivers: _NOWHERE(
      "cuDNN fused attention (the SDPA backend recent PyTorch prefers on sm_90/sm_100) is " +
        "closed source: its tiling and reduction order cannot be derived, so it is not emulated",
    ),
  },
  "sdpa-mem-efficient": {
    build: null,
    drivers: _NOWHERE(
      "the CUTLASS memory-efficient SDPA kernel has its own tiling and softmax, which are not " +
        "modelled",
    ),
  },
  "eager": {
    build: null,
    drivers: {
      // Its batched GEMMs go through the stack's dispatch and PyTorch's softmax kernel.
      prefill: true,
      serving: "eager attention over a KV cache (decode GEMMs of one query row and a softmax " +
        "launch per pass) is not modelled",
      block: "eager attention in block claims is not modelled (prefill forward records model it)",
    },
  },
};

/**
 * Looks up a backend for a driver.
 *
 * @param id the stack's `operators.attention`
 * @param driver where the attention core runs
 * @returns the build (null for eager) or why the backend is not modelled there
 * @throws {RangeError} for an id no stack may name
 * @example
 * ```ts
 * import { attentionBackend } from "./attention_backend.ts";
 * const b = attentionBackend("fa2-dao-fastmath", "serving");
 * if (!b.modelled || b.build?.id !== "dao-fastmath") throw new Error();
 * if (attentionBackend("eager", "serving").modelled) throw new Error();
 * if (!attentionBackend("eager", "prefill").modelled) throw new Error();
 * ```
 */
export function attentionBackend(id: string, driver: AttentionDriver): AttentionBackendSupport {
  if (!Object.hasOwn(_BACKENDS, id)) {
    throw new RangeError(
      `Cannot look up attention backend '${id}': expected one of ${
        ATTENTION_BACKEND_IDS.join(", ")
      }`,
    );
  }
  const known = id as AttentionBackendId;
  const b = _BACKENDS[known];
  const support = b.drivers[driver];
  return support === true
    ? { modelled: true, id: known, build: b.build }
    : { modelled: false, id: known, reason: support };
}

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

/** What the emulator can do with a backend. */
export type AttentionBackendSupport =
  | { readonly modelled: true; readonly id: AttentionBackendId; readonly build: Fa2Build }
  | { readonly modelled: false; readonly id: AttentionBackendId; readonly reason: string };

const _UNMODELLED: Readonly<Record<string, string>> = Object.freeze({
  "cudnn-sdpa": "cuDNN fused attention (the SDPA backend recent PyTorch prefers on sm_90/sm_100) " +
    "is closed source: its tiling and reduction order cannot be derived, so it is not emulated",
  "sdpa-mem-efficient": "the CUTLASS memory-efficient SDPA kernel has its own tiling and " +
    "softmax, which are not modelled",
  "eager": "eager attention runs strided-batched cuBLAS GEMMs whose dispatch is not catalogued, " +
    "so the composition is not modelled",
});

/**
 * Tells whether a backend is modelled, and returns the FA2 build description when it is.
 *
 * @param id backend name from a stack profile
 * @returns `{modelled: true, build}` for the two FA2 builds, `{modelled: false, reason}` otherwise
 * @throws {RangeError} on a name that is not in {@link ATTENTION_BACKEND_IDS}
 * @example
 * ```ts
 * import { attentionBackend } from "./attention_backend.ts";
 * const fa2 = attentionBackend("fa2-pytorch-bundled");
 * if (!fa2.modelled || fa2.build.reciprocal !== "ieee-div") throw new Error();
 * const cudnn = attentionBackend("cudnn-sdpa");
 * if (cudnn.modelled || !cudnn.reason.includes("closed source")) throw new Error();
 * ```
 */
export function attentionBackend(id: string): AttentionBackendSupport {
  if (id === "fa2-dao-fastmath") return { modelled: true, id, build: FA2_DAO_FASTMATH };
  if (id === "fa2-pytorch-bundled") return { modelled: true, id, build: FA2_PYTORCH_BUNDLED };
  const reason = _UNMODELLED[id];
  if (reason === undefined) {
    throw new RangeError(
      `Cannot look up attention backend '${id}': expected one of ${
        ATTENTION_BACKEND_IDS.join(", ")
      }`,
    );
  }
  return { modelled: false, id: id as AttentionBackendId, reason };
}

/**
 * The name a record's fingerprint gives its output tensor, as each workload's format fixes it: a
 * `gemm` record fingerprints one linear's output, `<module>.out` (`layers.0.q_proj.out`); a block
 * record its block's rows, `layers.<layer>.attention_block.out` or `layers.<layer>.ffn_block.out`
 * (the record does not say which layer, so any); `model_forward` and `sequence` records the final
 * norm's rows, `model.norm.out`. A GEMM's module is the prover's to name, but not as a block or
 * the final norm: those are outputs no single GEMM computes. The simulated prover writes these
 * names, and the verifier holds a record to them (another is the record contradicting itself).
 *
 * @module
 */

/** A module path: dot-separated names of letters, digits and underscores. */
const MODULE = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;
/** A layer index as the format writes it (decimal, no leading zero). */
const LAYER = "(?:0|[1-9][0-9]{0,5})";
/** Names whose output a workload other than a GEMM computes. */
const NOT_A_LINEAR = new RegExp(`^(?:model\\.norm|layers\\.${LAYER}\\.(?:attention|ffn)_block)$`);

/**
 * Whether a fingerprint's tensor name is the one its workload's output carries.
 *
 * @param kind the workload kind (`gemm`, `attention_block`, `ffn_block`, `model_forward`,
 *   `sequence`; another kind has no fixed name)
 * @param tensor the fingerprint's tensor name
 * @returns null when it fits, else what the workload's output is named (a phrase to follow
 *   "computes ", the name quoted)
 * @example
 * ```ts
 * import { fingerprintTensorMismatch } from "./fingerprint_tensor.ts";
 * if (fingerprintTensorMismatch("gemm", "layers.0.q_proj.out") !== null) throw new Error();
 * if (fingerprintTensorMismatch("gemm", "lm_head.logits") === null) throw new Error();
 * if (fingerprintTensorMismatch("gemm", "layers.3.ffn_block.out") === null) throw new Error();
 * if (fingerprintTensorMismatch("ffn_block", "layers.5.ffn_block.out") !== null) throw new Error();
 * if (fingerprintTensorMismatch("ffn_block", "layers.5.self_attn.o_proj.out") === null) {
 *   throw new Error();
 * }
 * if (fingerprintTensorMismatch("sequence", "model.norm.out") !== null) throw new Error();
 * ```
 */
export function fingerprintTensorMismatch(kind: string, tensor: string): string | null {
  switch (kind) {
    case "gemm": {
      const module = tensor.endsWith(".out") ? tensor.slice(0, -".out".length) : "";
      return MODULE.test(module) && !NOT_A_LINEAR.test(module)
        ? null
        : "one linear's output, named '<module>.out' (not a block's or the final norm's name)";
    }
    case "attention_block":
    case "ffn_block":
      return new RegExp(`^layers\\.${LAYER}\\.${kind}\\.out$`).test(tensor)
        ? null
        : `'layers.<layer>.${kind}.out'`;
    case "model_forward":
    case "sequence":
      return tensor === "model.norm.out" ? null : "'model.norm.out'";
    default:
      return null;
  }
}

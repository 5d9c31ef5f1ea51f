/**
 * A claim's description of its output (the fingerprint's tensor name, dtype and shape) checked
 * against what its workload computes (issue 25, item 6). The fingerprint digest is compared after
 * recomputation; the description is fixed by the workload (and the checkpoint's config), so a
 * record whose description differs contradicts itself before anything is recomputed: a GEMM
 * record claiming an `fp32` output, or `[n, m]` for an `[m, n]` product, or a block record naming
 * another layer's projection as its tensor (`fingerprintTensorMismatch`), FAILs with finding
 * `contradiction` even when its digest is the digest of the recomputed bytes.
 *
 * @module
 */
import {
  type ClaimPredicate,
  fingerprintTensorMismatch,
  type ModelForwardWorkload,
  type SequenceWorkload,
} from "../claims/mod.ts";
import { quoteShort } from "../escape_text.ts";
import { _Stop } from "./_stop.ts";

/** What a workload computes: its output's dtype and shape, and its kind, which names it. */
export interface OutputDescription {
  /** The workload kind: its format fixes the output's tensor name (`fingerprintTensorMismatch`). */
  readonly kind: string;
  /** Element type of the fingerprinted bytes (e.g. `bf16`). */
  readonly dtype: string;
  /**
   * Dimensions of the fingerprinted tensor; a name stands for a size the checkpoint's config fixes
   * (e.g. `hidden`), matched by any claimed size until the config is read and the check is run
   * again with it (the rest is checked first: a checkpoint not modelled hides no contradiction).
   */
  readonly shape: readonly (number | string)[];
}

/**
 * Checks the fingerprint's description against what the workload computes.
 *
 * @param fingerprint the record's fingerprint
 * @param expected the workload's output (and the reason's wording of it)
 * @throws {_Stop} FAIL (finding `contradiction`) naming the first field that differs
 */
export function _checkOutputDescription(
  fingerprint: ClaimPredicate["fingerprint"],
  expected: OutputDescription & { readonly what: string },
): void {
  const why = (field: string, claimed: string, computed: string) =>
    new _Stop(
      "FAIL",
      `record contradicts itself: its fingerprint ${field} is ${claimed}, ${expected.what} ` +
        `computes ${computed}`,
    );
  const named = fingerprintTensorMismatch(expected.kind, fingerprint.tensor);
  if (named !== null) throw why("tensor", _quote(fingerprint.tensor), named);
  if (fingerprint.dtype !== expected.dtype) {
    throw why("dtype", _quote(fingerprint.dtype), `'${expected.dtype}'`);
  }
  const s = fingerprint.shape;
  const e = expected.shape;
  if (s.length !== e.length || s.some((d, i) => typeof e[i] === "number" && d !== e[i])) {
    throw why("shape", _dims(s), _dims(expected.shape));
  }
}

/**
 * Checks a model record's fingerprint against what both model branches fingerprint: the final
 * norm's BF16 rows at the record's positions, as wide as the checkpoint's hidden size.
 *
 * @param p the record's predicate
 * @param w its model-forward or sequence workload
 * @param hidden the checkpoint's hidden size, or `"hidden"` before its config is read (any width
 *   then matches: the rest is checked before the checkpoint, and the width again with it)
 * @throws {_Stop} FAIL as {@link _checkOutputDescription}
 */
export function _checkFinalNorm(
  p: ClaimPredicate,
  w: ModelForwardWorkload | SequenceWorkload,
  hidden: number | "hidden",
): void {
  const whose = w.kind === "sequence" ? "sequence" : "forward";
  _checkOutputDescription(p.fingerprint, {
    kind: w.kind,
    dtype: "bf16",
    shape: [w.positions.length, hidden],
    what: `the ${whose}'s final norm at ${w.positions.length} position(s)`,
  });
}

/**
 * A claimed text, quoted short for a one-line reason (it is the prover's): runs of spaces as one,
 * cut, escaped (`quoteShort`), so it cannot pad itself into a line of its own where a reason is
 * printed.
 */
function _quote(s: string): string {
  return quoteShort(s, 60);
}

/** Dimensions for a one-line reason (a claimed shape may be long). */
function _dims(shape: readonly (number | string)[]): string {
  return `[${shape.slice(0, 8).join(", ")}${shape.length > 8 ? ", ..." : ""}]`;
}

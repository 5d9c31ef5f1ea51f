/**
 * The policy check a software stack applies to an SFU model: the validation status of every
 * function a computation used must reach the stack's minimum, otherwise the result is
 * NOT_VERIFIED (the verifier never reports PASS on a weaker model than the stack demands).
 *
 * Order of hardware evidence: `model-only` (no measurement at all) < `spot-checked` <
 * `histogram-matched` < `exhaustive-on-gpu`. A stack whose minimum is `model-only` accepts every
 * hardware model; any higher minimum refuses a `model-only` function.
 * `ieee-exact` belongs to the IEEE mode (a distinct stack property, never a stand-in for the
 * hardware) and satisfies only a stack that asks for it.
 *
 * @module
 */
import type { SfuValidationStatus } from "./sfu_tesla_v1.ts";

const _RANK: Readonly<Record<string, number>> = {
  "model-only": 0,
  "spot-checked": 1,
  "histogram-matched": 2,
  "exhaustive-on-gpu": 3,
};

/**
 * Tells whether a function's status satisfies a stack's minimum.
 *
 * @param status the SFU function's validation status
 * @param minimum the stack's required status
 * @returns true when `status` is at least `minimum`
 * @example
 * ```ts
 * import { meetsSfuStatus } from "./meets_sfu_status.ts";
 * if (!meetsSfuStatus("histogram-matched", "spot-checked")) throw new Error();
 * if (meetsSfuStatus("spot-checked", "histogram-matched")) throw new Error();
 * if (meetsSfuStatus("ieee-exact", "exhaustive-on-gpu")) throw new Error("ieee is not hardware");
 * if (meetsSfuStatus("model-only", "spot-checked") || !meetsSfuStatus("model-only", "model-only")) {
 *   throw new Error();
 * }
 * ```
 */
export function meetsSfuStatus(status: SfuValidationStatus, minimum: SfuValidationStatus): boolean {
  if (status === "ieee-exact" || minimum === "ieee-exact") return status === minimum;
  return (_RANK[status] ?? 0) >= (_RANK[minimum] ?? Infinity);
}

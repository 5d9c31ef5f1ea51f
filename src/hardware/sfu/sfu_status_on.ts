/**
 * An SFU function's validation status on one part: the status its model states where it was
 * established (`SfuFunctionStatus.checkedOn`), `model-only` anywhere else.
 *
 * @module
 */
import type { SfuFunctionStatus, SfuValidationStatus } from "./sfu_tesla_v1.ts";

/**
 * The status of a function on a part of the given compute capability.
 *
 * @param s the function's status in its model
 * @param computeCapability the part's compute capability (e.g. `"9.0"`); undefined: the
 *   model's status as stated (no part named)
 * @returns the status on that part
 * @example
 * ```ts
 * import { sfuStatusOn } from "./sfu_status_on.ts";
 * import { SFU_TESLA_V1 } from "./sfu_tesla_v1.ts";
 * if (sfuStatusOn(SFU_TESLA_V1.functions.rsqrt, "8.0") !== "histogram-matched") throw new Error();
 * if (sfuStatusOn(SFU_TESLA_V1.functions.rsqrt, "10.0") !== "model-only") throw new Error();
 * ```
 */
export function sfuStatusOn(
  s: SfuFunctionStatus,
  computeCapability: string | undefined,
): SfuValidationStatus {
  if (computeCapability === undefined || s.checkedOn === undefined) return s.status;
  return s.checkedOn.includes(computeCapability) ? s.status : "model-only";
}

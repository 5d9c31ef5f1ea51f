/**
 * Where a stack's SFU minimum is met: for each function of the stack's SFU model, the parts
 * (compute capabilities) on which its status reaches the minimum.
 *
 * @module
 */
import {
  meetsSfuStatus,
  SFU_IEEE_V1,
  SFU_TESLA_V1,
  type SfuFunctionStatus,
  sfuStatusOn,
} from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";

/**
 * Per function, the parts where the stack's minimum is met: `"any"` (its status holds on every
 * part and meets the minimum, or the minimum is met even at `model-only`), the compute
 * capabilities where it does, or an empty list (nowhere).
 *
 * @param stack the stack profile
 * @returns function -> parts, or null for a stack that names no SFU
 * @example
 * ```ts
 * import { sfuMinimumParts } from "./sfu_minimum_parts.ts";
 * const parts = sfuMinimumParts({ sfu: { mode: "tesla-table", minimumStatus: "spot-checked" } });
 * if (String(parts?.rsqrt) !== "8.0,8.9,9.0" || String(parts?.lg2) !== "") throw new Error();
 * ```
 */
export function sfuMinimumParts(
  stack: Pick<StackProfile, "sfu">,
): Readonly<Record<string, "any" | readonly string[]>> | null {
  const policy = stack.sfu;
  if (policy === undefined) return null;
  const model = policy.mode === "tesla-table" ? SFU_TESLA_V1 : SFU_IEEE_V1;
  const out: Record<string, "any" | readonly string[]> = {};
  for (const [fn, s] of Object.entries(model.functions) as [string, SfuFunctionStatus][]) {
    const meets = (cc: string | undefined) =>
      meetsSfuStatus(sfuStatusOn(s, cc), policy.minimumStatus);
    // A part outside `checkedOn` sees `model-only`: if that meets the minimum, every part does.
    if (s.checkedOn === undefined || meets("0.0")) out[fn] = meets(undefined) ? "any" : [];
    else out[fn] = s.checkedOn.filter((cc) => meets(cc));
  }
  return out;
}

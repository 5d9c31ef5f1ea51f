/**
 * The SFU functions a block computation depends on, checked against the stack's SFU policy:
 * the mode must be the one the stack names, and every function's validation status must reach
 * the stack's minimum. The resulting list travels with the result into verdicts.
 *
 * @module
 */
import {
  meetsSfuStatus,
  type Sfu,
  type SfuFunctionStatus,
  sfuStatusOn,
  type SfuValidationStatus,
} from "../../hardware/mod.ts";
import type { StackProfile } from "../../kernels/mod.ts";

/** An SFU function a result depended on, with the model and its validation status. */
export interface SfuUse {
  /** MUFU function (`rsqrt`, `ex2`, `rcp`, `lg2`). */
  readonly fn: string;
  /** SFU model id (e.g. `tesla-sfu-v1`, `ieee-rn-v1`). */
  readonly model: string;
  /** Validation status of that function in that model, on the record's part. */
  readonly status: SfuValidationStatus;
}

/** Outcome of {@link checkSfuUsage}. */
export type SfuUsageCheck =
  | { readonly ok: true; readonly used: readonly SfuUse[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks that the SFU functions a computation needs are provided in the stack's mode with at
 * least the stack's minimum status, on the part the computation claims (a function checked on
 * other parts only is `model-only` there: `sfuStatusOn`).
 *
 * @param sfu the runtime's SFU model
 * @param options the stack, the function names needed and the part's compute capability
 *   (`computeCapability`, e.g. the GPU profile's; absent: the model's statuses as stated)
 * @returns the uses (sorted, unique), or the first reason they cannot be accepted
 * @example
 * ```ts
 * import { checkSfuUsage } from "./sfu_usage.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const stack = {
 *   schema: "bitaudit.stack-profile/v1", id: "s", name: "S", components: {},
 *   gemm: { kernelSource: "recipe" }, sfu: { mode: "ieee", minimumStatus: "ieee-exact" }, sources: [],
 * } as const;
 * const r = checkSfuUsage(createSfu({ mode: "ieee" }), { stack, functions: ["rsqrt", "ex2"] });
 * if (!r.ok || r.used.length !== 2 || r.used[0]!.fn !== "ex2") throw new Error();
 * ```
 */
export function checkSfuUsage(
  sfu: Sfu,
  options: {
    readonly stack: StackProfile;
    readonly functions: readonly string[];
    readonly computeCapability?: string;
  },
): SfuUsageCheck {
  const { stack } = options;
  const names = [...new Set(options.functions)].sort();
  if (names.length === 0) return { ok: true, used: [] };
  const policy = stack.sfu;
  if (policy === undefined) {
    return {
      ok: false,
      reason: `stack '${stack.id}' names no SFU mode, but the computation uses ${names.join(", ")}`,
    };
  }
  if (policy.mode !== sfu.mode) {
    return {
      ok: false,
      reason:
        `stack '${stack.id}' runs SFU mode '${policy.mode}', the emulator was given '${sfu.mode}'`,
    };
  }
  const table = sfu.status.functions as unknown as Readonly<
    Record<string, SfuFunctionStatus | undefined>
  >;
  const used: SfuUse[] = [];
  for (const fn of names) {
    const s = table[fn];
    if (s === undefined) {
      const why = (sfu.status.unsupported as Readonly<Record<string, string>>)[fn] ?? "absent";
      return { ok: false, reason: `SFU model '${sfu.status.id}' has no ${fn}: ${why}` };
    }
    const cc = options.computeCapability;
    const status = sfuStatusOn(s, cc);
    if (!meetsSfuStatus(status, policy.minimumStatus)) {
      const where = status === s.status
        ? ""
        : ` on sm ${cc} ('${s.status}' on sm ${s.checkedOn!.join(", ")} only)`;
      return {
        ok: false,
        reason: `SFU ${fn} of '${sfu.status.id}' is '${status}'${where}, below the minimum ` +
          `'${policy.minimumStatus}' of stack '${stack.id}'`,
      };
    }
    used.push({ fn, model: sfu.status.id, status });
  }
  return { ok: true, used };
}

/**
 * Validation status as data: what each SFU model claims and the evidence behind it, so that a
 * verdict can report how far an emulated MUFU result is trusted.
 *
 * @module
 */

/**
 * How far an SFU function model has been checked against hardware:
 * - `model-only`: a transcription of a documented algorithm (envytools' G80 model) with no
 *   measurement on any modern GPU; only its plausibility is checked (error against the correctly
 *   rounded result, compared with the PTX ISA's documented accuracy);
 * - `histogram-matched`: its error histogram against the correctly rounded result equals a
 *   measured hardware histogram exactly (per-input outputs not compared);
 * - `spot-checked`: individual hardware outputs match, but only a handful;
 * - `exhaustive-on-gpu`: every input of the covered domain compared with a GPU, zero mismatches;
 * - `ieee-exact`: not a hardware model; the function is the mathematically specified IEEE 754
 *   correctly rounded result.
 */
export type SfuValidationStatus =
  | "model-only"
  | "histogram-matched"
  | "spot-checked"
  | "exhaustive-on-gpu"
  | "ieee-exact";

/** Status and evidence of one function. */
export interface SfuFunctionStatus {
  /** How far it is validated. */
  readonly status: SfuValidationStatus;
  /** One-paragraph evidence, citing the measurement. */
  readonly evidence: string;
  /**
   * Compute capabilities (e.g. `"8.0"`) of the parts the status was established on; on any other
   * part the function is `model-only` (`sfuStatusOn`). Absent: the status holds wherever the
   * model is used (a model-only or IEEE function).
   */
  readonly checkedOn?: readonly string[];
}

/** Descriptor of an SFU model, reported in verdicts. */
export interface SfuModelDescriptor {
  /** Stable identifier, e.g. `"tesla-sfu-v1"`. */
  readonly id: string;
  /** Per-function status. */
  readonly functions: {
    readonly rcp: SfuFunctionStatus;
    readonly rsqrt: SfuFunctionStatus;
    readonly ex2: SfuFunctionStatus;
    readonly lg2: SfuFunctionStatus;
  };
  /** MUFU functions this model does not provide, with the reason. */
  readonly unsupported: Readonly<Record<string, string>>;
}

/** A100, the Ada part probed as L4 ('L40S') and H100 NVL: where the RCP/RSQ probes ran. */
const _HISTOGRAM_PARTS: readonly string[] = ["8.0", "8.9", "9.0"];

const _SPECIALS = "Special values (zero, subnormal flush, Inf, NaN = 0x7fffffff, FTZ) follow " +
  "envytools' G80 model and are unverified on modern GPUs (sfu_tesla_model.md §6).";

/**
 * The Tesla lookup-table interpolator model (envytools ROM tables, `tables/sfu/tesla_sfu_v1.bin`)
 * as used for `rcp/rsqrt/ex2/lg2.approx.ftz.f32` on A100, Ada, Hopper and Blackwell.
 *
 * @example
 * ```ts
 * import { SFU_TESLA_V1 } from "./sfu_tesla_v1.ts";
 * if (SFU_TESLA_V1.functions.ex2.status !== "spot-checked") throw new Error();
 * if (SFU_TESLA_V1.functions.lg2.status !== "model-only") throw new Error();
 * if (!Object.isFrozen(SFU_TESLA_V1.functions.rcp)) throw new Error();
 * ```
 */
export const SFU_TESLA_V1: SfuModelDescriptor = _deepFreeze({
  id: "tesla-sfu-v1",
  functions: {
    rcp: {
      status: "histogram-matched",
      evidence: "Over all 2^23 mantissas the model gives 7,280,086 equal / 1,108,522 off by one " +
        "(374,723 at -1, 733,799 at +1) / 0 off by two against the correctly rounded reciprocal: " +
        "the figures the reference emulator's probe printed on A100, L4 ('L40S') and H100 NVL " +
        "(sfu_tesla_model.md §2, sfu_and_math.md §4). Per-input GPU outputs not yet compared. " +
        "Not compared on any other part (Blackwell, GA10x sm_8.6, Volta). " + _SPECIALS,
      checkedOn: _HISTOGRAM_PARTS,
    },
    rsqrt: {
      status: "histogram-matched",
      evidence: "Over all 2^23 mantissas at biased exponents 127 and 128 the model gives " +
        "6,505,163 and 6,637,923 equal to the correctly rounded 1/sqrt(x), 8 off by two (all at " +
        "exponent 127), matching the probe statistics printed on A100, L4 ('L40S') and H100 NVL " +
        "(sfu_and_math.md §2). Per-input GPU outputs not yet compared. Not compared on any " +
        "other part (Blackwell, GA10x sm_8.6, Volta). " + _SPECIALS,
      checkedOn: _HISTOGRAM_PARTS,
    },
    ex2: {
      status: "spot-checked",
      evidence: "5 unambiguous GB200 (sm_100) ex2.approx.ftz.f32 outputs match exactly, 3 of " +
        "which differ from the correctly rounded value (sfu_tesla_model.md §4). The 7.23 " +
        "truncation of |x| < 1 (hypothesis H1) and the Volta+ overflow/underflow thresholds are " +
        "unmeasured. On A100, L4 and H100 NVL no ex2 output was compared input by input: the " +
        "status stands there on the tables those parts share (their RCP/RSQ statistics are the " +
        "same, to the last unit) and, on the A100, on the seed paper's emulator (GPU-probed EX2 " +
        "corrections) giving the same bits over a whole Qwen3 forward. Not on other parts " +
        "(sm_12.0 Blackwell, GA10x sm_8.6, Volta). " + _SPECIALS,
      checkedOn: ["8.0", "8.9", "9.0", "10.0"],
    },
    lg2: {
      status: "model-only",
      evidence: "envytools' G80 sfu_lg2 algorithm over the ROM's LG2 table, truncating the " +
        "result; never compared with any modern GPU output. Plausibility only, over all 2^23 " +
        "mantissas of five binades (tests/slow/hardware/sfu/lg2_histogram_full_test.ts): the " +
        "absolute error is at most 2^-22.15 on [0.5, 1) and 2^-22.58 on [1, 2), inside the " +
        "2^-22 the CUDA documentation gives for lg2.approx.f32 / __log2f there; on [2, 4) the " +
        "result is within 1 ulp of the correctly rounded value, and where |log2 x| >= 16 equal " +
        "or 1 ulp toward zero. " + _SPECIALS,
    },
  },
  unsupported: {
    sin: "ROM table carried in the asset, but modern sin/cos.approx range reduction is not " +
      "specified or measured; not modelled.",
    cos: "As sin.",
  },
});

/**
 * The `ieee` mode: correctly rounded results, not a hardware model.
 *
 * @example
 * ```ts
 * import { SFU_IEEE_V1 } from "./sfu_tesla_v1.ts";
 * if (SFU_IEEE_V1.functions.rcp.status !== "ieee-exact") throw new Error();
 * ```
 */
export const SFU_IEEE_V1: SfuModelDescriptor = _deepFreeze({
  id: "ieee-rn-v1",
  functions: {
    rcp: {
      status: "ieee-exact",
      evidence: "Exact integer division with round-to-nearest-even; tested against a BigInt " +
        "reference on every mantissa and on boundary and random samples.",
    },
    rsqrt: {
      status: "ieee-exact",
      evidence:
        "Float64 estimate corrected by exact integer comparisons; tested against a BigInt " +
        "isqrt reference on every mantissa of both exponent parities and on samples.",
    },
    ex2: {
      status: "ieee-exact",
      evidence: "BigInt fixed-point 2^f with a proven error bound and Ziv's rounding test " +
        "(2^f is irrational for non-integer x, so no result is a midpoint); matches the " +
        "spec's correctly rounded probe values.",
    },
    lg2: {
      status: "ieee-exact",
      evidence: "BigInt fixed-point log2 of the mantissa (atanh series) with a proven error " +
        "bound and Ziv's rounding test (log2 x is irrational unless x is a power of two, which " +
        "is exact); tested against an independent repeated-squaring BigInt reference.",
    },
  },
  unsupported: { sin: "Not provided.", cos: "Not provided." },
});

function _deepFreeze<T>(o: T): T {
  if (typeof o === "object" && o !== null) {
    for (const v of Object.values(o)) _deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * Runs a measured tensor-core vector set through a GPU profile and compares bit for bit.
 *
 * @module
 */
import { convert, formatByName, type FormatName, FP16, FP32 } from "../numerics/mod.ts";
import {
  dotKWalk,
  findDatapath,
  type GpuProfile,
  type InstructionFamily,
  type ProfileDatapath,
} from "../hardware/mod.ts";
import type { VectorOutput, VectorSet } from "../assets/mod.ts";
import { InputError } from "../errors.ts";

/** One differing case. */
export interface VectorMismatch {
  /** Case index (0-based line number). */
  readonly index: number;
  /** A operands (fp32 patterns as stored). */
  readonly a: readonly number[];
  /** B operands. */
  readonly b: readonly number[];
  /** Accumulator actually fed to the model, in the output format. */
  readonly c: number;
  /** Device result (fp32 pattern; fp16 widened). */
  readonly expected: number;
  /** Model result in the same encoding. */
  readonly actual: number;
}

/** Result for one output file. */
export interface VectorOutputResult {
  /** Output file name. */
  readonly file: string;
  /** Datapath used (profile-local id), or null when the profile has none. */
  readonly datapath: string | null;
  /** Cases that matched bit for bit. */
  readonly matched: number;
  /** Cases in the file. */
  readonly total: number;
  /** First mismatches (at most `maxMismatches`). */
  readonly mismatches: readonly VectorMismatch[];
  /** Why nothing was run, when `datapath` is null. */
  readonly reason?: string;
}

/**
 * Runs every case of every output file of a set.
 *
 * @param profile GPU profile
 * @param options the set, its input format and how many mismatches to keep per file
 * @returns one result per output file
 * @throws {InputError} `VECTOR_SET_CAPTURE` when the set's `capture.json` records another input
 *   format than `input` (its cases were measured on another datapath)
 * @throws {InputError} `VECTOR_NOT_REPRESENTABLE` when an operand is not exact in the input format
 * @example
 * ```ts ignore
 * const results = checkVectorSet(profile, { set, input: "bf16" });
 * ```
 */
export function checkVectorSet(
  profile: GpuProfile,
  options: { set: VectorSet; input: FormatName; maxMismatches?: number },
): VectorOutputResult[] {
  const measured = options.set.inputFormat;
  if (measured !== undefined && measured !== options.input) {
    // Operands of one format are often exact in another (bf16 values that fit fp16): the cases
    // would run, and could match, on a datapath the device never used.
    throw new InputError(
      "VECTOR_SET_CAPTURE",
      `Cannot check vector set '${options.set.dir}' as ${options.input}: its capture.json ` +
        `says the inputs are ${measured}`,
    );
  }
  return options.set.outputs.map((out) => _checkOutput(profile, out, options));
}

function _family(instruction: string): InstructionFamily {
  if (instruction.startsWith("wgmma")) return "wgmma";
  if (instruction.startsWith("tcgen05")) return "tcgen05";
  return "mma";
}

function _checkOutput(
  profile: GpuProfile,
  out: VectorOutput,
  options: { set: VectorSet; input: FormatName; maxMismatches?: number },
): VectorOutputResult {
  const { set } = options;
  const family = _family(out.instruction);
  const dp = findDatapath(profile, { family, input: options.input, output: out.format });
  if (dp === undefined) {
    return {
      file: out.file,
      datapath: null,
      matched: 0,
      total: set.cases,
      mismatches: [],
      reason: `profile '${profile.id}' has no ${family} datapath ${options.input}->${out.format}`,
    };
  }
  const a = _toInput(dp, set.a, "a");
  const b = _toInput(dp, set.b, "b");
  const mismatches: VectorMismatch[] = [];
  let matched = 0;
  for (let i = 0; i < set.cases; i++) {
    const c = _accumulator(dp, out, set.c[i] as number);
    const row = (x: Uint32Array) => Array.from(x.subarray(i * set.k, (i + 1) * set.k));
    const d = dotKWalk(dp, { a: row(a), b: row(b), c });
    const actual = out.format === "fp16" ? convert(FP16, FP32, d) : d;
    if (actual === out.d[i]) matched++;
    else if (mismatches.length < (options.maxMismatches ?? 5)) {
      mismatches.push({
        index: i,
        a: row(set.a),
        b: row(set.b),
        c,
        expected: out.d[i] as number,
        actual,
      });
    }
  }
  return { file: out.file, datapath: dp.id, matched, total: set.cases, mismatches };
}

function _accumulator(dp: ProfileDatapath, out: VectorOutput, c: number): number {
  if (out.accumulator === "zero") return 0;
  if (dp.output === FP16) return convert(FP32, FP16, c); // __float2half: nearest-even
  return c;
}

function _toInput(dp: ProfileDatapath, values: Uint32Array, which: string): Uint32Array {
  const input = formatByName(dp.input.name);
  const out = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const x = convert(FP32, input, v, { mode: "rz" });
    if (convert(input, FP32, x) !== v) {
      throw new InputError(
        "VECTOR_NOT_REPRESENTABLE",
        `Cannot use ${which}[${i}] = 0x${
          v.toString(16).padStart(8, "0")
        }: not exact in ${input.name}`,
      );
    }
    out[i] = x;
  }
  return out;
}

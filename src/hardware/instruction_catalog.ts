/**
 * What the hardware offers: tensor-core instructions per architecture (shapes and formats), kept
 * apart from how they round (the datapaths of a GPU profile).
 *
 * Source: NVIDIA PTX ISA 8.7, §9.7.14 (`mma`, `wmma`: shapes and types per target), §9.7.15
 * (`wgmma`, sm_90a), §9.7.16 (`tcgen05.mma`, sm_100a). Only dense, non-block-scaled forms are listed.
 *
 * @module
 */
import type { FormatName } from "../numerics/mod.ts";
import type { InstructionFamily } from "./tensor_core/mod.ts";

/** Compute architectures bitaudit has profiles for. */
export type Architecture = "sm_70" | "sm_80" | "sm_86" | "sm_89" | "sm_90" | "sm_100" | "sm_120";

/** One instruction shape with its operand and accumulator formats. */
export interface InstructionShape {
  /** Instruction family. */
  readonly family: InstructionFamily;
  /** PTX shape, e.g. `m16n8k16`. */
  readonly shape: string;
  /** Reduction depth k of one instruction. */
  readonly k: number;
  /** A/B operand formats. */
  readonly inputs: readonly FormatName[];
  /** Accumulator/result formats. */
  readonly outputs: readonly FormatName[];
}

const F16_OUT: readonly FormatName[] = ["fp32", "fp16"];
const F32_OUT: readonly FormatName[] = ["fp32"];
const FP8: readonly FormatName[] = ["e4m3", "e5m2"];

function _s(
  family: InstructionFamily,
  shape: string,
  inputs: readonly FormatName[],
  outputs: readonly FormatName[],
): InstructionShape {
  const k = Number(/k(\d+)$/.exec(shape)?.[1]);
  return Object.freeze({
    family,
    shape,
    k,
    inputs: Object.freeze([...inputs]),
    outputs: Object.freeze([...outputs]),
  });
}

const _AMPERE = [
  _s("mma", "m16n8k16", ["fp16"], F16_OUT),
  _s("mma", "m16n8k16", ["bf16"], F32_OUT),
  _s("mma", "m16n8k8", ["fp16"], F16_OUT),
  _s("mma", "m16n8k8", ["bf16", "tf32"], F32_OUT),
  _s("mma", "m16n8k4", ["tf32"], F32_OUT),
];
const _ADA = [..._AMPERE, _s("mma", "m16n8k32", FP8, F16_OUT)];

/** Instruction catalog by architecture (frozen, lists and shapes included). */
export const INSTRUCTION_CATALOG: Readonly<Record<Architecture, readonly InstructionShape[]>> =
  _deepFreeze({
    sm_70: [_s("mma", "m8n8k4", ["fp16"], F16_OUT), _s("mma", "m16n16k16", ["fp16"], F16_OUT)],
    sm_80: _AMPERE,
    sm_86: _AMPERE,
    sm_89: _ADA,
    sm_90: [
      ..._ADA,
      _s("wgmma", "m64nNk16", ["fp16"], F16_OUT),
      _s("wgmma", "m64nNk16", ["bf16"], F32_OUT),
      _s("wgmma", "m64nNk8", ["tf32"], F32_OUT),
      _s("wgmma", "m64nNk32", FP8, F16_OUT),
    ],
    sm_100: [
      ..._ADA,
      _s("tcgen05", "kind::f16 k16", ["fp16", "bf16"], F16_OUT),
      _s("tcgen05", "kind::tf32 k8", ["tf32"], F32_OUT),
      _s("tcgen05", "kind::f8f6f4 k32", FP8, F16_OUT),
    ],
    sm_120: _ADA,
  });

/** The catalog and each architecture's list frozen (the shapes are frozen where made). */
function _deepFreeze(
  c: Record<Architecture, readonly InstructionShape[]>,
): Readonly<Record<Architecture, readonly InstructionShape[]>> {
  for (const list of Object.values(c)) Object.freeze(list);
  return Object.freeze(c);
}

/**
 * Finds the instruction shapes of an architecture that take the given formats with depth k.
 *
 * @param arch architecture
 * @param query family, input and output format names, and depth k
 * @returns the matching shapes (empty when the hardware has no such instruction)
 * @example
 * ```ts
 * import { findInstructions } from "./instruction_catalog.ts";
 * const q = { family: "mma", input: "bf16", output: "fp16", k: 16 } as const;
 * if (findInstructions("sm_80", q).length !== 0) throw new Error("no bf16->fp16 mma in PTX");
 * ```
 */
export function findInstructions(
  arch: Architecture,
  query: { family: InstructionFamily; input: FormatName; output: FormatName; k: number },
): InstructionShape[] {
  return INSTRUCTION_CATALOG[arch].filter((s) =>
    s.family === query.family && s.k === query.k && s.inputs.includes(query.input) &&
    s.outputs.includes(query.output)
  );
}

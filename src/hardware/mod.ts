/**
 * Hardware models: GPU profiles, the instruction catalog, the exact FP32 instruction set
 * (`fp32_unit/`), tensor-core arithmetic and the special-function unit.
 *
 * @example
 * ```ts
 * import { findDatapath, parseGpuProfile } from "./mod.ts";
 * const p = parseGpuProfile({
 *   schema: "bitaudit.gpu-profile/v1", id: "x", name: "X", architecture: "sm_90",
 *   computeCapability: "9.0", aliases: [], sources: [], tensorCore: { datapaths: [] },
 * });
 * if (findDatapath(p, { input: "bf16", output: "fp32" }) !== undefined) throw new Error();
 * ```
 * @module
 */
export {
  addF32,
  divF32,
  f2i,
  type F2iOptions,
  f2iValue,
  F32_RN,
  type F32Arith,
  f32Arith,
  type F32OpOptions,
  flushSubnormal,
  fmaF32,
  fmaRnValue,
  isNanF32,
  mulF32,
  roundToF32,
  roundToOdd,
  saturateF32,
  sqrtF32,
} from "./fp32_unit/mod.ts";
export {
  type ComponentEvidence,
  datapathEvidenceLevel,
  EVIDENCE_LEVELS,
  type EvidenceLevel,
  meetsEvidence,
  sfuEvidenceLevel,
  weakestEvidence,
} from "./evidence_level.ts";
export { type GpuLinks, NVLINK_FORMS, type NvlinkForm, parseGpuLinks } from "./gpu_links.ts";
export {
  type DatapathQuery,
  findDatapath,
  type GpuProfile,
  parseGpuProfile,
} from "./gpu_profile.ts";
export {
  type Architecture,
  findInstructions,
  INSTRUCTION_CATALOG,
  type InstructionShape,
} from "./instruction_catalog.ts";
export {
  createSfu,
  type CreateSfuOptions,
  decodeSfuTables,
  encodeSfuTables,
  type IeeeSfuOptions,
  meetsSfuStatus,
  type Sfu,
  SFU_IEEE_V1,
  SFU_TESLA_V1,
  type SfuDescription,
  sfuDescription,
  type SfuFn,
  type SfuFnName,
  type SfuFunctionStatus,
  type SfuMode,
  type SfuModelDescriptor,
  sfuStatusOn,
  sfuTableByteLength,
  type SfuTableName,
  type SfuTables,
  type SfuValidationStatus,
} from "./sfu/mod.ts";
export {
  blockFma,
  type BlockOperands,
  type Chain,
  checkKWalkOperands,
  type Datapath,
  dotKWalk,
  gatherSegments,
  type InstructionFamily,
  type KSegment,
  type KWalkGemmOperands,
  type KWalkOperands,
  kWalkReference,
  type MmaOperands,
  mmaStep,
  type OperandMemo,
  parseDatapath,
  type ProfileDatapath,
} from "./tensor_core/mod.ts";
export { KNOWN_SM_COUNTS, knownSmCount, smCountMismatch } from "./sm_counts.ts";

/**
 * Hardware models: GPU profiles, the instruction catalog and tensor-core arithmetic.
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
  parseDatapath,
  type ProfileDatapath,
} from "./tensor_core/mod.ts";

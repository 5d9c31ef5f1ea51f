/**
 * The only way from a name or digest to trusted, parsed, frozen assets: id -> manifest entry ->
 * bytes checked against their length and SHA-256 -> the core's validating parser -> id check ->
 * frozen object, with every asset read recorded by the store for the verdict. Used alike by the
 * CLI, the prover and the verifier: GPU profiles, stack profiles, dispatch catalogs and recipes
 * (the {@link ASSET_KINDS} registry), the SFU ROM tables, the compiled GEMM kernel, the bundled
 * measured vector sets, and model checkpoints: by digest from a blob store
 * ({@link openCheckpointByDigest}: digests, size limits and the config's model type checked, each
 * failure returned as a typed {@link CheckpointFailure} for the verifier to judge), from a
 * directory onto shared memory ({@link openCheckpointDir}), and bundled ones
 * ({@link loadBundledCheckpoint}).
 *
 * @example
 * ```ts
 * import { openAssetStore } from "../assets/mod.ts";
 * import {
 *   listVectorSets,
 *   loadAsset,
 *   loadGpuProfile,
 *   openCheckpointByDigest,
 *   STACK_PROFILES,
 * } from "./mod.ts";
 * const store = await openAssetStore();
 * const { profile, sha256 } = await loadGpuProfile(store, "a100");
 * if (profile.id !== "a100" || !Object.isFrozen(profile) || sha256.length !== 64) throw new Error();
 * const stack = await loadAsset(store, { kind: STACK_PROFILES, id: "pytorch-cublas-linear" });
 * if (store.used()[stack.path] !== stack.sha256) throw new Error("every read is recorded");
 * if (!listVectorSets(store).some((s) => s.gpu === "H100" && s.format === "bf16")) {
 *   throw new Error("the measured vectors are manifest assets");
 * }
 * const blobs = { dir: "empty", get: () => Promise.resolve(null) };
 * const h = "ab".repeat(32);
 * const ckpt = await openCheckpointByDigest(blobs, {
 *   type: "qwen3", checkpointSha256: h, configSha256: h, files: { "model.safetensors": h } });
 * if (ckpt.ok || ckpt.failure.kind !== "checkpoint-digest-mismatch") throw new Error();
 * ```
 * @module
 */
export { listAssetIds, loadAsset } from "./load_asset.ts";
export type { AssetKind, LoadedAsset } from "./load_asset.ts";
export {
  ASSET_KINDS,
  DISPATCH_CATALOGS,
  GPU_PROFILES,
  RECIPES,
  STACK_PROFILES,
} from "./asset_kinds.ts";
export { listGpuProfileIds, loadGpuProfile } from "./load_profiles.ts";
export type { LoadedProfile } from "./load_profiles.ts";
export { loadNamedRecipe, recipeFromDescriptor, recipeFromJson } from "./load_recipe.ts";
export { recipeNameContradiction } from "./recipe_name_contradiction.ts";
export { loadSfuForStack, SFU_TABLES_ASSET } from "./load_sfu.ts";
export { modelRuntime, type RuntimeKernel } from "./model_runtime.ts";
export { GEMM_ENGINE_ASSET, loadGemmEngine } from "./load_gemm_engine.ts";
export { listVectorSets, loadVectorSet, MEASURED_VECTORS } from "./load_vector_sets.ts";
export type { VectorSetRef } from "./load_vector_sets.ts";
export type {
  CheckpointFailure,
  CheckpointFailureKind,
  CommittedFile,
} from "./checkpoint_failure.ts";
export type { OpenedCheckpoint } from "./opened_checkpoint.ts";
export {
  type CheckpointByDigest,
  type CheckpointCommitment,
  openCheckpointByDigest,
} from "./open_checkpoint_by_digest.ts";
export { openCheckpointDir } from "./open_checkpoint_dir.ts";
export { openCheckpointBytes } from "./open_checkpoint_bytes.ts";
export { type BundledCheckpoint, loadBundledCheckpoint } from "./load_bundled_checkpoint.ts";
export {
  stackSplitContradiction,
  tensorParallelOf,
  type TensorParallelResolution,
} from "./tensor_parallel_of.ts";
export {
  type AllReduceMessages,
  type AllReducePathFinding,
  allReducePathFinding,
  type DispatchGpu,
  ncclAllReduceUse,
  unknownInterconnect,
} from "./all_reduce_dispatch.ts";
export { openCheckpointPaths } from "./open_checkpoint_paths.ts";

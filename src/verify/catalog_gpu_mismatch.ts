/**
 * Whether a dispatch catalog was captured on the GPU a record names. A catalog is one library's
 * heuristic choices on one chip (its `gpu`); on another GPU cuBLAS may pick other kernels, so the
 * verifier does not recompute a record with it (NOT_VERIFIED), `claims append` refuses to write such
 * a record, and the simulated prover refuses a scenario whose honest records would name one. All
 * three ask this one question.
 *
 * @module
 */

/**
 * Why a catalog does not fit the record's GPU, or null.
 *
 * @param catalog the catalog: its id and the GPU profile id it was captured on
 * @param profileId the record's GPU profile id
 * @returns the reason, as the verifier words it, or null when the GPUs agree
 * @example
 * ```ts
 * import { catalogGpuMismatch } from "./catalog_gpu_mismatch.ts";
 * const catalog = { id: "demo-small-transformer-a100", gpu: "a100" };
 * if (catalogGpuMismatch(catalog, "a100") !== null) throw new Error();
 * const why = catalogGpuMismatch(catalog, "h100-sxm");
 * if (why !== "catalog 'demo-small-transformer-a100' was captured on 'a100', not 'h100-sxm'") {
 *   throw new Error(why ?? "null");
 * }
 * ```
 */
export function catalogGpuMismatch(
  catalog: { readonly id: string; readonly gpu: string },
  profileId: string,
): string | null {
  if (catalog.gpu === profileId) return null;
  return `catalog '${catalog.id}' was captured on '${catalog.gpu}', not '${profileId}'`;
}

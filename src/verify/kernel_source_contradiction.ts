/**
 * Whether a record's GEMM kernel is of the kind its stack takes its kernels from: an explicit
 * recipe on a recipe stack (CUTLASS), a dispatch catalog on a catalog stack (cuBLAS behind PyTorch
 * or vLLM). A kernel of the other kind contradicts the record's own stack (a FAIL): recomputing it
 * would check a stack the record does not name. The verifier's kernel resolution (`_resolveKernel`)
 * and the simulated prover's honest-record check both ask this one question.
 *
 * @module
 */
/**
 * Why a record's kernel reference contradicts its stack's kernel source, or null.
 *
 * @param kernel the record's kernel reference (a recipe or a catalog; a prover's, before the
 *   catalog is loaded, names the catalog by id alone)
 * @param stack the record's stack: its id and where it takes its GEMM kernels from
 * @returns the verdict's reason, as the verifier words it, or null when the kinds agree
 * @example
 * ```ts
 * import { kernelSourceContradiction } from "./kernel_source_contradiction.ts";
 * const cutlass = { id: "cutlass-3.5-default", gemm: { kernelSource: "recipe" as const } };
 * const cublas = { id: "pytorch-cublas-linear", gemm: { kernelSource: "catalog" as const } };
 * const catalog = { catalog: "c", catalogSha256: "0".repeat(64) };
 * if (kernelSourceContradiction(catalog, cublas) !== null) throw new Error();
 * if (!/runs explicit recipes/.test(kernelSourceContradiction(catalog, cutlass) ?? "")) {
 *   throw new Error();
 * }
 * if (kernelSourceContradiction({ recipe: {} }, cublas) === null) throw new Error();
 * ```
 */
export function kernelSourceContradiction(
  kernel: { readonly recipe: unknown } | { readonly catalog: string },
  stack: { readonly id: string; readonly gemm: { readonly kernelSource: string } },
): string | null {
  const source = stack.gemm.kernelSource;
  if ("recipe" in kernel) {
    return source === "recipe"
      ? null
      : `stack '${stack.id}' dispatches through a catalog, but the record names a recipe`;
  }
  // The stack runs explicit recipes (CUTLASS): a catalog's kernels are another library's.
  return source === "catalog"
    ? null
    : `stack '${stack.id}' runs explicit recipes, but the record names catalog '${kernel.catalog}'`;
}

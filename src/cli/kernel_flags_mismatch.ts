/**
 * `kernelFlagsMismatch`: the GEMM kernel flags a command was given, held to the kind the stack
 * takes (a dispatch catalog or a recipe). A flag of the other kind would be left unread, and the
 * command would run (and report) kernels that were not the ones named.
 *
 * @module
 */

/**
 * Says why the kernel flags given do not fit the stack, or null when they do.
 *
 * @param stack the stack profile (its id and where it takes its GEMM kernels from)
 * @param o `catalog` and `recipe`: the values given (undefined: not given); `catalogFlag`: the
 *   command's name for the catalog flag (`--kernel`, `--catalog`); `recipeDefault`: whether the
 *   command runs a default recipe when a recipe stack is given none
 * @returns the reason, or null
 * @example
 * ```ts
 * import { kernelFlagsMismatch } from "./kernel_flags_mismatch.ts";
 * const stack = { id: "s", gemm: { kernelSource: "catalog" as const } };
 * const flags = { catalogFlag: "--kernel", recipeDefault: true };
 * if (kernelFlagsMismatch(stack, { ...flags, catalog: "c", recipe: undefined }) !== null) {
 *   throw new Error();
 * }
 * if (kernelFlagsMismatch(stack, { ...flags, catalog: undefined, recipe: "r" }) === null) {
 *   throw new Error();
 * }
 * ```
 */
export function kernelFlagsMismatch(
  stack: { readonly id: string; readonly gemm: { readonly kernelSource: "recipe" | "catalog" } },
  o: {
    readonly catalog: string | undefined;
    readonly recipe: string | undefined;
    readonly catalogFlag: string;
    readonly recipeDefault: boolean;
  },
): string | null {
  if (o.catalog !== undefined && o.recipe !== undefined) {
    return `give ${o.catalogFlag} or --recipe, not both`;
  }
  const source = stack.gemm.kernelSource;
  const given = o.catalog !== undefined ? "catalog" : o.recipe !== undefined ? "recipe" : null;
  if (given === source || (given === null && source === "recipe" && o.recipeDefault)) return null;
  const wanted = source === "catalog" ? `${o.catalogFlag} <catalog>` : "--recipe";
  return `stack '${stack.id}' takes its GEMM kernels from a ${source}: give ${wanted}` +
    (given === null ? "" : `, not ${given === "catalog" ? o.catalogFlag : "--recipe"}`);
}

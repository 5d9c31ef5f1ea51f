/**
 * GEMM recipes as data: the order of operations of a library kernel, independent of any GPU.
 *
 * Descriptor JSON (schema `bitaudit.gemm-recipe/v1`), one of:
 * ```
 * {"family": "kwalk", "threadblock": [128,128,64], "warp": [64,64,64], "instruction": [16,8,16]}
 * {"family": "single_walk"}
 * {"family": "serial_split_k",   "splitK": s, "tileK": 64}
 * {"family": "sliced_k",         "splitK": s, "tileK": 64, "warpK": 32}
 * {"family": "parallel_split_k", "splitK": s, "tileK": 64, "workspace": "output" | "fp32"}
 * ```
 * (plus `"schema"` and an optional `"name"`, a label here: a name that is a bundled recipe's id
 * states that recipe, held to its body where the bundled recipes are, in `resolve`). Spec:
 * `gemm.md` §1-§2.
 *
 * @module
 */
import { fieldsOf, int, oneOf, onlyKnown, str } from "../../json_fields.ts";

/** CUTLASS default mainloop: one sequential K-walk per output, tiles recorded for provenance. */
export interface KWalkRecipe {
  /** Recipe family. */
  readonly family: "kwalk";
  /** Threadblock tile [M, N, K]. */
  readonly threadblock: readonly [number, number, number];
  /** Warp tile [M, N, K]; a warp K below the threadblock K means sliced-K partitions. */
  readonly warp: readonly [number, number, number];
  /** Instruction shape [M, N, K]. */
  readonly instruction: readonly [number, number, number];
}

/** cuBLAS single walk (split 1, no intra-CTA K partition): identical to `kwalk`. */
export interface SingleWalkRecipe {
  /** Recipe family. */
  readonly family: "single_walk";
}

/** Serial split-K: partitions in order, each added to the previous output-rounded result. */
export interface SerialSplitKRecipe {
  /** Recipe family. */
  readonly family: "serial_split_k";
  /** Number of K partitions. */
  readonly splitK: number;
  /** K-tile granularity of the partition boundaries. */
  readonly tileK: number;
}

/** Sliced-K inside a CTA (warp stripes of `warpK` every `tileK`), plus outer serial split-K. */
export interface SlicedKRecipe {
  /** Recipe family. */
  readonly family: "sliced_k";
  /** Number of outer K partitions. */
  readonly splitK: number;
  /** K-tile granularity of the partition boundaries. */
  readonly tileK: number;
  /** Stripe width owned by one warp; `tileK / warpK` partitions. */
  readonly warpK: number;
}

/** Parallel split-K through a workspace, reduced by a separate pass in partition order. */
export interface ParallelSplitKRecipe {
  /** Recipe family. */
  readonly family: "parallel_split_k";
  /** Number of K partitions. */
  readonly splitK: number;
  /** K-tile granularity of the partition boundaries. */
  readonly tileK: number;
  /** Element type of the workspace partials: the output type or fp32. */
  readonly workspace: "output" | "fp32";
}

/** Any GEMM recipe. */
export type GemmRecipe =
  | KWalkRecipe
  | SingleWalkRecipe
  | SerialSplitKRecipe
  | SlicedKRecipe
  | ParallelSplitKRecipe;

/** Schema id of recipe descriptors. */
export const RECIPE_SCHEMA = "bitaudit.gemm-recipe/v1";

/**
 * Validates a recipe descriptor and freezes it.
 *
 * @param json parsed descriptor
 * @param path path for error messages (default `recipe`)
 * @returns the recipe
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseRecipe } from "./recipe.ts";
 * const r = parseRecipe({ family: "serial_split_k", splitK: 3, tileK: 64 });
 * if (r.family !== "serial_split_k" || r.splitK !== 3) throw new Error();
 * ```
 */
export function parseRecipe(json: unknown, path = "recipe"): GemmRecipe {
  const f = fieldsOf(json, path);
  const family = oneOf(
    f,
    "family",
    [
      "kwalk",
      "single_walk",
      "serial_split_k",
      "sliced_k",
      "parallel_split_k",
    ] as const,
  );
  if (f.obj.schema !== undefined && str(f, "schema") !== RECIPE_SCHEMA) {
    throw new RangeError(`Cannot read '${path}.schema': expected '${RECIPE_SCHEMA}'`);
  }
  if (f.obj.name !== undefined) str(f, "name", /^[a-z0-9][a-z0-9_.-]{0,63}$/);
  const common = ["schema", "name", "family"];
  const split = () => int(f, "splitK", { min: 1, max: 1024 });
  const tileK = () => int(f, "tileK", { min: 1, max: 4096 });
  switch (family) {
    case "kwalk": {
      onlyKnown(f, [...common, "threadblock", "warp", "instruction"]);
      const tb = _triple(f.obj.threadblock, `${path}.threadblock`);
      const warp = _triple(f.obj.warp, `${path}.warp`);
      const inst = _triple(f.obj.instruction, `${path}.instruction`);
      for (let i = 0; i < 3; i++) {
        if (tb[i]! % warp[i]! !== 0 || warp[i]! % inst[i]! !== 0) {
          throw new RangeError(
            `Cannot read '${path}': warp must divide threadblock and instruction warp`,
          );
        }
      }
      return Object.freeze({ family, threadblock: tb, warp, instruction: inst });
    }
    case "single_walk":
      onlyKnown(f, common);
      return Object.freeze({ family });
    case "serial_split_k":
      onlyKnown(f, [...common, "splitK", "tileK"]);
      return Object.freeze({ family, splitK: split(), tileK: tileK() });
    case "sliced_k": {
      onlyKnown(f, [...common, "splitK", "tileK", "warpK"]);
      const t = tileK();
      const warpK = int(f, "warpK", { min: 1, max: t });
      if (t % warpK !== 0) throw new RangeError(`Cannot read '${path}.warpK': must divide tileK`);
      return Object.freeze({ family, splitK: split(), tileK: t, warpK });
    }
    case "parallel_split_k":
      onlyKnown(f, [...common, "splitK", "tileK", "workspace"]);
      return Object.freeze({
        family,
        splitK: split(),
        tileK: tileK(),
        workspace: oneOf(f, "workspace", ["output", "fp32"] as const),
      });
  }
}

function _triple(v: unknown, path: string): readonly [number, number, number] {
  if (
    !Array.isArray(v) || v.length !== 3 ||
    v.some((x) => !Number.isInteger(x) || x < 1 || x > 4096)
  ) {
    throw new RangeError(`Cannot read '${path}': expected three integers in 1..4096`);
  }
  return Object.freeze([v[0], v[1], v[2]] as [number, number, number]);
}

/**
 * Dispatch catalogs: which recipe a GPU's library runs for a GEMM shape (spec `gemm.md` §5-§7).
 *
 * Schema `bitaudit.dispatch-catalog/v1`:
 * ```
 * { "schema", "id", "gpu": "<profile id>", "library": {"name", "version"},
 *   "dtypes": {"a", "b", "out", "compute"}, "layout": "tn"|"nn", "sources": [..],
 *   "entries": [ {"n", "k", "mMin", "mMax", "recipe": <descriptor>, "kernel": str|null,
 *                 "verified": true|false|null, "evidence": str} ] }
 * ```
 * A shape outside every entry is "not covered": never a silent fallback to another recipe. An
 * entry with `verified: false` (the dispatch is known but no recipe reproduces it, e.g. an
 * `nvjet` kernel) is not covered either.
 *
 * @module
 */
import { arr, fieldsOf, int, oneOf, onlyKnown, str, strings } from "../../json_fields.ts";
import { type GemmRecipe, parseRecipe } from "./recipe.ts";
import { recipeFit } from "./recipe_fit.ts";

/** One catalog region. */
export interface CatalogEntry {
  /** Output features N of the region. */
  readonly n: number;
  /** Reduction length K of the region. */
  readonly k: number;
  /** Smallest M (tokens) of the region. */
  readonly mMin: number;
  /** Largest M (tokens) of the region. */
  readonly mMax: number;
  /** The recipe the library runs in the region. */
  readonly recipe: GemmRecipe;
  /** Kernel symbol observed on the GPU, if captured. */
  readonly kernel: string | null;
  /** true: recipe reproduced the library bit for bit; false: it does not; null: unchecked. */
  readonly verified: boolean | null;
  /** What the verification status rests on. */
  readonly evidence: string;
  /**
   * Whether the region is a linear with a bias (PyTorch's `addmm` path, the bias added in the
   * epilogue); absent in the file: false. Biased and unbiased calls of one shape may run
   * different kernels, so each is covered only by its own entries.
   */
  readonly bias: boolean;
}

/** A validated dispatch catalog. */
export interface DispatchCatalog {
  /** Schema of the catalog file. */
  readonly schema: "bitaudit.dispatch-catalog/v1";
  /** Catalog id. */
  readonly id: string;
  /** GPU profile id the catalog was captured on. */
  readonly gpu: string;
  /** The library that dispatches (name and version). */
  readonly library: { readonly name: string; readonly version: string };
  /** Element types of A, B, the output and the compute type. */
  readonly dtypes: {
    readonly a: string;
    readonly b: string;
    readonly out: string;
    readonly compute: string;
  };
  /** cuBLAS operand layout of the call (`tn` is `torch.nn.functional.linear`). */
  readonly layout: "tn" | "nn";
  /** Where the catalog's facts come from. */
  readonly sources: readonly string[];
  /** The regions, which do not overlap. */
  readonly entries: readonly CatalogEntry[];
}

/** Result of a lookup. */
export type CatalogLookup =
  | { readonly covered: true; readonly recipe: GemmRecipe; readonly entry: CatalogEntry }
  | { readonly covered: false; readonly reason: string };

/**
 * Validates a catalog document; overlapping regions are refused.
 *
 * @param json parsed JSON
 * @returns the frozen catalog
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseDispatchCatalog } from "./dispatch_catalog.ts";
 * const c = parseDispatchCatalog({
 *   schema: "bitaudit.dispatch-catalog/v1", id: "x", gpu: "a100",
 *   library: { name: "cublas", version: "12" }, dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" },
 *   layout: "tn", sources: [], entries: [],
 * });
 * if (c.entries.length !== 0) throw new Error();
 * ```
 */
export function parseDispatchCatalog(json: unknown): DispatchCatalog {
  const f = fieldsOf(json, "catalog");
  onlyKnown(f, ["schema", "id", "gpu", "library", "dtypes", "layout", "sources", "entries"]);
  if (str(f, "schema") !== "bitaudit.dispatch-catalog/v1") {
    throw new RangeError("Cannot read 'catalog.schema': expected 'bitaudit.dispatch-catalog/v1'");
  }
  const lib = fieldsOf(f.obj.library, "catalog.library");
  onlyKnown(lib, ["name", "version"]);
  const dt = fieldsOf(f.obj.dtypes, "catalog.dtypes");
  onlyKnown(dt, ["a", "b", "out", "compute"]);
  const entries = arr(f, "entries").map((e, i) => _entry(e, `catalog.entries[${i}]`));
  entries.forEach((e, i) => {
    for (const o of entries.slice(0, i)) {
      if (
        o.n === e.n && o.k === e.k && o.bias === e.bias && e.mMin <= o.mMax && o.mMin <= e.mMax
      ) {
        throw new RangeError(`Cannot read 'catalog.entries[${i}]': overlaps an earlier region`);
      }
    }
  });
  return Object.freeze({
    schema: "bitaudit.dispatch-catalog/v1",
    id: str(f, "id", /^[a-z0-9][a-z0-9_.-]{0,127}$/),
    gpu: str(f, "gpu"),
    library: Object.freeze({ name: str(lib, "name"), version: str(lib, "version") }),
    dtypes: Object.freeze({
      a: str(dt, "a"),
      b: str(dt, "b"),
      out: str(dt, "out"),
      compute: str(dt, "compute"),
    }),
    layout: oneOf(f, "layout", ["tn", "nn"] as const),
    sources: Object.freeze([...strings(f, "sources")]),
    entries: Object.freeze(entries),
  });
}

function _entry(json: unknown, path: string): CatalogEntry {
  const f = fieldsOf(json, path);
  onlyKnown(f, ["n", "k", "mMin", "mMax", "recipe", "kernel", "verified", "evidence", "bias"]);
  const big = { min: 1, max: 2 ** 31 };
  const mMin = int(f, "mMin", big);
  const mMax = int(f, "mMax", big);
  if (mMax < mMin) throw new RangeError(`Cannot read '${path}.mMax': below mMin`);
  const kernel = f.obj.kernel;
  if (kernel !== null && typeof kernel !== "string") {
    throw new TypeError(`Cannot read '${path}.kernel': expected a string or null`);
  }
  const verified = f.obj.verified;
  if (verified !== null && typeof verified !== "boolean") {
    throw new TypeError(`Cannot read '${path}.verified': expected true, false or null`);
  }
  return Object.freeze({
    n: int(f, "n", big),
    k: int(f, "k", big),
    mMin,
    mMax,
    recipe: parseRecipe(f.obj.recipe, `${path}.recipe`),
    kernel,
    verified,
    evidence: str(f, "evidence"),
    bias: _bias(f.obj.bias, path),
  });
}

function _bias(v: unknown, path: string): boolean {
  if (v !== undefined && typeof v !== "boolean") {
    throw new TypeError(`Cannot read '${path}.bias': expected true or false`);
  }
  return v === true;
}

/**
 * Looks a GEMM shape up.
 *
 * @param catalog the catalog
 * @param query shape, operand/output dtypes, layout, and `bias` (a linear with a bias: only
 *   entries marked `bias` cover it)
 * @returns the recipe, or `covered: false` with the reason (also when the entry's recipe does
 *   not fit K: `recipeFit`)
 * @example
 * ```ts
 * import { lookupRecipe, parseDispatchCatalog } from "./dispatch_catalog.ts";
 * const c = parseDispatchCatalog({
 *   schema: "bitaudit.dispatch-catalog/v1", id: "x", gpu: "a100",
 *   library: { name: "cublas", version: "12" }, dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" },
 *   layout: "tn", sources: [], entries: [],
 * });
 * const r = lookupRecipe(c, { m: 1, n: 2, k: 3, dtype: "bf16", out: "bf16", layout: "tn" });
 * if (r.covered) throw new Error();
 * ```
 */
export function lookupRecipe(
  catalog: DispatchCatalog,
  query: {
    m: number;
    n: number;
    k: number;
    dtype: string;
    out: string;
    layout: "tn" | "nn";
    bias?: boolean;
  },
): CatalogLookup {
  const { m, n, k } = query;
  const bias = query.bias === true;
  const d = catalog.dtypes;
  if (query.dtype !== d.a || query.dtype !== d.b || query.out !== d.out) {
    return {
      covered: false,
      reason:
        `catalog '${catalog.id}' is for ${d.a}x${d.b}->${d.out}, not ${query.dtype}->${query.out}`,
    };
  }
  if (query.layout !== catalog.layout) {
    return { covered: false, reason: `catalog '${catalog.id}' is for layout ${catalog.layout}` };
  }
  const entry = catalog.entries.find((e) =>
    e.n === n && e.k === k && e.bias === bias && e.mMin <= m && m <= e.mMax
  );
  if (entry === undefined) {
    return {
      covered: false,
      reason: `catalog '${catalog.id}' does not cover M=${m} N=${n} K=${k}${
        bias ? " with a bias" : ""
      }`,
    };
  }
  if (entry.verified === false) {
    return {
      covered: false,
      reason: `M=${m} N=${n} K=${k} dispatches ${
        entry.kernel ?? "a kernel"
      } that no recipe reproduces (${entry.evidence})`,
    };
  }
  // An entry names its exact K, but nothing in the file ties its recipe to that K.
  const fit = recipeFit(entry.recipe, k);
  if (!fit.fits) return { covered: false, reason: `M=${m} N=${n} K=${k}: ${fit.reason}` };
  return { covered: true, recipe: entry.recipe, entry };
}

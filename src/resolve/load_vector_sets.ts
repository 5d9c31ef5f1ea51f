/**
 * The bundled measured tensor-core vector sets (Khattak & Mikaitis captures), listed from the
 * asset manifest and read through the hash-checked store, so every measured file is checked
 * against its digest before it is parsed.
 *
 * @module
 */
import { type AssetStore, parseVectorSet, type VectorSet } from "../assets/mod.ts";
import { InputError } from "../errors.ts";

/** Manifest folder of the bundled measured vectors, laid out as `<GPU>/<format>/<file>`. */
export const MEASURED_VECTORS = "tests/vectors/khattak-mikaitis/";

/** Largest vector file read (the captures are at most a few MiB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** One bundled vector set, as the manifest lists it. */
export interface VectorSetRef {
  /** GPU folder, e.g. `A100` (matched against profile aliases). */
  readonly gpu: string;
  /** Format folder, e.g. `bf16` or `E4M3`. */
  readonly format: string;
  /** Manifest folder of the set, ending in `/`. */
  readonly path: string;
  /** File names in the set. */
  readonly files: readonly string[];
}

/**
 * Lists the bundled vector sets the manifest knows, sorted by GPU then format folder.
 *
 * @param store asset store
 * @returns the sets
 * @example
 * ```ts ignore
 * listVectorSets(await openAssetStore()).map((s) => `${s.gpu}/${s.format}`); // ["A100/bf16", ...]
 * ```
 */
export function listVectorSets(store: AssetStore): VectorSetRef[] {
  const sets = new Map<string, { gpu: string; format: string; files: string[] }>();
  for (const path of Object.keys(store.manifest.assets)) {
    if (!path.startsWith(MEASURED_VECTORS)) continue;
    const parts = path.slice(MEASURED_VECTORS.length).split("/");
    if (parts.length !== 3) continue; // README, LICENCE and the like at the top
    const [gpu, format, file] = parts as [string, string, string];
    const set = sets.get(`${gpu}/${format}`) ?? { gpu, format, files: [] };
    set.files.push(file);
    sets.set(`${gpu}/${format}`, set);
  }
  return [...sets.values()]
    .sort((x, y) => _cmp(x.gpu, y.gpu) || _cmp(x.format, y.format))
    .map((s) =>
      Object.freeze({
        gpu: s.gpu,
        format: s.format,
        path: `${MEASURED_VECTORS}${s.gpu}/${s.format}/`,
        files: Object.freeze(s.files.sort()),
      })
    );
}

/**
 * Reads and parses one bundled vector set, each file checked against the manifest first.
 *
 * @param store asset store
 * @param set a set from {@link listVectorSets}
 * @returns the parsed set (`dir` is the manifest folder)
 * @throws {AssetError} `ASSET_*` when a file is missing or tampered with
 * @throws {InputError} `VECTOR_SET_*` for malformed or inconsistent files
 * @example
 * ```ts ignore
 * const [first] = listVectorSets(store);
 * const set = await loadVectorSet(store, first!);
 * ```
 */
export async function loadVectorSet(store: AssetStore, set: VectorSetRef): Promise<VectorSet> {
  const decoder = new TextDecoder();
  return await parseVectorSet(set.path.slice(0, -1), {
    names: set.files,
    read: async (name) => {
      const path = `${set.path}${name}`;
      if ((store.manifest.assets[path]?.bytes ?? 0) > MAX_FILE_BYTES) {
        throw new InputError("VECTOR_SET_TOO_LARGE", `Cannot read '${path}': larger than 64 MiB`);
      }
      return decoder.decode(await store.read(path));
    },
  });
}

/** Code-unit order, as `Array.prototype.sort` without a comparator. */
function _cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

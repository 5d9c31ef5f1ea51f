/**
 * The bundled measured tensor-core vector sets (Khattak & Mikaitis captures on A100, L40S and
 * H100) run against the matching GPU profiles: GPU x format x output -> matched/total. The
 * bundled sets are manifest assets, read through `src/resolve` (each file digest-checked); a
 * root folder given by the user is read from its files.
 *
 * @module
 */
import { openAssetStore, readVectorSet, type VectorSet } from "../assets/mod.ts";
import { checkVectorSet } from "../verify/mod.ts";
import {
  listGpuProfileIds,
  listVectorSets,
  loadGpuProfile,
  loadVectorSet,
} from "../resolve/mod.ts";
import type { FormatName } from "../numerics/mod.ts";
import { InputError } from "../errors.ts";
import { table } from "./output.ts";

/** One row of the vector table. */
export interface VectorRow {
  gpu: string;
  profile: string;
  format: string;
  output: string;
  datapath: string | null;
  matched: number;
  total: number;
}

/**
 * Runs every vector set through the profile whose aliases name its GPU folder: the bundled sets
 * (manifest assets, digest-checked), or every set under a user's `<GPU>/<format>/` root.
 *
 * @param root vector root to read instead of the bundled sets
 * @returns one row per output file
 * @throws {InputError} `DEMO_UNKNOWN_GPU`, vector-set errors; `VECTOR_SET_MISSING` also when no
 *   vector set (no output file) is found under the root
 * @throws {AssetError} when a bundled vector file is missing or tampered with
 * @example
 * ```ts ignore
 * const rows = await runBundledVectors();
 * ```
 */
export async function runBundledVectors(
  root?: string,
): Promise<(VectorRow & { sha256: string })[]> {
  const store = await openAssetStore();
  const profiles = await Promise.all(
    listGpuProfileIds(store).map((id) => loadGpuProfile(store, id)),
  );
  const rows: (VectorRow & { sha256: string })[] = [];
  const sets = root === undefined
    ? listVectorSets(store).map((s) => ({ ...s, load: () => loadVectorSet(store, s) }))
    : _folderSets(root);
  for (const { gpu, format: fmt, load } of sets) {
    const loaded = profiles.find((p) => p.profile.aliases.includes(gpu));
    if (loaded === undefined) {
      throw new InputError(
        "DEMO_UNKNOWN_GPU",
        `Cannot map vector folder '${gpu}' to a GPU profile`,
      );
    }
    const input = fmt.toLowerCase();
    if (!VECTOR_INPUTS.includes(input)) {
      throw new InputError(
        "VECTOR_SET_LAYOUT",
        `Cannot read vector folder '${gpu}/${fmt}': the input format must be one of ${
          VECTOR_INPUTS.join(", ")
        }`,
      );
    }
    const set = await load();
    for (const r of checkVectorSet(loaded.profile, { set, input: input as FormatName })) {
      rows.push({
        gpu,
        profile: loaded.profile.id,
        format: input,
        output: r.file,
        datapath: r.datapath,
        matched: r.matched,
        total: r.total,
        sha256: loaded.sha256,
      });
    }
  }
  // Nothing checked is no success: an empty root (or one whose folders are links, not read)
  // would otherwise report 0/0 cases bit-exact.
  if (rows.length === 0) {
    throw new InputError(
      "VECTOR_SET_MISSING",
      `Cannot check vectors under '${root ?? "the bundled sets"}': no <GPU>/<format>/ vector ` +
        "set with an output file was found",
    );
  }
  return rows;
}

/** The `<GPU>/<format>/` folders under a root, sorted, each read from its files. */
/** Input formats a vector folder may be named after (the tensor-core inputs measured). */
const VECTOR_INPUTS: readonly string[] = ["bf16", "fp16", "tf32", "e4m3", "e5m2"];

function _folderSets(
  root: string,
): { gpu: string; format: string; load: () => Promise<VectorSet> }[] {
  const dirs = (path: string) => {
    try {
      return [...Deno.readDirSync(path)].filter((e) => e.isDirectory).map((e) => e.name).sort();
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable) throw e;
      throw new InputError(
        "VECTOR_SET_MISSING",
        `Cannot read vector folder '${path}': ${(e as Error).message.split("\n")[0]}`,
      );
    }
  };
  return dirs(root).flatMap((gpu) =>
    dirs(`${root}/${gpu}`).map((format) => ({
      gpu,
      format,
      load: () => readVectorSet(`${root}/${gpu}/${format}`),
    }))
  );
}

/**
 * Profile digests used by the rows.
 *
 * @param rows vector rows
 * @returns profile id -> sha256
 * @example
 * ```ts ignore
 * vectorDigests(rows);
 * ```
 */
export function vectorDigests(rows: (VectorRow & { sha256: string })[]): Record<string, string> {
  return Object.fromEntries(rows.map((r) => [r.profile, r.sha256]));
}

/**
 * Prints the vector table.
 *
 * @param rows vector rows
 * @param ok whether everything matched
 * @example
 * ```ts ignore
 * printVectorTable(rows, true);
 * ```
 */
export function printVectorTable(rows: (VectorRow & { sha256: string })[], ok: boolean): void {
  console.log(
    "Measured tensor-core vectors (Khattak & Mikaitis, BSD-2-Clause) vs bitaudit profiles\n",
  );
  console.log(table([
    ["GPU", "format", "output file", "datapath", "matched/total"],
    ...rows.map((r) => [r.gpu, r.format, r.output, r.datapath ?? "-", `${r.matched}/${r.total}`]),
  ]));
  const total = rows.reduce((s, r) => s + r.total, 0);
  const matched = rows.reduce((s, r) => s + r.matched, 0);
  console.log(`\n${matched}/${total} cases bit-exact${ok ? "" : "  <-- MISMATCHES"}`);
  console.log("\nprofile digests (sha256):");
  for (const [id, d] of Object.entries(vectorDigests(rows))) console.log(`  ${id.padEnd(10)} ${d}`);
}

/**
 * The bundled measured tensor-core vector sets (Khattak & Mikaitis captures on A100, L40S and
 * H100) run against the matching GPU profiles: GPU x format x output -> matched/total.
 *
 * @module
 */
import { openAssetStore, readVectorSet } from "../assets/mod.ts";
import { checkVectorSet } from "../verify/check_vector_set.ts";
import { listGpuProfileIds, loadGpuProfile } from "../verify/load_profiles.ts";
import type { FormatName } from "../numerics/mod.ts";
import { InputError } from "../errors.ts";
import { table } from "./output.ts";

/** Root of the bundled vector sets. */
export const BUNDLED_VECTORS =
  new URL("../../tests/vectors/khattak-mikaitis/", import.meta.url).pathname;

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
 * Runs every vector set under a `<GPU>/<format>/` root through the profile whose aliases name
 * the GPU folder.
 *
 * @param root vector root
 * @returns one row per output file
 * @throws {InputError} `DEMO_UNKNOWN_GPU`, vector-set errors
 * @example
 * ```ts ignore
 * const rows = await runBundledVectors(BUNDLED_VECTORS);
 * ```
 */
export async function runBundledVectors(root: string): Promise<(VectorRow & { sha256: string })[]> {
  const store = await openAssetStore();
  const profiles = await Promise.all(
    listGpuProfileIds(store).map((id) => loadGpuProfile(store, id)),
  );
  const rows: (VectorRow & { sha256: string })[] = [];
  const gpus = [...Deno.readDirSync(root)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  for (const gpu of gpus) {
    const loaded = profiles.find((p) => p.profile.aliases.includes(gpu));
    if (loaded === undefined) {
      throw new InputError(
        "DEMO_UNKNOWN_GPU",
        `Cannot map vector folder '${gpu}' to a GPU profile`,
      );
    }
    const formats = [...Deno.readDirSync(`${root}/${gpu}`)].filter((e) => e.isDirectory)
      .map((e) => e.name).sort();
    for (const fmt of formats) {
      const set = await readVectorSet(`${root}/${gpu}/${fmt}`);
      const input = fmt.toLowerCase() as FormatName;
      for (const r of checkVectorSet(loaded.profile, { set, input })) {
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
  }
  return rows;
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

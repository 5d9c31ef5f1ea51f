/**
 * `bitaudit demo`: the main job on bundled data.
 *
 * Checks every bundled measured tensor-core vector set (Khattak & Mikaitis captures on A100,
 * L40S and H100) against the matching GPU profile and prints GPU x format x output ->
 * matched/total with the digests of the profiles used.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore, readVectorSet } from "../../assets/mod.ts";
import { checkVectorSet } from "../../verify/check_vector_set.ts";
import { listGpuProfileIds, loadGpuProfile } from "../../verify/load_profiles.ts";
import type { FormatName } from "../../numerics/mod.ts";
import { InputError } from "../../errors.ts";
import { EXIT } from "../exit_codes.ts";
import { printJson, table } from "../output.ts";

const BUNDLED = new URL("../../../tests/vectors/khattak-mikaitis/", import.meta.url).pathname;

/** One row of the demo table. */
interface Row {
  gpu: string;
  profile: string;
  format: string;
  output: string;
  datapath: string | null;
  matched: number;
  total: number;
}

/**
 * Builds the `demo` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { demoCommand } from "./demo.ts";
 * if (demoCommand().name() !== "demo") throw new Error();
 * ```
 */
export function demoCommand(): Command {
  return new Command("demo")
    .description("check all bundled GPU-measured vector sets against the GPU profiles")
    .option("--vectors <dir>", "root of vector sets in the <GPU>/<format>/ layout", BUNDLED)
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const rows = await runVectorDemo(opts.vectors);
      const ok = rows.every((r) => r.matched === r.total && r.datapath !== null);
      if (opts.json) {
        printJson({
          ok,
          rows: rows.map(({ profile: _p, ...r }) => r),
          profiles: _digests(rows),
        });
      } else _print(rows, ok);
      if (!ok) Deno.exitCode = EXIT.FAIL;
    });
}

async function runVectorDemo(root: string): Promise<(Row & { sha256: string })[]> {
  const store = await openAssetStore();
  const profiles = await Promise.all(
    listGpuProfileIds(store).map((id) => loadGpuProfile(store, id)),
  );
  const rows: (Row & { sha256: string })[] = [];
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

function _digests(rows: (Row & { sha256: string })[]): Record<string, string> {
  return Object.fromEntries(rows.map((r) => [r.profile, r.sha256]));
}

function _print(rows: (Row & { sha256: string })[], ok: boolean): void {
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
  for (const [id, d] of Object.entries(_digests(rows))) console.log(`  ${id.padEnd(10)} ${d}`);
}

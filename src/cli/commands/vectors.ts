/**
 * `bitaudit vectors check`: runs a measured tensor-core vector set through a profile.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { openAssetStore, readVectorSet } from "../../assets/mod.ts";
import { checkVectorSet } from "../../verify/mod.ts";
import { loadGpuProfile } from "../../resolve/mod.ts";
import { EXIT } from "../exit_codes.ts";
import { hex, printJson, printText, table } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";
import { printVectorTable, runBundledVectors, vectorDigests } from "../bundled_vectors.ts";
import { addCommandHelp } from "../command_help.ts";

const INPUT_FORMATS = ["bf16", "fp16", "tf32", "e4m3", "e5m2"] as const;

/**
 * Builds the `vectors` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { vectorsCommand } from "./vectors.ts";
 * if (vectorsCommand().name() !== "vectors") throw new Error();
 * ```
 */
export function vectorsCommand(): Command {
  const cmd = new Command("vectors").description("check measured tensor-core vectors");
  cmd.command("check")
    .description(
      "run every case of a vector directory (a_*, b_*, c_*_fp32, d_*_fp32[, d_*_fp16]) through a profile",
    )
    .requiredOption("--profile <id>", "GPU profile id")
    .addOption(
      new Option("--format <fmt>", "input format of a and b").choices(INPUT_FORMATS)
        .makeOptionMandatory(),
    )
    .option("--mismatches <n>", "mismatches to show per output file", "5")
    .option("--json", "machine-readable output")
    .argument("<dir>", "vector directory")
    .action(async (dir, opts) => {
      const { profile, sha256 } = await loadGpuProfile(await openAssetStore(), opts.profile);
      const set = await readVectorSet(dir);
      const results = checkVectorSet(profile, {
        set,
        input: opts.format,
        maxMismatches: parseIntOption(opts.mismatches, {
          flag: "--mismatches",
          min: 0,
          max: 1 << 20,
        }),
      });
      const ok = results.every((r) => r.datapath !== null && r.matched === r.total);
      if (opts.json) {
        printJson({ profile: profile.id, profileSha256: sha256, dir, ok, results });
      } else {
        console.log(`profile ${profile.id} (sha256 ${sha256}), ${set.cases} cases of K=${set.k}`);
        console.log(table([
          ["output", "datapath", "matched", "status"],
          ...results.map((r) => [
            r.file,
            r.datapath ?? "-",
            `${r.matched}/${r.total}`,
            r.reason ?? (r.matched === r.total ? "bit-exact" : "MISMATCH"),
          ]),
        ]));
        for (const r of results) {
          for (const m of r.mismatches) {
            printText(
              `  ${r.file} case ${m.index}: expected ${hex(m.expected)} got ${hex(m.actual)} ` +
                `(c ${hex(m.c)}, a ${m.a.map((x) => hex(x)).join(" ")}, b ${
                  m.b.map((x) => hex(x)).join(" ")
                })`,
            );
          }
        }
      }
      if (!ok) Deno.exitCode = EXIT.FAIL;
    });
  cmd.command("bundled")
    .description(
      "check every bundled measured vector set (A100, L40S, H100) against the GPU profiles",
    )
    .option(
      "--vectors <dir>",
      "root of vector sets in the <GPU>/<format>/ layout (default: the bundled sets, digest-checked against the asset manifest)",
    )
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const rows = await runBundledVectors(opts.vectors);
      const ok = rows.every((r) => r.matched === r.total && r.datapath !== null);
      if (opts.json) {
        printJson({
          ok,
          rows: rows.map(({ sha256: _s, ...r }) => r),
          profiles: vectorDigests(rows),
        });
      } else printVectorTable(rows, ok);
      if (!ok) Deno.exitCode = EXIT.FAIL;
    });
  return addCommandHelp(cmd);
}

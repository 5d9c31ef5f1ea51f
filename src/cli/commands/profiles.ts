/**
 * `bitaudit profiles list|show`.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore } from "../../assets/mod.ts";
import { listGpuProfileIds, loadGpuProfile } from "../../resolve/mod.ts";
import { printJson, table } from "../output.ts";
import { addCommandHelp } from "../command_help.ts";

/**
 * Builds the `profiles` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { profilesCommand } from "./profiles.ts";
 * if (profilesCommand().name() !== "profiles") throw new Error();
 * ```
 */
export function profilesCommand(): Command {
  const cmd = new Command("profiles").description("list and show GPU hardware profiles");
  cmd.command("list")
    .description("list every GPU profile with its architecture and sha256")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const store = await openAssetStore();
      const rows = [];
      for (const id of listGpuProfileIds(store)) {
        const { profile, sha256 } = await loadGpuProfile(store, id);
        rows.push({
          id,
          name: profile.name,
          architecture: profile.architecture,
          datapaths: profile.tensorCore.datapaths.length,
          sha256,
        });
      }
      if (opts.json) return printJson(rows);
      console.log(table([
        ["id", "name", "arch", "datapaths", "sha256"],
        ...rows.map((r) => [r.id, r.name, r.architecture, String(r.datapaths), r.sha256]),
      ]));
    });
  cmd.command("show")
    .description("show one GPU profile (validated) with its digest")
    .argument("<id>", "profile id, e.g. h100-sxm")
    .option("--json", "machine-readable output")
    .action(async (id, opts) => {
      const { profile, sha256, path } = await loadGpuProfile(await openAssetStore(), id);
      const datapaths = profile.tensorCore.datapaths.map((d) => ({
        ...d,
        input: d.input.name,
        output: d.output.name,
        resultFormat: d.resultFormat.name,
      }));
      if (opts.json) return printJson({ path, sha256, ...profile, tensorCore: { datapaths } });
      console.log(`${profile.name} (${profile.id}), ${profile.architecture}, sha256 ${sha256}`);
      console.log(table([
        ["datapath", "k", "L", "F", "result", "round", "floor", "chain", "C", "validation"],
        ...datapaths.map((d) => [
          d.id,
          String(d.k),
          String(d.blockSize),
          String(d.fracBits),
          d.resultFormat,
          d.rounding,
          String(d.alignFloor),
          d.chain.kind,
          d.accumulator,
          d.validation,
        ]),
      ]));
    });
  return addCommandHelp(cmd) as unknown as Command;
}

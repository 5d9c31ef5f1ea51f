/**
 * `bitaudit page`: writes the browser checker (a static page: `index.html`, `checker.js`,
 * `checker.css`) for anyone to open from disk or publish on any static host.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore } from "../../assets/mod.ts";
import { EXIT } from "../exit_codes.ts";
import { prepareOutputDir } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { writeNewFile } from "../write_new_file.ts";
import { addCommandHelp } from "../command_help.ts";

/** The page's files, as assets under the manifest (`checker.js` is built from `src/web/`). */
export const PAGE_FILES = ["index.html", "checker.js", "checker.css"] as const;

/**
 * Builds the `page` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { pageCommand } from "./page.ts";
 * if (pageCommand().name() !== "page") throw new Error();
 * ```
 */
export function pageCommand(): Command {
  return addCommandHelp(new Command("page"))
    .description(
      "write the browser attestation checker (static HTML, no server logic; files never leave the browser)",
    )
    .requiredOption("--out <dir>", "folder for index.html, checker.js and checker.css")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const written = await writePage(opts.out);
      if (opts.json) printJson({ files: written });
      else {
        printText(`wrote ${written.join(", ")}`);
        printText(
          `open ${opts.out}/index.html in a browser, or publish the folder on any static host`,
        );
      }
      Deno.exitCode = EXIT.OK;
    });
}

/**
 * Writes the page's files into a folder, each checked against the asset manifest first.
 *
 * @param out destination folder (created with its missing parents; none of the files may exist)
 * @returns the paths written
 * @throws {InputError} `OUTPUT_EXISTS` (a file there, or `out` is a file: nothing is
 *   overwritten), `OUTPUT_WRITE`
 * @throws {AssetError} when a page asset is missing or differs from the manifest
 * @example
 * ```ts ignore
 * await writePage("site");
 * ```
 */
export async function writePage(out: string): Promise<string[]> {
  const store = await openAssetStore();
  const files = await Promise.all(PAGE_FILES.map((f) => store.read(`tables/web/${f}`)));
  const done = await prepareOutputDir(out, PAGE_FILES);
  const written: string[] = [];
  try {
    for (const [i, name] of PAGE_FILES.entries()) {
      await writeNewFile(`${out}/${name}`, files[i]!);
      written.push(`${out}/${name}`);
    }
  } finally {
    await done(written.length === PAGE_FILES.length);
  }
  return written;
}

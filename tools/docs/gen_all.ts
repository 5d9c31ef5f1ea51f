/**
 * Writes the generated reference pages of `docs/`: `cli.md` (the commands' help), `errors.md`
 * (exit codes and error codes) and `support-matrix.md` (profiles, tables and families, with how
 * each is known). With `--check`, writes nothing and exits 1 when a checked-in page differs.
 *
 * Usage: `deno run --allow-read --allow-write tools/docs/gen_all.ts [--check]`
 *
 * @module
 */
import { renderCliDoc } from "./gen_cli.ts";
import { renderErrorsDoc } from "./gen_errors.ts";
import { renderSupportMatrix } from "./gen_support_matrix.ts";

/** The command that regenerates the pages (quoted in failure messages). */
export const REGENERATE = "deno task docs:gen";

/**
 * Renders every generated page in memory.
 *
 * @returns path relative to the repository root -> the page's text
 */
export async function renderGeneratedDocs(): Promise<Map<string, string>> {
  return new Map([
    ["docs/cli.md", await renderCliDoc()],
    ["docs/errors.md", (await renderErrorsDoc()).text],
    ["docs/support-matrix.md", await renderSupportMatrix()],
  ]);
}

/**
 * The error codes that `tools/docs/error_meanings.ts` does not explain yet (`docs/errors.md` shows
 * their family's meaning instead).
 *
 * @returns the codes, in the page's order
 */
export async function unexplainedErrorCodes(): Promise<string[]> {
  return (await renderErrorsDoc()).unexplained;
}

if (import.meta.main) {
  const root = new URL("../../", import.meta.url);
  const check = Deno.args.includes("--check");
  const stale: string[] = [];
  for (const [path, text] of await renderGeneratedDocs()) {
    const url = new URL(path, root);
    const now = await Deno.readTextFile(url).catch(() => null);
    if (now === text) continue;
    if (check) stale.push(path);
    else {
      await Deno.writeTextFile(url, text);
      console.log(`wrote ${path}`);
    }
  }
  const unexplained = await unexplainedErrorCodes();
  if (unexplained.length > 0) {
    console.error(`add a line to tools/docs/error_meanings.ts for: ${unexplained.join(", ")}`);
  }
  if (stale.length > 0) {
    console.error(`stale: ${stale.join(", ")}; run ${REGENERATE}`);
    Deno.exit(1);
  }
}

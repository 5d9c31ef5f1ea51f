/**
 * `bitaudit catalogs list|show`: the dispatch catalogs of the asset store (which recipe a GPU's
 * library runs for each GEMM shape), with the shapes each covers and what its entries rest on.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore } from "../../assets/mod.ts";
import type { CatalogEntry, DispatchCatalog } from "../../kernels/mod.ts";
import { DISPATCH_CATALOGS, listAssetIds, loadAsset } from "../../resolve/mod.ts";
import { addCommandHelp } from "../command_help.ts";
import { printJson, printText, table } from "../output.ts";
import { countNoun } from "../count_noun.ts";

/**
 * Builds the `catalogs` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { catalogsCommand } from "./catalogs.ts";
 * if (catalogsCommand().name() !== "catalogs") throw new Error();
 * ```
 */
export function catalogsCommand(): Command {
  const cmd = new Command("catalogs").description(
    "list and show GEMM dispatch catalogs (recipe per shape)",
  );
  cmd.command("list")
    .description("list every dispatch catalog with a one-line description and its sha256")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const store = await openAssetStore();
      const rows = [];
      for (const id of listAssetIds(store, DISPATCH_CATALOGS)) {
        const { value: c, sha256 } = await loadAsset(store, { kind: DISPATCH_CATALOGS, id });
        rows.push({ id, gpu: c.gpu, description: catalogSummary(c), sha256 });
      }
      if (opts.json) return printJson(rows);
      for (
        const line of table([
          ["id", "gpu", "sha256", "description"],
          ...rows.map((r) => [r.id, r.gpu, r.sha256, r.description]),
        ]).split("\n")
      ) printText(line);
    });
  cmd.command("show")
    .description("show one dispatch catalog (validated): GPU, library, dtypes and every entry")
    .argument("<id>", "catalog id, e.g. demo-qwen3-tiny-a100")
    .option("--json", "machine-readable output")
    .action(async (id, opts) => {
      const { value, sha256, path } = await loadAsset(await openAssetStore(), {
        kind: DISPATCH_CATALOGS,
        id,
      });
      if (opts.json) return printJson({ path, sha256, ...value });
      for (const line of _lines(value, sha256)) printText(line);
    });
  return addCommandHelp(cmd) as unknown as Command;
}

/**
 * One line on a catalog: library, dtypes, layout and how many entries are verified.
 *
 * @param c a validated catalog
 * @returns the description
 * @example
 * ```ts
 * import { catalogSummary } from "./catalogs.ts";
 * const s = catalogSummary({ library: { name: "cublas", version: "12.4" },
 *   dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" }, layout: "tn", entries: [] } as never);
 * if (!s.startsWith("cublas 12.4")) throw new Error(s);
 * ```
 */
export function catalogSummary(
  c: Pick<DispatchCatalog, "library" | "dtypes" | "layout" | "entries">,
): string {
  const n = (v: boolean | null) => c.entries.filter((e) => e.verified === v).length;
  return `${c.library.name} ${c.library.version}, ${c.dtypes.a}x${c.dtypes.b}->${c.dtypes.out} ` +
    `(compute ${c.dtypes.compute}, ${c.layout}), ${
      countNoun(c.entries.length, ["entry", "entries"])
    }: ${n(true)} ` +
    `verified, ${n(false)} not reproduced, ${n(null)} unchecked`;
}

function _lines(c: DispatchCatalog, sha256: string): string[] {
  const evidence: string[] = [];
  const ref = (e: CatalogEntry) => {
    if (!evidence.includes(e.evidence)) evidence.push(e.evidence);
    return `[${evidence.indexOf(e.evidence) + 1}]`;
  };
  const verified = (v: boolean | null) => v === null ? "unchecked" : v ? "yes" : "NO (not covered)";
  const rows = [...c.entries]
    .sort((a, b) => a.n - b.n || a.k - b.k || Number(a.bias) - Number(b.bias) || a.mMin - b.mMin)
    .map((e) => [
      `${e.n}x${e.k}`,
      `${e.mMin}..${e.mMax}`,
      e.bias ? "yes" : "no",
      _recipeText(e.recipe),
      e.kernel ?? "-",
      verified(e.verified),
      ref(e),
    ]);
  return [
    `${c.id}, sha256 ${sha256}`,
    `GPU: ${c.gpu}; library: ${c.library.name} ${c.library.version}; dtypes: a ${c.dtypes.a}, ` +
    `b ${c.dtypes.b}, out ${c.dtypes.out}, compute ${c.dtypes.compute}; layout ${c.layout}`,
    catalogSummary(c),
    "A GEMM whose (N, K, bias) and M fall in no entry, or only in one not verified (NO), is not " +
    "covered: its records are NOT_VERIFIED.",
    ...table([["NxK", "M", "bias", "recipe", "kernel", "verified", "evidence"], ...rows]).split(
      "\n",
    ),
    "evidence:",
    ...evidence.map((x, i) => `  [${i + 1}] ${x}`),
    "sources:",
    ...c.sources.map((x) => `  - ${x}`),
  ];
}

/** A recipe on one line: its family, then its parameters (`tileK=64`, `threadblock=128x128x64`). */
function _recipeText(recipe: object): string {
  const r = recipe as Record<string, unknown>;
  const params = Object.entries(r)
    .filter(([k]) => k !== "family" && k !== "schema" && k !== "name")
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("x") : String(v)}`);
  return [String(r.family), ...params].join(" ");
}

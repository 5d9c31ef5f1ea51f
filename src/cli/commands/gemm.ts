/**
 * `bitaudit gemm`: y = x W^T through a GPU profile's tensor cores and a kernel recipe, on
 * safetensors in and out.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { fileByteSource, openAssetStore, sha256Hex } from "../../assets/mod.ts";
import { InputError } from "../../errors.ts";
import { findDatapath } from "../../hardware/mod.ts";
import { recipeFit, runGemmRecipe } from "../../kernels/mod.ts";
import { encodeSafetensors, openSafetensors } from "../../model/mod.ts";
import { createGemmWalker } from "../../engine/mod.ts";
import {
  loadGemmEngine,
  loadGpuProfile,
  loadNamedRecipe,
  recipeFromDescriptor,
} from "../../resolve/mod.ts";
import { printJson, printText } from "../output.ts";
import { writeNewFile } from "../write_new_file.ts";
import { readJsonFile } from "../read_json_file.ts";
import { parseIntOption, parseThreads } from "../parse_int_option.ts";
import { addCommandHelp } from "../command_help.ts";

/** Default of `--max-output-mib`: 1 GiB of output (about 179 M elements). */
export const DEFAULT_MAX_OUTPUT_MIB = 1024;
/**
 * Most tensors a `--in` file may describe: gemm reads 'a' and 'b', and this leaves room for a
 * few more a file of operands may carry. Bounding the header by it keeps a hostile one cheap:
 * its parse stops at about 1,300 JSON values and its length at about 8 MiB (`openSafetensors`).
 */
export const GEMM_MAX_TENSORS = 16;
/** Largest `--max-output-mib`: 2^31 output elements (a typed array's length stays an int32). */
const MAX_OUTPUT_MIB = 6 * 2 ** 11;

/**
 * Builds the `gemm` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { gemmCommand } from "./gemm.ts";
 * if (gemmCommand().name() !== "gemm") throw new Error();
 * ```
 */
export function gemmCommand(): Command {
  return addCommandHelp(new Command("gemm"))
    .description("compute y = a b^T (torch.nn.functional.linear) bit-exactly on safetensors")
    .requiredOption("--profile <id>", "GPU profile id")
    .requiredOption("--recipe <name|file.json>", "bundled recipe name or a recipe descriptor file")
    .requiredOption("--in <file>", "safetensors with 'a' [M,K] and 'b' [N,K] (BF16 or F16)")
    .requiredOption("--out <file>", "safetensors to create with 'c_fp32' (F32) and 'c_out'")
    .addOption(
      new Option("--b-layout <layout>", "layout of 'b'").choices(["nk", "kn"] as const).default(
        "nk" as const,
      ),
    )
    .option("--threads <n>", "worker threads (default: all cores)")
    .option(
      "--max-output-mib <n>",
      "largest output (c_fp32 + c_out) to allocate, in MiB",
      String(DEFAULT_MAX_OUTPUT_MIB),
    )
    .option("--json", "machine-readable report")
    .action(async (opts) => {
      const store = await openAssetStore();
      const { profile, sha256: profileSha256 } = await loadGpuProfile(store, opts.profile);
      const recipe = opts.recipe.endsWith(".json")
        ? {
          recipe: await recipeFromDescriptor(store, {
            json: await readJsonFile(opts.recipe, 1 << 20),
            where: opts.recipe,
          }),
          sha256: null,
        }
        : await loadNamedRecipe(store, opts.recipe);
      using source = await fileByteSource(opts.in);
      const file = await openSafetensors(source, { maxTensors: GEMM_MAX_TENSORS });
      const a = file.entry("a");
      const b = file.entry("b");
      if ((a.dtype !== "BF16" && a.dtype !== "F16") || b.dtype !== a.dtype) {
        throw new InputError(
          "GEMM_DTYPE",
          `Cannot run gemm: 'a' and 'b' must both be BF16 or F16, got ${a.dtype} and ${b.dtype}`,
        );
      }
      if (a.shape.length !== 2 || b.shape.length !== 2) {
        throw new InputError("GEMM_SHAPE", "Cannot run gemm: 'a' and 'b' must be 2-D");
      }
      const [m, k] = a.shape as [number, number];
      const kn = opts.bLayout === "kn";
      const [n, kb] = (kn ? [b.shape[1], b.shape[0]] : b.shape) as [number, number];
      if (kb !== k) {
        throw new InputError(
          "GEMM_SHAPE",
          `Cannot run gemm: a is [${m},${k}] but b is [${b.shape.join(",")}] (${opts.bLayout})`,
        );
      }
      // Sizes come from the file: bound the output (4 + 2 bytes an element) before allocating.
      const maxMib = parseIntOption(opts.maxOutputMib, {
        flag: "--max-output-mib",
        min: 1,
        max: MAX_OUTPUT_MIB,
      });
      const outBytes = m * n * 6;
      if (outBytes > maxMib * 2 ** 20) {
        throw new InputError(
          "GEMM_TOO_LARGE",
          `Cannot run gemm: the [${m},${n}] output needs ${
            Math.ceil(outBytes / 2 ** 20)
          } MiB, above --max-output-mib ${maxMib}`,
        );
      }
      const threads = opts.threads === undefined ? undefined : parseThreads(opts.threads);
      const dtype = a.dtype === "BF16" ? "bf16" : "fp16";
      const dp = findDatapath(profile, { input: dtype, output: "fp32" });
      if (dp === undefined) {
        throw new InputError(
          "GEMM_UNSUPPORTED",
          `Cannot run gemm: profile '${profile.id}' has no ${dtype}->fp32 mma datapath`,
        );
      }
      const fit = recipeFit(recipe.recipe, k);
      if (!fit.fits) throw new InputError("GEMM_UNSUPPORTED", `Cannot run gemm: ${fit.reason}`);
      const av = (await file.tensorView("a")) as Uint16Array;
      let bv = (await file.tensorView("b")) as Uint16Array;
      if (kn) bv = _transpose(bv, k, n);
      const w = createGemmWalker(
        await loadGemmEngine(store),
        threads === undefined ? {} : { threads },
      );
      try {
        const t0 = performance.now();
        const r = await runGemmRecipe(recipe.recipe, {
          dp,
          walker: w.walker,
          a: av,
          b: bv,
          m,
          n,
          k,
          outFormat: dtype,
        }).catch((e) => {
          // Within the flag's bound, the host may still lack the memory.
          if (!(e instanceof RangeError) || !/allocation|array length/i.test(e.message)) throw e;
          throw new InputError(
            "GEMM_TOO_LARGE",
            `Cannot run gemm: the [${m},${n}] output cannot be allocated here (${e.message})`,
          );
        });
        const seconds = (performance.now() - t0) / 1000;
        const outDtype = dtype === "bf16" ? "BF16" : "F16";
        await writeNewFile(
          opts.out,
          encodeSafetensors([
            { name: "c_fp32", dtype: "F32", shape: [m, n], data: r.acc },
            { name: "c_out", dtype: outDtype, shape: [m, n], data: r.out },
          ], {
            metadata: { profile: profile.id, profileSha256, recipe: JSON.stringify(recipe.recipe) },
          }),
        );
        const report = {
          profile: profile.id,
          profileSha256,
          datapath: dp.id,
          recipe: recipe.recipe,
          m,
          n,
          k,
          engine: w.engine,
          seconds: Number(seconds.toFixed(3)),
          outSha256: sha256Hex(new Uint8Array(r.out.buffer, r.out.byteOffset, r.out.byteLength)),
          out: opts.out,
        };
        if (opts.json) printJson(report);
        else {
          printText(
            `${m}x${n}x${k} ${dtype} on ${profile.id} (${dp.id}), ${recipe.recipe.family}, ${w.engine} engine, ${report.seconds} s`,
          );
          printText(
            `wrote ${opts.out}: c_fp32 F32 [${m},${n}], c_out ${outDtype} [${m},${n}] sha256 ${report.outSha256}`,
          );
        }
      } finally {
        w.close();
      }
    });
}

function _transpose(b: Uint16Array, k: number, n: number): Uint16Array {
  const out = new Uint16Array(n * k);
  for (let kk = 0; kk < k; kk++) for (let j = 0; j < n; j++) out[j * k + kk] = b[kk * n + j]!;
  return out;
}

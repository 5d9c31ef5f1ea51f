/**
 * `bitaudit claims append <kind>`: a real prover's path into a claim log (the action is
 * `appendForwardClaim`); this file reads the command line.
 *
 * @module
 */
import { Argument, Command } from "@commander-js/extra-typings";
import { InputError, UsageError } from "../../errors.ts";
import { printJson, printText } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";
import { appendForwardClaim, DEFAULT_RECIPE } from "./claims_append_forward.ts";

/**
 * Builds the `claims append` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { claimsAppendCommand } from "./claims_append.ts";
 * if (claimsAppendCommand().name() !== "append") throw new Error();
 * ```
 */
export function claimsAppendCommand(): Command {
  return new Command("append")
    .description(
      "append one record of a forward pass the prover ran to a claim log (committed files into " +
        "<log folder>/blobs/)",
    )
    .addArgument(_kindArgument())
    .requiredOption("--log <file>", "claims.jsonl (created when missing, with --log-id)")
    .option("--log-id <id>", "id of a new log (1-128 of A-Z a-z 0-9 . _ : -)")
    .requiredOption("--checkpoint <dir>", "HF checkpoint folder (config.json and the weights)")
    .requiredOption("--tokens <file>", 'the batch: {"sequences": [[ids...], ...], "padTokenId"?}')
    .requiredOption("--stack <id>", "software stack profile id (bitaudit stacks list)")
    .requiredOption("--profile <id>", "GPU profile id (bitaudit profiles list)")
    .requiredOption("--fingerprint <hex>", "sha256 of the final-norm rows at the positions")
    .option("--sms <n>", "the GPU's multiProcessorCount (default: the profile's)")
    .option("--kernel <catalog>", "dispatch catalog id (stacks with catalog kernels)")
    .option("--recipe <name|file.json>", `GEMM recipe (recipe stacks; default ${DEFAULT_RECIPE})`)
    .option("--positions <list>", "fingerprinted rows seq:pos,... (default: each last token)")
    .option("--layer-chain <file>", "per-layer chain JSON (or `model forward --json` output)")
    .option("--component <name=version...>", "software versions over the stack profile's")
    .option("--gpus <n>", "GPUs of the machine", "1")
    .option("--json", "machine-readable output")
    .action(async (_kind, opts) => {
      const r = await appendForwardClaim({
        log: opts.log,
        logId: opts.logId,
        checkpoint: opts.checkpoint,
        tokens: opts.tokens,
        stack: opts.stack,
        profile: opts.profile,
        fingerprint: opts.fingerprint,
        sms: opts.sms === undefined
          ? undefined
          : parseIntOption(opts.sms, { flag: "--sms", min: 1, max: 4096 }),
        catalog: opts.kernel,
        recipe: opts.recipe,
        positions: opts.positions === undefined ? undefined : _positions(opts.positions),
        layerChain: opts.layerChain,
        components: opts.component === undefined ? undefined : _components(opts.component),
        gpus: parseIntOption(opts.gpus, { flag: "--gpus", min: 1, max: 1 << 20 }),
      });
      if (opts.json) return printJson(r);
      printText(`appended record ${r.seq} (model_forward) to ${r.log}: ${r.digest}`);
      printText(
        `log root (commitment): ${r.root} (${r.records} record${r.records === 1 ? "" : "s"})`,
      );
      printText(
        `blobs: ${r.blobs.written.length} written, ${r.blobs.present.length} already stored`,
      );
    }) as unknown as Command;
}

function _kindArgument() {
  return new Argument("<kind>", "record kind").choices(["model_forward"] as const);
}

function _positions(text: string): [number, number][] {
  return text.split(",").map((pair) => {
    const m = /^([0-9]+):([0-9]+)$/.exec(pair);
    if (m === null) {
      throw new UsageError(
        "USAGE_NUMBER",
        `Cannot use --positions: '${pair.slice(0, 40)}' is not <sequence>:<token>`,
      );
    }
    const n = (t: string) => parseIntOption(t, { flag: "--positions", min: 0, max: 1 << 24 });
    return [n(m[1]!), n(m[2]!)];
  });
}

function _components(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([A-Za-z0-9_.-]{1,64})=(.{1,200})$/.exec(p);
    if (m === null) {
      throw new InputError(
        "USAGE",
        `Cannot use --component '${p.slice(0, 80)}': expected <name>=<version>`,
      );
    }
    out[m[1]!] = m[2]!;
  }
  return out;
}

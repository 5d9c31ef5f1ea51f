/**
 * `bitaudit model`: Qwen3 checkpoints and forward passes.
 * - `model synth --config <config.json> --seed <n> --out <dir> [--shards n]`: writes an HF-layout
 *   checkpoint with random weights of realistic scale (see `synthQwen3Checkpoint`).
 * - `model forward --checkpoint <dir> --tokens <tokens.json> --profile <gpu> --stack <stack>
 *   --out <file.safetensors> [--json] [--threads n]`: runs the prefill forward bit-exactly and
 *   writes `hidden` (BF16 [total tokens, hidden]); prints each sequence's fingerprint.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { InputError } from "../../errors.ts";
import { parseQwen3Config, synthQwen3Checkpoint } from "../../model/mod.ts";
import { runModelForward } from "./model_forward.ts";
import { parseIntOption, parseThreads } from "../parse_int_option.ts";

/**
 * Builds the `model` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { modelCommand } from "./model.ts";
 * if (modelCommand().commands.map((c) => c.name()).join() !== "synth,forward") throw new Error();
 * ```
 */
export function modelCommand(): Command {
  const model = new Command("model").description("Qwen3 checkpoints and forward passes");
  model.addCommand(
    new Command("synth")
      .description("write an HF-layout Qwen3 checkpoint with random weights for a config.json")
      .requiredOption("--config <file>", "config.json (model_type qwen3 or qwen3_moe)")
      .requiredOption("--seed <n>", "seed (any text)")
      .requiredOption("--out <dir>", "directory to create (must not exist)")
      .option("--shards <n>", "weight files (1: model.safetensors)", "1")
      .action(async (opts) => {
        await synthCheckpointDir({
          config: opts.config,
          seed: opts.seed,
          out: opts.out,
          shards: parseIntOption(opts.shards, { flag: "--shards", min: 1, max: 1024 }),
        });
        console.log(`wrote ${opts.out}`);
      }),
  );
  model.addCommand(
    new Command("forward")
      .description("run a prefill forward pass bit-exactly and fingerprint the last hidden state")
      .requiredOption("--checkpoint <dir>", "HF checkpoint directory")
      .requiredOption(
        "--tokens <file>",
        'tokens.json: {"sequences": [[ids...], ...], "padTokenId"?}',
      )
      .requiredOption("--profile <id>", "GPU profile id")
      .requiredOption("--stack <id>", "software stack profile id")
      .requiredOption("--out <file>", "safetensors to create with 'hidden' (BF16 [tokens, hidden])")
      .option("--sms <n>", "multiProcessorCount (default: the profile's)")
      .option("--kernel <catalog>", "dispatch catalog id (stacks with catalog kernels)")
      .option("--recipe <name>", "bundled GEMM recipe (stacks with recipe kernels)")
      .option("--json", "machine-readable output")
      .option("--threads <n>", "worker threads (default: all cores)")
      .action(async (opts) => {
        await runModelForward({
          checkpoint: opts.checkpoint,
          tokens: opts.tokens,
          profile: opts.profile,
          stack: opts.stack,
          out: opts.out,
          json: opts.json === true,
          ...(opts.sms === undefined
            ? {}
            : { sms: parseIntOption(opts.sms, { flag: "--sms", min: 1, max: 1024 }) }),
          ...(opts.kernel === undefined ? {} : { catalog: opts.kernel }),
          ...(opts.recipe === undefined ? {} : { recipe: opts.recipe }),
          ...(opts.threads === undefined ? {} : { threads: parseThreads(opts.threads) }),
        });
      }),
  );
  return model;
}

/**
 * Writes a synthetic checkpoint directory (config.json copied byte for byte, then the weights).
 *
 * @param o config path, seed, output directory (created; refused when it exists), shard count
 * @throws {InputError} `OUTPUT_EXISTS`, `OUTPUT_WRITE`, and the config's `CONFIG_*` codes
 * @example
 * ```ts ignore
 * await synthCheckpointDir({ config: "c.json", seed: "1", out: "ckpt", shards: 2 });
 * ```
 */
export async function synthCheckpointDir(
  o: { config: string; seed: string; out: string; shards: number },
): Promise<void> {
  const unreadable = (e: unknown) => {
    throw new InputError("CONFIG_READ", `Cannot read '${o.config}': ${(e as Error).name}`);
  };
  if ((await Deno.stat(o.config).catch(unreadable)).size > 16 << 20) {
    throw new InputError("CONFIG_READ", `Cannot read '${o.config}': larger than 16 MiB`);
  }
  const configBytes = await Deno.readFile(o.config).catch(unreadable);
  // HF configs hold floats (rms_norm_eps, rope_theta), which the strict claim JSON reader
  // refuses: a plain parse, then the config's own strict field checks.
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(configBytes));
  } catch {
    throw new InputError("CONFIG_READ", `Cannot read '${o.config}': not valid UTF-8 JSON`);
  }
  const config = parseQwen3Config(json);
  const files = synthQwen3Checkpoint(config, { seed: o.seed, shards: o.shards });
  try {
    await Deno.mkdir(o.out);
  } catch (e) {
    throw new InputError(
      e instanceof Deno.errors.AlreadyExists ? "OUTPUT_EXISTS" : "OUTPUT_WRITE",
      `Cannot create '${o.out}': ${(e as Error).name} (nothing is overwritten)`,
    );
  }
  await Deno.writeFile(`${o.out}/config.json`, configBytes, { createNew: true });
  for (const f of files) {
    using file = await Deno.open(`${o.out}/${f.name}`, { write: true, createNew: true });
    const bytes = f.bytes();
    for (const chunk of bytes instanceof Uint8Array ? [bytes] : bytes) {
      for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
    }
  }
}

/**
 * `bitaudit model`: decoder checkpoints (Qwen3, Qwen3-MoE, Llama, Qwen2, Mistral) and forward passes.
 * - `model synth --config <config.json> --seed <n> --out <dir> [--shards n]`: writes an HF-layout
 *   checkpoint with random weights of realistic scale (see `synthDecoderCheckpoint`).
 * - `model classes --stack <id|file> --profile <id|file> (--catalog <id|file> | --recipe
 *   <name|file>) --config <config.json> --context <L> [--sms n] [--max-batch n] [--json]`: the
 *   batch-size equivalence classes of decode (see `decodeClasses`).
 * - `model forward --checkpoint <dir> --tokens <tokens.json> --profile <gpu> --stack <stack>
 *   --out <file.safetensors> [--json] [--threads n]`: runs the prefill forward bit-exactly and
 *   writes `hidden` (BF16 [total tokens, hidden]); prints each sequence's fingerprint.
 *
 * @module
 */
import { forwardPositionsFlag } from "../positions_flag.ts";
import { normalize } from "node:path";
import { Command, Option } from "@commander-js/extra-typings";
import { INTERCONNECTS } from "../../kernels/mod.ts";
import { synthDecoderCheckpoint } from "../../model/mod.ts";
import { InputError, UsageError } from "../../errors.ts";
import { prepareOutputDir } from "../load_inputs.ts";
import { readModelConfig } from "../read_model_config.ts";
import { publishNew, writeNewFile } from "../write_new_file.ts";
import { removeOnInterrupt } from "../cleanup.ts";
import { ioCause } from "../../io_cause.ts";
import { runModelForward } from "./model_forward.ts";
import { ALL_REDUCE_FLAG_HELP, allReduceFlag } from "../all_reduce_flag.ts";
import { runModelClasses } from "./model_classes.ts";
import { DEFAULT_MAX_BATCH, MAX_BATCH_SEQUENCES } from "../../model/mod.ts";
import { parseIntOption, parseThreads } from "../parse_int_option.ts";
import { addCommandHelp } from "../command_help.ts";
import { printText } from "../output.ts";
import { tempSibling } from "../temp_sibling.ts";

/** The `--config` option's help: the families a config.json may name. */
const CONFIG_HELP = "config.json (model_type qwen3, qwen3_moe, llama, qwen2 or mistral)";

/**
 * Builds the `model` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { modelCommand } from "./model.ts";
 * const names = modelCommand().commands.map((c) => c.name()).join();
 * if (names !== "synth,forward,classes") throw new Error(names);
 * ```
 */
export function modelCommand(): Command {
  const model = new Command("model").description("decoder checkpoints and forward passes");
  model.addCommand(
    new Command("synth")
      .description("write an HF-layout checkpoint with random weights for a config.json")
      .requiredOption("--config <file>", CONFIG_HELP)
      .requiredOption("--seed <n>", "seed (any text)")
      .requiredOption(
        "--out <dir>",
        "folder for config.json and the weights (created with its parents; nothing is overwritten)",
      )
      .option("--shards <n>", "weight files (1: model.safetensors)", "1")
      .action(async (opts) => {
        await synthCheckpointDir({
          config: opts.config,
          seed: opts.seed,
          out: opts.out,
          shards: parseIntOption(opts.shards, { flag: "--shards", min: 1, max: 1024 }),
        });
        printText(`wrote ${opts.out}`);
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
      .option("--tp <n>", "tensor-parallel ranks the pass ran on (the stack's layout)", "1")
      .option("--all-reduce <id|file.json>", `all-reduce of the ranks: ${ALL_REDUCE_FLAG_HELP}`)
      .addOption(_interconnectOption())
      .option("--ep <n>", "expert-parallel ranks", "1")
      .option(
        "--positions <list>",
        "fingerprinted rows seq:pos,... (default: each sequence's last token), as the record " +
          "will name them",
      )
      .option("--json", "machine-readable output")
      .option("--threads <n>", "worker threads (default: all cores)")
      .action(async (opts) => {
        const tp = parseIntOption(opts.tp, { flag: "--tp", min: 1, max: 64 });
        await runModelForward({
          ...(opts.positions === undefined
            ? {}
            : { positions: forwardPositionsFlag(opts.positions) }),
          tp,
          ep: parseIntOption(opts.ep, { flag: "--ep", min: 1, max: 64 }),
          ...(opts.allReduce === undefined
            ? {}
            : { allReduce: await allReduceFlag(opts.allReduce, tp) }),
          ...(opts.interconnect === undefined ? {} : { interconnect: opts.interconnect }),
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
  model.addCommand(_classesCommand());
  return addCommandHelp(model);
}

/** Longest cached context `model classes` takes (tokens per sequence). */
export const MAX_CONTEXT = 1 << 20;

function _classesCommand(): Command {
  return new Command("classes")
    .description(
      "list the batch sizes of decode that give each sequence identical bits (same kernels)",
    )
    .requiredOption("--stack <id|file.json>", "software stack profile")
    .requiredOption("--profile <id|file.json>", "GPU profile")
    .requiredOption("--config <file>", CONFIG_HELP)
    .requiredOption("--context <n>", `cached tokens per sequence L (key length L + 1)`)
    .option("--catalog <id|file.json>", "dispatch catalog (stacks with catalog kernels)")
    .option("--recipe <name|file.json>", "GEMM recipe (stacks with recipe kernels)")
    .option("--sms <n>", "multiProcessorCount (default: the profile's)")
    .option("--max-batch <n>", "largest batch size", String(DEFAULT_MAX_BATCH))
    .option("--tp <n>", "tensor-parallel ranks (classes of one rank's launches)", "1")
    .option("--all-reduce <id|file.json>", `all-reduce of the ranks: ${ALL_REDUCE_FLAG_HELP}`)
    .addOption(_interconnectOption())
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const tp = parseIntOption(opts.tp, { flag: "--tp", min: 1, max: 64 });
      await runModelClasses({
        tp,
        ...(opts.allReduce === undefined
          ? {}
          : { allReduce: await allReduceFlag(opts.allReduce, tp) }),
        ...(opts.interconnect === undefined ? {} : { interconnect: opts.interconnect }),
        stack: opts.stack,
        profile: opts.profile,
        config: opts.config,
        context: parseIntOption(opts.context, { flag: "--context", min: 1, max: MAX_CONTEXT }),
        maxBatch: parseIntOption(opts.maxBatch, {
          flag: "--max-batch",
          min: 1,
          max: MAX_BATCH_SEQUENCES,
        }),
        json: opts.json === true,
        ...(opts.sms === undefined
          ? {}
          : { sms: parseIntOption(opts.sms, { flag: "--sms", min: 1, max: 1024 }) }),
        ...(opts.catalog === undefined ? {} : { catalog: opts.catalog }),
        ...(opts.recipe === undefined ? {} : { recipe: opts.recipe }),
      });
    });
}

/**
 * Writes a synthetic checkpoint directory (config.json copied byte for byte, then the weights).
 *
 * @param o config path, seed, output directory (created with its missing parents; an existing
 *   folder must hold none of the files), shard count
 * @throws {InputError} `OUTPUT_EXISTS` (a file there, or `out` is not a folder), `OUTPUT_WRITE`,
 *   and the config's `CONFIG_*` codes
 * @example
 * ```ts ignore
 * await synthCheckpointDir({ config: "c.json", seed: "1", out: "ckpt", shards: 2 });
 * ```
 */
export async function synthCheckpointDir(
  o: { config: string; seed: string; out: string; shards: number },
): Promise<void> {
  const { config, bytes: configBytes } = await readModelConfig(o.config);
  let files: ReturnType<typeof synthDecoderCheckpoint>;
  try {
    files = synthDecoderCheckpoint(config, { seed: o.seed, shards: o.shards });
  } catch (e) {
    // At most one shard a tensor: the bound comes from the config, after the flag's own.
    if (!(e instanceof RangeError)) throw e;
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use --shards ${o.shards}: ${
        e.message.replace(/^Cannot synthesise checkpoint: /, "")
      } (one shard a tensor at most)`,
    );
  }
  // Without `..` (see writeNewFile): each weight file's temporary name is removed where it was
  // written.
  const out = normalize(o.out);
  const done = await prepareOutputDir(out, ["config.json", ...files.map((f) => f.name)]);
  let ok = false;
  try {
    await writeNewFile(`${out}/config.json`, configBytes);
    for (const f of files) {
      let bytes: ReturnType<typeof f.bytes>;
      try {
        bytes = f.bytes(); // one shard's tensors, all in memory
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        throw new InputError(
          "SYNTH_TOO_LARGE",
          `Cannot synthesise '${f.name}': its tensors do not fit in memory (${e.message}); ` +
            `give more --shards (now ${o.shards})`,
        );
      }
      await _writeWeights(`${out}/${f.name}`, bytes);
    }
    ok = true;
  } finally {
    await done(ok);
  }
}

/**
 * Streams one weight file (too large to hold twice) into a temporary sibling, then publishes it
 * under its name (`publishNew`, which never replaces a file there): a synth killed outright
 * (SIGKILL, the OOM killer) leaves no cut-short file under a weight file's name, and an
 * interrupted or failed one removes the temporary file.
 */
async function _writeWeights(
  path: string,
  bytes: Uint8Array | Iterable<Uint8Array>,
): Promise<void> {
  const tmp = tempSibling(path);
  const release = removeOnInterrupt(tmp);
  try {
    {
      using file = await Deno.open(tmp, { write: true, createNew: true });
      for (const chunk of bytes instanceof Uint8Array ? [bytes] : bytes) {
        for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
      }
    }
    await publishNew(tmp, path);
  } catch (e) {
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${ioCause(e)} (nothing is overwritten)`,
    );
  } finally {
    await release(true); // published or not, the temporary name goes
  }
}

/** `--interconnect` of `model forward` and `model classes`. */
function _interconnectOption() {
  return new Option(
    "--interconnect <links>",
    "how the ranks' GPUs are linked, as vLLM's dispatch reads it (default: the stack's " +
      "stated setup where the GPU can have it)",
  ).choices(INTERCONNECTS);
}

/**
 * `bitaudit claims append <kind>`: a real prover's path into a claim log (the actions are
 * `appendForwardClaim` and `appendSequenceClaim`); this file reads the command line.
 *
 * @module
 */
import { forwardPositionsFlag, sequencePositionsFlag } from "../positions_flag.ts";
import { ALL_REDUCE_FLAG_HELP, allReduceFlag } from "../all_reduce_flag.ts";
import { Argument, Command, Option } from "@commander-js/extra-typings";
import { INTERCONNECTS } from "../../kernels/mod.ts";
import { InputError } from "../../errors.ts";
import { printJson, printText } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";
import { appendForwardClaim } from "./claims_append_forward.ts";
import { DEFAULT_RECIPE } from "./claims_append_inputs.ts";
import type { AppendResult, AppendRunOptions } from "./claims_append_record.ts";
import { appendSequenceClaim } from "./claims_append_sequence.ts";

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
      "append one record of a forward pass or a served sequence the prover ran to a claim log " +
        "(committed files into <log folder>/blobs/)",
    )
    .addArgument(_kindArgument())
    .requiredOption("--log <file>", "claims.jsonl (created when missing, with --log-id)")
    .option("--log-id <id>", "id of a new log (1-128 of A-Z a-z 0-9 . _ : -)")
    .requiredOption("--checkpoint <dir>", "HF checkpoint folder (config.json and the weights)")
    .requiredOption(
      "--tokens <file>",
      'model_forward: the batch {"sequences": [[ids...], ...], "padTokenId"?}; sequence: ' +
        '{"prompt": [ids...], "generated": [ids...]}',
    )
    .option("--history <file>", "sequence: its serving history (RFC 8785 bytes, stored as is)")
    .requiredOption("--stack <id>", "software stack profile id (bitaudit stacks list)")
    .requiredOption("--profile <id>", "GPU profile id (bitaudit profiles list)")
    .requiredOption("--fingerprint <hex>", "sha256 of the final-norm rows at the positions")
    .option("--sms <n>", "the GPU's multiProcessorCount (default: the profile's)")
    .option("--kernel <catalog>", "dispatch catalog id (stacks with catalog kernels)")
    .option("--recipe <name|file.json>", `GEMM recipe (recipe stacks; default ${DEFAULT_RECIPE})`)
    .option(
      "--positions <list>",
      "fingerprinted rows: model_forward seq:pos,... (default: each last token); sequence " +
        "pos,... (default: the last computed one)",
    )
    .option("--sampler <text>", "sequence: the sampler that chose the tokens (default: greedy)")
    .option("--layer-chain <file>", "per-layer chain JSON (or `model forward --json` output)")
    .option("--component <name=version...>", "software versions over the stack profile's")
    .option("--gpus <n>", "GPUs of the machine", "1")
    .option("--tp <n>", "tensor-parallel ranks the pass ran on", "1")
    .option("--all-reduce <id|file.json>", `all-reduce of the ranks: ${ALL_REDUCE_FLAG_HELP}`)
    .addOption(
      new Option(
        "--interconnect <links>",
        "how the ranks' GPUs are linked, as vLLM's all-reduce dispatch reads it (default: the " +
          "stack's stated setup where the GPU can have it)",
      ).choices(INTERCONNECTS),
    )
    .option(
      "--ep <n>",
      "expert-parallel ranks (1, or --tp: vLLM's --enable-expert-parallel; vLLM has no other " +
        "size, so another is refused; off vLLM a value above 1 is recorded and audits " +
        "NOT_VERIFIED)",
      "1",
    )
    .option("--json", "machine-readable output")
    .action(async (kind, opts) => {
      const tp = parseIntOption(opts.tp, { flag: "--tp", min: 1, max: 64 });
      const ep = parseIntOption(opts.ep, { flag: "--ep", min: 1, max: 64 });
      const common: AppendRunOptions = {
        log: opts.log,
        logId: opts.logId,
        checkpoint: opts.checkpoint,
        stack: opts.stack,
        profile: opts.profile,
        fingerprint: opts.fingerprint,
        sms: opts.sms === undefined
          ? undefined
          : parseIntOption(opts.sms, { flag: "--sms", min: 1, max: 4096 }),
        catalog: opts.kernel,
        recipe: opts.recipe,
        layerChain: opts.layerChain,
        components: opts.component === undefined ? undefined : _components(opts.component),
        gpus: parseIntOption(opts.gpus, { flag: "--gpus", min: 1, max: 1 << 20 }),
        parallel: {
          tp,
          ...(opts.allReduce === undefined
            ? {}
            : { allReduce: await allReduceFlag(opts.allReduce, tp) }),
          ...(ep === 1 ? {} : { ep }),
          ...(opts.interconnect === undefined ? {} : { interconnect: opts.interconnect }),
        },
        // Said before the append lets go of its interrupt note (see AppendRunOptions.report).
        report: (r: AppendResult) => _report(r, { kind, json: opts.json === true }),
      };
      if (kind === "sequence") {
        await appendSequenceClaim({
          ...common,
          history: opts.history ?? _usage("a sequence record needs --history <file>"),
          tokens: opts.tokens,
          positions: opts.positions === undefined
            ? undefined
            : sequencePositionsFlag(opts.positions),
          sampler: opts.sampler,
        });
      } else {
        for (const [flag, given] of [["--history", opts.history], ["--sampler", opts.sampler]]) {
          if (given !== undefined) _usage(`${flag} is for sequence records`);
        }
        await appendForwardClaim({
          ...common,
          tokens: opts.tokens,
          positions: opts.positions === undefined
            ? undefined
            : forwardPositionsFlag(opts.positions),
        });
      }
    }) as unknown as Command;
}

/** The success lines of an append. */
function _report(r: AppendResult, o: { kind: string; json: boolean }): void {
  if (o.json) return printJson(r);
  printText(`appended record ${r.seq} (${o.kind}) to ${r.log}: ${r.digest}`);
  printText(
    `log root (commitment): ${r.root} (${r.records} record${r.records === 1 ? "" : "s"})`,
  );
  printText(`blobs: ${r.blobs.written.length} written, ${r.blobs.present.length} already stored`);
}

function _kindArgument() {
  return new Argument("<kind>", "record kind").choices(["model_forward", "sequence"] as const);
}

function _usage(why: string): never {
  throw new InputError("USAGE", `Cannot append claim: ${why}`);
}

/**
 * The `--component` pairs by name; a component given twice (the same name, or one that folds to
 * it as the verifier compares names: `torch` and `pytorch`) is refused rather than one value kept.
 */
function _components(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([A-Za-z0-9_.-]{1,64})=(.{1,200})$/s.exec(p);
    if (m === null) {
      const at = p.indexOf("=");
      const [name, value] = at < 0 ? [p, ""] : [p.slice(0, at), p.slice(at + 1)];
      const why = at < 0
        ? "expected <name>=<version>"
        : !/^[A-Za-z0-9_.-]{1,64}$/.test(name)
        ? "a name is 1 to 64 ASCII letters, digits and _.-"
        : "a value is 1 to 200 characters";
      throw new InputError(
        "USAGE",
        `Cannot use --component '${p.slice(0, 80)}': ${why}${
          value.length > 200 ? ` (${value.length} given)` : ""
        }`,
      );
    }
    const name = m[1]!;
    // The same name twice would keep one value silently (names that differ are the record's,
    // compared by the verifier: two releases of one pinned library contradict each other).
    if (Object.hasOwn(out, name)) {
      throw new InputError(
        "USAGE",
        `Cannot use --component '${p.slice(0, 80)}': component '${name}' is given already; ` +
          "state each once",
      );
    }
    out[name] = m[2]!;
  }
  return out;
}

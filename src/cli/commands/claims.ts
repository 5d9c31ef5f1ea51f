/**
 * `bitaudit claims make|root|append|checkpoint|consistency|validate`: the simulated prover, a real
 * prover's records, and the log commitment.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore } from "../../assets/mod.ts";
import { formatClaimLog, parseClaimLog } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { makeClaims, parseScenario, type ProverOutput } from "../../prover/mod.ts";
import { createGemmWalker } from "../../engine/mod.ts";
import { loadGemmEngine } from "../../resolve/mod.ts";
import { loadClaimLog, prepareOutputDir } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { progressBar } from "../progress.ts";
import { readJsonFile } from "../read_json_file.ts";
import { createOwnedDir } from "../cleanup.ts";
import { parseThreads } from "../parse_int_option.ts";
import { writeNewFile } from "../write_new_file.ts";
import { addCheckpointCommands } from "./claims_checkpoint.ts";
import { claimsValidateCommand } from "./claims_validate.ts";
import { claimsAppendCommand } from "./claims_append.ts";
import { addCommandHelp } from "../command_help.ts";
import { countNoun } from "../count_noun.ts";

/**
 * Builds the `claims` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { claimsCommand } from "./claims.ts";
 * if (claimsCommand().name() !== "claims") throw new Error();
 * ```
 */
export function claimsCommand(): Command {
  const cmd = new Command("claims").description(
    "claim logs: simulated prover, a real prover's records, commitments",
  );
  cmd.command("make")
    .description(
      "run a prover scenario through the emulator and write claims.jsonl and blobs/ (tensors by sha256)",
    )
    .requiredOption("--scenario <file>", "prover scenario JSON (see demo/scenario.json)")
    .requiredOption("--out <dir>", "output folder (must not already hold claims.jsonl)")
    .option("--threads <n>", "worker threads")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const out = await runProver(opts.scenario, {
        out: opts.out,
        progress: !opts.json,
        ...(opts.threads === undefined ? {} : { threads: parseThreads(opts.threads) }),
      });
      const summary = {
        out: opts.out,
        records: out.output.records.length,
        root: out.root,
        falsified: out.output.falsified,
      };
      if (opts.json) printJson(summary);
      else {
        printText(
          `wrote ${opts.out}/claims.jsonl (${countNoun(summary.records, "record")}) and ${
            countNoun(out.output.blobs.size, "blob")
          }`,
        );
        printText(`log root (commitment): ${out.root}`);
        if (summary.falsified.length > 0) {
          printText(
            `falsified: ${summary.falsified.map((f) => `#${f.seq} ${f.kind}`).join(", ")}`,
          );
        }
      }
    });
  cmd.command("root")
    .description("print the Merkle root (commitment) of a claim log after checking its chain")
    .requiredOption("--log <file>", "claims.jsonl")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const log = await loadClaimLog(opts.log);
      if (opts.json) printJson({ records: log.records.length, root: log.root });
      else printText(log.root);
    });
  cmd.addCommand(claimsAppendCommand());
  addCheckpointCommands(cmd);
  cmd.addCommand(claimsValidateCommand());
  return addCommandHelp(cmd);
}

/**
 * Runs a scenario file and writes `claims.jsonl` and `blobs/` into a folder.
 *
 * @param scenarioPath scenario JSON
 * @param options output folder, progress display, threads
 * @returns the prover output and the log root
 * @throws {InputError} `SCENARIO_INVALID`, `OUTPUT_EXISTS`, ...
 * @example
 * ```ts ignore
 * await runProver("demo/scenario.json", { out: "/tmp/demo", progress: false });
 * ```
 */
export async function runProver(
  scenarioPath: string,
  options: { out: string; progress: boolean; threads?: number },
): Promise<{ output: ProverOutput; root: string }> {
  let scenario;
  try {
    scenario = parseScenario(await readJsonFile(scenarioPath));
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(
      "SCENARIO_INVALID",
      `Cannot use scenario '${scenarioPath}': ${(e as Error).message}`,
    );
  }
  const done = await prepareOutputDir(options.out, ["claims.jsonl", "blobs"]);
  let blobsDone: ((ok: boolean) => Promise<void>) | undefined;
  let ok = false;
  const store = await openAssetStore();
  const w = createGemmWalker(
    await loadGemmEngine(store),
    options.threads === undefined ? {} : { threads: options.threads },
  );
  const bar = progressBar("proving", { enabled: options.progress });
  try {
    const output = await makeClaims(scenario, {
      store,
      walker: w.walker,
      attention: w.attention,
      onProgress: bar.update,
    });
    bar.stop();
    blobsDone = await createOwnedDir(`${options.out}/blobs`);
    for (const [digest, bytes] of output.blobs) {
      await writeNewFile(`${options.out}/blobs/${digest}`, bytes);
    }
    const text = formatClaimLog(output.records);
    await writeNewFile(`${options.out}/claims.jsonl`, text);
    const root = parseClaimLog(text).root;
    ok = true;
    return { output, root };
  } finally {
    bar.stop();
    w.close();
    await blobsDone?.(ok);
    await done(ok);
  }
}

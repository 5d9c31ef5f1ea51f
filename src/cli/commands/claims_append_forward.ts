/**
 * The `claims append model_forward` action: from the facts of one forward pass a prover ran,
 * build the record (`modelForwardClaim`, built like the simulated prover's records) and append
 * it with its checkpoint's files (`appendModelRecord`).
 *
 * @module
 */
import { modelForwardClaim } from "../../prover/mod.ts";
import { readJsonFile } from "../read_json_file.ts";
import { checkChainFacts } from "./claims_append_chain.ts";
import { MODEL_INPUT_MAX_BYTES } from "./claims_append_inputs.ts";
import {
  appendModelRecord,
  type AppendResult,
  type AppendRunOptions,
} from "./claims_append_record.ts";

/** What `claims append model_forward` is given. */
export interface AppendForwardOptions extends AppendRunOptions {
  /** The token batch file. */
  readonly tokens: string;
  /** Fingerprinted `[sequence, token]` rows (default: each sequence's last token). */
  readonly positions?: readonly (readonly [number, number])[] | undefined;
}

/**
 * Appends a `model_forward` record to a claim log.
 *
 * @param o the facts of the pass and where the log is
 * @returns the record's place and digest, the new root and the blobs stored
 * @throws {InputError} the refusals of `modelForwardClaim` and `checkChainFacts`, `TOKENS_INVALID`,
 *   and those of
 *   `appendModelRecord` (checkpoint, log, lock, blobs, `USAGE`)
 * @throws {AssetError} unknown stack, profile, catalog or recipe
 * @example
 * ```ts ignore
 * await appendForwardClaim({ log: "log/claims.jsonl", logId: "l", checkpoint: "ckpt",
 *   tokens: "tokens.json", stack: "hf-qwen3-flash-attn-torch2.8", profile: "a100",
 *   catalog: "demo-qwen3-tiny-a100", fingerprint });
 * ```
 */
export async function appendForwardClaim(o: AppendForwardOptions): Promise<AppendResult> {
  const tokens = await readJsonFile(o.tokens, MODEL_INPUT_MAX_BYTES);
  return await appendModelRecord(o, {
    build: async (facts, { store, chainFacts }) => {
      const record = await modelForwardClaim({ ...facts, tokens, positions: o.positions }, {
        store,
      });
      checkChainFacts(record, { chain: chainFacts });
      return record;
    },
  });
}

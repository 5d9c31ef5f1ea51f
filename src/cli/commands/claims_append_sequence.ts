/**
 * The `claims append sequence` action: from the facts of one sequence a continuous-batching
 * engine served (its serving history, prompt and generated tokens, fingerprint), build the record
 * (`sequenceClaim`, built like the simulated prover's records) and append it with its
 * checkpoint's files and the history blob (`appendModelRecord`). The history is committed byte
 * for byte: the record names the digest of the stored copy, and that copy is what is parsed.
 *
 * @module
 */
import { isSequenceWorkload, MAX_HISTORY_BYTES, parseServingHistory } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { sequenceClaim } from "../../prover/mod.ts";
import { readJsonFile, readTextFile } from "../read_json_file.ts";
import type { StagedBlob } from "./claims_append_blobs.ts";
import { checkChainFacts } from "./claims_append_chain.ts";
import { MODEL_INPUT_MAX_BYTES } from "./claims_append_inputs.ts";
import {
  appendModelRecord,
  type AppendResult,
  type AppendRunOptions,
} from "./claims_append_record.ts";

/** What `claims append sequence` is given. */
export interface AppendSequenceOptions extends AppendRunOptions {
  /** The serving-history file (`bitaudit.serving-history/v1`, its RFC 8785 bytes). */
  readonly history: string;
  /** The tokens file: `{"prompt": [ids...], "generated": [ids...]}`. */
  readonly tokens: string;
  /** Fingerprinted positions (default: the last computed position). */
  readonly positions?: readonly number[] | undefined;
  /** The sampler of sampled decoding (default: greedy). */
  readonly sampler?: string | undefined;
}

/**
 * Appends a `sequence` record to a claim log.
 *
 * @param o the facts of the served sequence and where the log is
 * @returns the record's place and digest, the new root and the blobs stored
 * @throws {InputError} the refusals of `sequenceClaim` (`HISTORY_INVALID`, `TOKENS_INVALID`,
 *   `CLAIM_INVALID`, ...), `checkChainFacts`' `CLAIM_INVALID` (a `model forward --json` chain
 *   computed for other facts or rows than the sequence's), the codes of reading the history and
 *   tokens files (`INPUT_*`), and those of `appendModelRecord` (checkpoint, log, lock, blobs,
 *   `USAGE`)
 * @throws {AssetError} unknown stack, profile, catalog or recipe
 * @example
 * ```ts ignore
 * await appendSequenceClaim({ log: "log/claims.jsonl", checkpoint: "ckpt",
 *   history: "history.json", tokens: "tokens.json",
 *   stack: "hf-qwen3-continuous-batching-torch2.8", profile: "a100",
 *   catalog: "demo-qwen3-tiny-a100", fingerprint });
 * ```
 */
export async function appendSequenceClaim(o: AppendSequenceOptions): Promise<AppendResult> {
  await readTextFile(o.history, { maxBytes: MAX_HISTORY_BYTES }); // absent or oversized: refused now
  const tokens = await readJsonFile(o.tokens, MODEL_INPUT_MAX_BYTES);
  return await appendModelRecord(o, {
    files: [{ name: "history", path: o.history }],
    build: async (facts, { store, staged, chainFacts }) => {
      const copy = staged.get("history")!;
      const history = await _stagedBytes(copy);
      const record = await sequenceClaim({
        ...facts,
        history,
        tokens,
        positions: o.positions,
        sampler: o.sampler,
      }, { store });
      const w = record.predicate.workload;
      if (!isSequenceWorkload(w) || w.history.sha256 !== copy.sha256) {
        throw new Error("the record does not name the stored history"); // a bug: 70
      }
      // The record was built from these bytes: they parse. Parsed again only for a layer chain
      // to compare with (a history at the limits takes gigabytes parsed).
      if (chainFacts !== undefined) {
        checkChainFacts(record, { chain: chainFacts, passes: parseServingHistory(history) });
      }
      return record;
    },
  });
}

/** The staged copy's bytes, bounded before they are read (the source may have grown). */
async function _stagedBytes(copy: StagedBlob): Promise<Uint8Array> {
  const { size } = await Deno.stat(copy.path);
  if (size > MAX_HISTORY_BYTES) {
    throw new InputError(
      "HISTORY_INVALID",
      `Cannot read serving history: ${size} bytes exceed ${MAX_HISTORY_BYTES}`,
    );
  }
  return await Deno.readFile(copy.path);
}

/**
 * The `--all-reduce` flag of `model forward`, `model classes` and `claims append`: an
 * implementation id, with the settings a single-node run pins by default, or a JSON file with
 * every setting (`ClaimedAllReduce`, as a record's `parallelism.allReduce` holds it).
 *
 * Defaults: `nccl-ring` runs one channel over the ring 0, 1, ..., n-1 with the Simple protocol
 * and NCCL's default 2 MiB chunk (NCCL_BUFFSIZE unset); `nccl-tree` runs one channel over the
 * chain 0 <- 1 <- ... <- n-1 (NCCL's intra-node tree is a chain in the order its topology search
 * returns, often the ranks' own: give the one `NCCL_DEBUG` prints in a file); the others take
 * no settings; `vllm-dispatch` (each message took the path vLLM's dispatch chose for its size)
 * takes its NCCL settings (`nccl`) only from a file.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import {
  type ClaimedAllReduce,
  MODELLED_ALL_REDUCE_KINDS,
  NCCL_SIMPLE_RING_CHUNK_BYTES,
  parseClaimedAllReduce,
  UNMODELLED_ALL_REDUCE_KINDS,
  VLLM_DISPATCH,
} from "../kernels/mod.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { readJsonFile } from "./read_json_file.ts";

/** What `--all-reduce` accepts, for help texts. */
export const ALL_REDUCE_FLAG_HELP = `${
  MODELLED_ALL_REDUCE_KINDS.join(", ")
}, ${VLLM_DISPATCH} (vLLM's dispatch chose per message), or a JSON file`;

/**
 * Reads `--all-reduce` for a tensor-parallel size.
 *
 * @param value the flag's value (an id, or a path to a `.json` file)
 * @param tp the tensor-parallel size
 * @returns the all-reduce
 * @throws {InputError} `USAGE` for an unknown id or settings that do not fit `tp`; what
 *   `readJsonFile` throws for the file
 * @example
 * ```ts ignore
 * const ar = await allReduceFlag("nccl-ring", 4);
 * ```
 */
export async function allReduceFlag(value: string, tp: number): Promise<ClaimedAllReduce> {
  const ids = [...MODELLED_ALL_REDUCE_KINDS, VLLM_DISPATCH, ...UNMODELLED_ALL_REDUCE_KINDS];
  if (!value.endsWith(".json") && !(ids as readonly string[]).includes(value)) {
    throw new InputError(
      "USAGE",
      `Cannot use --all-reduce ${quoteForTerminal(value)}: not an all-reduce (${
        [...MODELLED_ALL_REDUCE_KINDS, VLLM_DISPATCH].join(", ")
      }), and a settings file's name must end in .json`,
    );
  }
  // A settings file holds one ring or tree of at most 64 ranks: 1 MiB is ample.
  const json = value.endsWith(".json") ? await readJsonFile(value, 1 << 20) : _defaults(value, tp);
  let c: ClaimedAllReduce;
  try {
    c = parseClaimedAllReduce(json, tp);
  } catch (e) {
    throw new InputError(
      "USAGE",
      `Cannot use --all-reduce ${quoteForTerminal(value)}: ${(e as Error).message}`,
    );
  }
  return c; // an unmodelled implementation is the caller's NOT_VERIFIED
}

function _defaults(id: string, tp: number): unknown {
  const ranks = Array.from({ length: tp }, (_, r) => r);
  if (id === "nccl-ring") {
    return {
      kind: id,
      protocol: "simple",
      chunkBytes: NCCL_SIMPLE_RING_CHUNK_BYTES,
      rings: [ranks],
    };
  }
  if (id === "nccl-tree") {
    return {
      kind: id,
      protocol: "simple",
      trees: [{ down: ranks.map((r) => r + 1 < tp ? [r + 1] : []) }],
    };
  }
  return { kind: id };
}

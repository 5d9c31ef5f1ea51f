/**
 * `checkChainFacts`: a layer chain read from `model forward --json` output was computed for the
 * facts that output records (rows, GPU profile and SM count, stack, checkpoint, GEMM kernel, a
 * `model_forward` record's token batch by digest, split: tp, ep, the all-reduce, the
 * interconnect); appended to a record stating other facts, the audit would FAIL
 * the honest fingerprint on the chain alone, so `claims append` refuses it. The output's
 * fingerprint was computed in the same pass as its chain: a record stating another one
 * contradicts its own chain, and is refused too. A bare chain carries no facts and is not
 * checked.
 *
 * `model forward` computes one prefill of its batch from position 0. A `sequence` record's chain
 * is over its own rows in the passes of its serving history, so such a chain is its chain only
 * when the history is one pass holding the sequence alone with nothing cached, and the output's
 * batch is that one sequence.
 *
 * @module
 */
import { canonicalJson, type ClaimRecord, type HistoryPass } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { sha256Hex } from "../../sha256_hex.ts";
import type { ChainFacts } from "./claims_append_inputs.ts";

/**
 * Refuses a record whose layer chain came from `model forward --json` output computed for other
 * facts than the record states.
 *
 * @param record the built record (`model_forward` or `sequence`; other kinds are not checked)
 * @param o `chain`: the chain file's facts (undefined: a bare chain, or none); `passes`: a
 *   sequence record's serving history
 * @returns nothing
 * @throws {InputError} `CLAIM_INVALID`, naming each fact that differs
 * @example
 * ```ts ignore
 * checkChainFacts(record, { chain: { stack: "hf-qwen3-flash-attn-torch2.8" } });
 * ```
 */
export function checkChainFacts(
  record: ClaimRecord,
  o: { readonly chain: ChainFacts | undefined; readonly passes?: readonly HistoryPass[] },
): void {
  const chain = o.chain;
  const p = record.predicate;
  const w = p.workload as {
    kind?: string;
    positions?: unknown;
    attention?: { multiProcessorCount?: number };
    model?: { checkpointSha256?: string };
  };
  if (chain === undefined || (w.kind !== "model_forward" && w.kind !== "sequence")) return;
  const differs: string[] = [];
  const compare = (what: string, chained: unknown, recorded: unknown) => {
    if (chained !== undefined && _text(chained) !== _text(recorded)) {
      differs.push(
        `${what} ${JSON.stringify(chained).slice(0, 120)}, the record ${
          JSON.stringify(recorded).slice(0, 120)
        }`,
      );
    }
  };
  if (w.kind === "sequence") {
    _sequenceScope(o.passes ?? [], chain);
    // The one sequence of the output's batch is the record's: its rows at the record's positions.
    const positions = (w.positions as readonly number[]).map((pos) => [0, pos]);
    compare("positions", chain.positions, positions);
    const only = o.passes?.[0]?.entries[0];
    compare("sequence lengths", chain.lengths, only === undefined ? undefined : [only.query]);
  } else {
    compare("positions", chain.positions, w.positions);
    // The batch: a chain of other tokens FAILs at its first layer, read as attention's fault.
    if (chain.tokensSha256 !== undefined) {
      const tokens = sha256Hex(canonicalJson((w as { tokens?: unknown }).tokens ?? null));
      if (tokens !== chain.tokensSha256) {
        differs.push(
          `tokens of digest ${chain.tokensSha256.slice(0, 16)}…, the record's ${
            tokens.slice(0, 16)
          }…`,
        );
      }
    }
  }
  // The GEMM kernel (a catalog or a recipe): another kernel gives other bits from the first GEMM.
  compare("kernel", _kernelBody(chain.kernel), _kernelBody((w as { kernel?: unknown }).kernel));
  compare("profile", chain.profile, p.hardware.profile);
  compare("SM count", chain.sms, w.attention?.multiProcessorCount);
  compare("stack", chain.stack, p.software.stack);
  compare("checkpoint", chain.checkpointSha256, w.model?.checkpointSha256);
  const split = chain.parallelism;
  if (split === undefined) {
    // An output without a split ran on one GPU.
    compare("tp", 1, p.parallelism.tp);
    compare("ep", 1, p.parallelism.ep ?? 1);
  } else {
    compare("tp", split.tp, p.parallelism.tp);
    // Experts split over the ranks change which rows each rank's expert GEMMs see; an output
    // written before it recorded `ep` says nothing of it, so it cannot stand for a split one.
    if (split.ep === undefined && (p.parallelism.ep ?? 1) > 1) {
      differs.push(
        `ep not stated (an output written before model forward recorded it), the record ${p.parallelism.ep}`,
      );
    } else compare("ep", split.ep, p.parallelism.ep);
    // Compared only where two statements give other bits for sure: above two ranks (at two every
    // implementation adds once), neither side vLLM's dispatch (whose paths depend on the pass),
    // and both stating their links.
    const dispatch = (a: unknown) =>
      (a as { kind?: unknown } | undefined)?.kind === "vllm-dispatch";
    if (
      p.parallelism.tp > 2 && p.parallelism.allReduce !== undefined &&
      !dispatch(split.allReduce) && !dispatch(p.parallelism.allReduce)
    ) {
      compare("all-reduce", split.allReduce, p.parallelism.allReduce);
    }
    if (split.interconnect !== null && p.parallelism.interconnect !== undefined) {
      compare("interconnect", split.interconnect, p.parallelism.interconnect);
    }
  }
  if (differs.length > 0) {
    throw new InputError(
      "CLAIM_INVALID",
      `Cannot append claim: the layer chain was computed for other facts than the record's: ${
        differs.join("; ")
      } (run model forward with the record's facts)`,
    );
  }
  if (chain.fingerprint !== undefined && chain.fingerprint !== p.fingerprint.sha256) {
    throw new InputError(
      "CLAIM_INVALID",
      `Cannot append claim: --fingerprint ${JSON.stringify(p.fingerprint.sha256)} differs from ` +
        `${JSON.stringify(chain.fingerprint.slice(0, 80))}, the fingerprint the layer chain ` +
        "file's model forward run computed with that chain",
    );
  }
}

/**
 * Refuses `model forward` output as a sequence's chain unless the history is one pass of the
 * sequence alone from position 0 (what `model forward` computes).
 */
function _sequenceScope(passes: readonly HistoryPass[], chain: ChainFacts): void {
  const first = passes[0];
  const why = passes.length !== 1
    ? `the record's history has ${passes.length} passes`
    : first!.entries.length !== 1
    ? `the record's pass holds ${first!.entries.length} sequences`
    : first!.entries[0]!.cached !== 0
    ? `the record's pass starts after ${first!.entries[0]!.cached} cached tokens`
    : null;
  if (why === null) return;
  const batch = chain.lengths === undefined ? "" : ` (a batch of ${chain.lengths.length})`;
  throw new InputError(
    "CLAIM_INVALID",
    `Cannot append claim: the layer chain is model forward output${batch}, one prefill from ` +
      `position 0 over every fingerprinted row of its batch, and ${why}: its chain is not this ` +
      "sequence's (no command computes a served sequence's chain; --layer-chain is optional, " +
      "leave it out)",
  );
}

/** A value as compared: canonical JSON (a settings file may write its fields in any order). */
/**
 * A kernel reference as its bits see it: a recipe by its body, without the name (a label once the
 * body is checked against any bundled recipe of that name) or the optional schema tag, which
 * `model forward` does not write.
 */
function _kernelBody(k: unknown): unknown {
  const recipe = (k as { recipe?: unknown } | undefined)?.recipe;
  if (recipe === null || typeof recipe !== "object" || Array.isArray(recipe)) return k;
  const { name: _name, schema: _schema, ...body } = recipe as Record<string, unknown>;
  return { ...(k as object), recipe: body };
}

function _text(v: unknown): string {
  try {
    return new TextDecoder().decode(canonicalJson(v));
  } catch {
    return JSON.stringify(v);
  }
}

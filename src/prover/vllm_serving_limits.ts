/**
 * The limits a vLLM engine run of the simulated prover keeps, taken from the rules the verifier
 * holds a served sequence to, so that an honest record never contradicts its stack:
 * - requests per pass: vLLM's `max_num_seqs` (`vllmMaxNumSeqs`), the scenario's `maxSeqs`
 *   when it gives one within it;
 * - `max_model_len` (`vllmStackMaxModelLen`): vLLM 0.11 refuses a longer prompt
 *   (`lengthFinding`); its scheduler gives a running request positions only below
 *   `max_model_len - 1` (`v1/core/sched/scheduler.py:224-227`, `serving_scheduler.ts`), so a
 *   prompt chunked up to that point is never finished; and `check_stop`
 *   (`v1/core/sched/utils.py`) finishes a request with `FINISHED_LENGTH_CAPPED` once its prompt
 *   and generated tokens reach `max_model_len`, whatever its `max_tokens`: it generates at most
 *   `max(1, max_model_len - prompt)` tokens.
 *
 * A limit the verifier does not derive (a stack whose flags may set it) is left open: such
 * records are NOT_VERIFIED there, not FAILed.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { isVllmStack, type StackProfile, vllmMaxNumSeqs } from "../kernels/mod.ts";
import { type DecoderConfig, lengthFinding, vllmStackMaxModelLen } from "../model/mod.ts";
import type { RequestProgress, ServingRequest } from "./serving_scheduler.ts";

/** What one engine run is held to (absent: no limit). */
export interface ServingLimits {
  /** Entries per pass. */
  readonly maxSeqs?: number;
  /** vLLM's `max_model_len`. */
  readonly maxModelLen?: number;
}

/**
 * The limits of an engine run on a stack: on a vLLM stack, its `max_num_seqs` and
 * `max_model_len`; on another, the scenario's `maxSeqs` alone.
 *
 * @param stack the stack profile the run is on
 * @param o the checkpoint's config, the GPU profile's id and the scenario's `maxSeqs`
 * @returns the limits
 * @throws {InputError} `SCENARIO_INVALID` for a `maxSeqs` above the stack's `max_num_seqs`
 * @example
 * ```ts ignore
 * const limits = servingLimits(stack, { config, gpu: "a100", maxSeqs: undefined });
 * ```
 */
export function servingLimits(
  stack: StackProfile,
  o: {
    readonly config: DecoderConfig;
    readonly gpu: string;
    readonly maxSeqs: number | undefined;
  },
): ServingLimits {
  const own = o.maxSeqs === undefined ? {} : { maxSeqs: o.maxSeqs };
  if (!isVllmStack(stack)) return own;
  const seqs = vllmMaxNumSeqs(stack, o.gpu);
  const bound = seqs?.ok === true ? seqs : null;
  if (bound !== null && o.maxSeqs !== undefined && o.maxSeqs > bound.requests) {
    throw new InputError(
      "SCENARIO_INVALID",
      `Cannot serve on '${stack.id}': serving.maxSeqs ${o.maxSeqs} is more requests than ` +
        `vLLM's scheduler runs at once (max_num_seqs ${bound.requests}: ${bound.rule})`,
    );
  }
  const mml = vllmStackMaxModelLen(o.config, stack);
  return {
    ...(bound === null ? {} : { maxSeqs: bound.requests }),
    ...own,
    ...(mml.ok ? { maxModelLen: mml.tokens } : {}),
  };
}

/**
 * The requests as the run serves them: a prompt vLLM refuses is refused, and each request
 * generates no more tokens than `check_stop` lets it before `max_model_len`.
 *
 * @param requests the drawn requests
 * @param o the stack, the checkpoint's config, the limits and the first request's record number
 * @returns the requests with their generated-token counts capped
 * @throws {InputError} `SCENARIO_INVALID` naming the request and vLLM's rule
 * @example
 * ```ts ignore
 * const served = servedRequests(requests, { stack, config, limits, first: 1 });
 * ```
 */
export function servedRequests(
  requests: readonly ServingRequest[],
  o: {
    readonly stack: StackProfile;
    readonly config: DecoderConfig;
    readonly limits: ServingLimits;
    readonly first: number;
  },
): ServingRequest[] {
  const mml = o.limits.maxModelLen;
  return requests.map((q, r) => {
    const f = lengthFinding(o.config, { stack: o.stack, prompt: q.prompt, generated: 0 });
    if (f?.kind === "contradiction") {
      throw new InputError(
        "SCENARIO_INVALID",
        `Cannot serve request ${o.first + r} on '${o.stack.id}': ${f.reason}`,
      );
    }
    if (mml === undefined) return q;
    return { ...q, generate: Math.min(q.generate, Math.max(1, mml - q.prompt)) };
  });
}

/**
 * Refuses a request whose prompt the scheduler can no longer continue: chunked up to
 * `max_model_len - 1` positions before its end, it is never scheduled again.
 *
 * @param q the request
 * @param o its progress, the limits, its record number and the stack's id
 * @throws {InputError} `SCENARIO_INVALID` naming the request and the limit
 * @example
 * ```ts
 * import { checkPromptRoom } from "./vllm_serving_limits.ts";
 * checkPromptRoom({ arrival: 0, prompt: 8, generate: 1 },
 *   { progress: { computed: 4, generated: 0 }, limits: { maxModelLen: 8 }, seq: 1, stack: "s" });
 * ```
 */
export function checkPromptRoom(
  q: ServingRequest,
  o: {
    readonly progress: RequestProgress;
    readonly limits: ServingLimits;
    readonly seq: number;
    readonly stack: string;
  },
): void {
  const mml = o.limits.maxModelLen;
  const { computed } = o.progress;
  if (mml === undefined || computed === 0 || computed >= q.prompt || computed < mml - 1) return;
  throw new InputError(
    "SCENARIO_INVALID",
    `Cannot serve request ${o.seq} on '${o.stack}': its ${q.prompt}-token prompt was chunked ` +
      `up to ${computed} positions, and vLLM's scheduler continues a running request only below ` +
      `max_model_len ${mml} minus 1, so it never finishes the prompt (one pass of it would)`,
  );
}

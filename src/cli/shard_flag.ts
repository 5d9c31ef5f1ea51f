/**
 * The `--shard` flag of `audit work`: `i/n`, or only `n` with the index from
 * `JOB_COMPLETION_INDEX` (set by a Kubernetes Indexed Job for each pod).
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import type { Shard } from "../verify/mod.ts";

/** Most shards a plan can be split into. */
export const MAX_SHARDS = 1_000_000;

/**
 * Parses `--shard`.
 *
 * @param text `i/n` or `n`
 * @param env reads an environment variable (only called for the `n` form)
 * @returns the shard
 * @throws {InputError} `USAGE_SHARD`
 * @example
 * ```ts
 * import { parseShardFlag } from "./shard_flag.ts";
 * const s = parseShardFlag("4", () => "2");
 * if (s.index !== 2 || s.count !== 4) throw new Error();
 * ```
 */
export function parseShardFlag(text: string, env: (name: string) => string | undefined): Shard {
  const bad = (why: string): never => {
    throw new UsageError("USAGE_SHARD", `Cannot use --shard '${_safe(text)}': ${why}`);
  };
  // Integers as every other flag takes them: decimal digits, no leading zero (ids stay unique).
  const m = /^(?:(\d+)\/)?(\d+)$/.exec(text);
  if (m === null) return bad("expected i/n or n (with JOB_COMPLETION_INDEX set)");
  if ([m[1], m[2]].some((d) => d !== undefined && d.length > 1 && d.startsWith("0"))) {
    bad("integers are written without leading zeros");
  }
  if (m[2]!.length > 7) bad(`n must be in 1..${MAX_SHARDS}`);
  if ((m[1]?.length ?? 0) > 7) bad(`index ${m[1]!.slice(0, 12)} is not below n = ${m[2]}`);
  const count = Number(m[2]);
  let indexText = m[1];
  if (indexText === undefined) {
    indexText = env("JOB_COMPLETION_INDEX");
    if (indexText === undefined) bad("only n given and JOB_COMPLETION_INDEX is not set");
    if (!/^(0|[1-9]\d{0,6})$/.test(indexText!)) bad("JOB_COMPLETION_INDEX is not a shard index");
  }
  const index = Number(indexText);
  if (count < 1 || count > MAX_SHARDS) bad(`n must be in 1..${MAX_SHARDS}`);
  if (index >= count) bad(`index ${index} is not below n = ${count}`);
  return { index, count };
}

function _safe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 32);
}

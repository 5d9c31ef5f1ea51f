/**
 * Where the next record of a claim log goes: the log's id, the next sequence number and the
 * digest of the last record (the genesis digest for a new log).
 *
 * @module
 */
import { type ClaimLog, GENESIS_PREV, LOG_ID_PATTERN } from "../claims/mod.ts";
import { InputError } from "../errors.ts";

/** A record's place in its log (the predicate's `log` field). */
export interface LogPosition {
  /** The log's id. */
  readonly logId: string;
  /** The record's sequence number (0 for the first). */
  readonly seq: number;
  /** Digest of the record before it (64 zeros for the first). */
  readonly prev: string;
}

/**
 * The position after a log's last record, or the first position of a new log.
 *
 * @param log the parsed, chain-checked log, or null when there is none yet
 * @param o `logId`: required for a new log; for an existing log, when given, it must be the log's
 * @returns the position of the record to append
 * @throws {InputError} `USAGE` for a new log without a log id, `CLAIM_INVALID` for a log id the
 *   record format refuses, `LOG_CHAIN` for a log id other than the existing log's
 * @example
 * ```ts
 * import { nextLogPosition } from "./log_position.ts";
 * const p = nextLogPosition(null, { logId: "my-log" });
 * if (p.seq !== 0 || p.prev !== "0".repeat(64)) throw new Error();
 * ```
 */
export function nextLogPosition(
  log: Pick<ClaimLog, "records" | "digests"> | null,
  o: { readonly logId?: string | undefined } = {},
): LogPosition {
  if (o.logId !== undefined && !LOG_ID_PATTERN.test(o.logId)) {
    throw new InputError(
      "CLAIM_INVALID",
      `Cannot append claim: log id ${
        JSON.stringify(o.logId.slice(0, 140))
      } is not 1-128 letters, digits or '._:-'`,
    );
  }
  const last = log === null ? undefined : log.records[log.records.length - 1];
  if (log === null || last === undefined) {
    if (o.logId === undefined) {
      throw new InputError("USAGE", "Cannot append claim: a new log needs --log-id");
    }
    return Object.freeze({ logId: o.logId, seq: 0, prev: GENESIS_PREV });
  }
  const { logId, seq } = last.predicate.log;
  if (o.logId !== undefined && o.logId !== logId) {
    throw new InputError(
      "LOG_CHAIN",
      `Cannot append claim: the log's id is '${logId}', not '${o.logId}'`,
    );
  }
  return Object.freeze({ logId, seq: seq + 1, prev: log.digests[log.digests.length - 1]! });
}

/**
 * The `--positions` flag: the fingerprinted rows of a record, as `model forward` computes them
 * and `claims append` records them.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { parseIntOption } from "./parse_int_option.ts";

/**
 * Reads `model_forward` positions, `<sequence>:<token>,...`.
 *
 * @param text the flag's value
 * @returns the pairs, in the order given
 * @throws {UsageError} `USAGE_NUMBER` (also for a pair given twice)
 * @example
 * ```ts
 * import { forwardPositionsFlag } from "./positions_flag.ts";
 * if (forwardPositionsFlag("0:4,1:2")[1]![1] !== 2) throw new Error();
 * ```
 */
export function forwardPositionsFlag(text: string): [number, number][] {
  const pairs = text.split(",").map((item): [number, number] => {
    const m = /^([0-9]+):([0-9]+)$/.exec(item);
    if (m === null) {
      throw new UsageError(
        "USAGE_NUMBER",
        `Cannot use --positions: '${item.slice(0, 40)}' is not <sequence>:<token>`,
      );
    }
    return [positionNumber(m[1]!), positionNumber(m[2]!)];
  });
  _once(pairs.map(([seq, pos]) => `${seq}:${pos}`));
  return pairs;
}

/**
 * Reads `sequence` positions, `<token>,...`.
 *
 * @param text the flag's value
 * @returns the token positions
 * @throws {UsageError} `USAGE_NUMBER` (also for a position given twice)
 * @example
 * ```ts
 * import { sequencePositionsFlag } from "./positions_flag.ts";
 * if (sequencePositionsFlag("3,7").length !== 2) throw new Error();
 * ```
 */
export function sequencePositionsFlag(text: string): number[] {
  const positions = text.split(",").map(positionNumber);
  _once(positions.map(String));
  return positions;
}

/** Each position at most once, as a record's parser requires (a repeat binds nothing more). */
function _once(keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) {
      throw new UsageError("USAGE_NUMBER", `Cannot use --positions: ${k} is given twice`);
    }
    seen.add(k);
  }
}

function positionNumber(text: string): number {
  return parseIntOption(text, { flag: "--positions", min: 0, max: 1 << 24 });
}

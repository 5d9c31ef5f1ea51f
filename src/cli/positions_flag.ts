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
 * @throws {UsageError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { forwardPositionsFlag } from "./positions_flag.ts";
 * if (forwardPositionsFlag("0:4,1:2")[1]![1] !== 2) throw new Error();
 * ```
 */
export function forwardPositionsFlag(text: string): [number, number][] {
  return text.split(",").map((item) => {
    const m = /^([0-9]+):([0-9]+)$/.exec(item);
    if (m === null) {
      throw new UsageError(
        "USAGE_NUMBER",
        `Cannot use --positions: '${item.slice(0, 40)}' is not <sequence>:<token>`,
      );
    }
    return [positionNumber(m[1]!), positionNumber(m[2]!)];
  });
}

/**
 * Reads `sequence` positions, `<token>,...`.
 *
 * @param text the flag's value
 * @returns the token positions
 * @throws {UsageError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { sequencePositionsFlag } from "./positions_flag.ts";
 * if (sequencePositionsFlag("3,7").length !== 2) throw new Error();
 * ```
 */
export function sequencePositionsFlag(text: string): number[] {
  return text.split(",").map(positionNumber);
}

function positionNumber(text: string): number {
  return parseIntOption(text, { flag: "--positions", min: 0, max: 1 << 24 });
}

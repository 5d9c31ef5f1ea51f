/**
 * Validation of datapath entries of GPU profiles.
 *
 * Datapath JSON:
 * ```
 * { "id", "family": "mma"|"wgmma"|"tcgen05", "input", "output", "k", "blockSize", "fracBits",
 *   "resultFormat", "rounding": "rz"|"rne", "alignFloor": int|null,
 *   "chain": {"kind":"contiguous"} | {"kind":"interleaved","period":p,"groups":[[..],..]},
 *   "accumulator": "early"|"late", "sources": [..], "validation": "...", "note"?: "..." }
 * ```
 *
 * @module
 */
import { formatByName, type FormatName, FORMATS } from "../../numerics/mod.ts";
import { arr, fieldsOf, int, oneOf, onlyKnown, str, strings } from "../../json_fields.ts";
import type { Chain, ProfileDatapath } from "./datapath.ts";

const _FORMAT_NAMES = Object.keys(FORMATS) as FormatName[];

/**
 * Validates one datapath entry and freezes it.
 *
 * @param json parsed JSON of the entry
 * @param path path for error messages
 * @returns the frozen datapath with provenance
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseDatapath } from "./parse_datapath.ts";
 * const dp = parseDatapath({
 *   id: "mma-bf16-fp32", family: "mma", input: "bf16", output: "fp32", k: 16, blockSize: 8,
 *   fracBits: 24, resultFormat: "fp32", rounding: "rz", alignFloor: -132,
 *   chain: { kind: "contiguous" }, accumulator: "early", sources: ["K&M Table II"],
 *   validation: "measured",
 * }, "dp");
 * if (dp.blockSize !== 8) throw new Error();
 * ```
 */
export function parseDatapath(json: unknown, path: string): ProfileDatapath {
  const f = fieldsOf(json, path);
  onlyKnown(f, [
    "id",
    "family",
    "input",
    "output",
    "k",
    "blockSize",
    "fracBits",
    "resultFormat",
    "rounding",
    "alignFloor",
    "chain",
    "accumulator",
    "sources",
    "validation",
    "note",
  ]);
  const input = formatByName(oneOf(f, "input", _FORMAT_NAMES));
  const output = formatByName(oneOf(f, "output", ["fp32", "fp16"] as const));
  const resultFormat = formatByName(oneOf(f, "resultFormat", _FORMAT_NAMES));
  if (resultFormat.storageBits !== output.storageBits) {
    throw new RangeError(
      `Cannot read '${path}.resultFormat': '${resultFormat.name}' does not fit the '${output.name}' container`,
    );
  }
  const k = int(f, "k", { min: 1, max: 256 });
  const blockSize = int(f, "blockSize", { min: 1, max: k });
  const floor = f.obj.alignFloor;
  if (floor !== null && (typeof floor !== "number" || !Number.isInteger(floor))) {
    throw new TypeError(`Cannot read '${path}.alignFloor': expected an integer or null`);
  }
  const chain = _chain(f.obj.chain, `${path}.chain`, k, blockSize);
  const note = f.obj.note;
  if (note !== undefined && typeof note !== "string") {
    throw new TypeError(`Cannot read '${path}.note': expected a string`);
  }
  return Object.freeze({
    id: str(f, "id", /^[a-z0-9][a-z0-9-]{0,63}$/),
    family: oneOf(f, "family", ["mma", "wgmma", "tcgen05"] as const),
    input,
    output,
    k,
    blockSize,
    fracBits: int(f, "fracBits", { min: 1, max: 40 }),
    resultFormat,
    rounding: oneOf(f, "rounding", ["rz", "rne"] as const),
    alignFloor: floor as number | null,
    chain,
    accumulator: oneOf(f, "accumulator", ["early", "late"] as const),
    sources: Object.freeze([...strings(f, "sources")]),
    validation: str(f, "validation"),
    ...(note === undefined ? {} : { note }),
  });
}

function _chain(json: unknown, path: string, k: number, blockSize: number): Chain {
  const f = fieldsOf(json, path);
  const kind = oneOf(f, "kind", ["contiguous", "interleaved"] as const);
  if (kind === "contiguous") {
    onlyKnown(f, ["kind"]);
    return Object.freeze({ kind });
  }
  onlyKnown(f, ["kind", "period", "groups"]);
  const period = int(f, "period", { min: 1, max: k });
  const seen = new Set<number>();
  const groups = arr(f, "groups").map((g, i) => {
    if (!Array.isArray(g) || g.some((r) => !Number.isInteger(r) || r < 0 || r >= period)) {
      throw new RangeError(
        `Cannot read '${path}.groups[${i}]': expected residues in 0..${period - 1}`,
      );
    }
    for (const r of g as number[]) {
      if (seen.has(r)) {
        throw new RangeError(`Cannot read '${path}.groups[${i}]': residue ${r} repeats`);
      }
      seen.add(r);
    }
    if ((k / period) * g.length > blockSize) {
      throw new RangeError(`Cannot read '${path}.groups[${i}]': more than blockSize products`);
    }
    return Object.freeze([...(g as number[])]);
  });
  if (seen.size !== period || k % period !== 0) {
    throw new RangeError(
      `Cannot read '${path}': groups must cover every residue of a period dividing k`,
    );
  }
  return Object.freeze({ kind, period, groups: Object.freeze(groups) });
}

/**
 * One drand beacon round as relays serve it at `/<chain hash>/public/<round>`.
 *
 * @module
 */
import { _bad, _hex, _int, _json, _object } from "./drand_chain_info.ts";

/** A parsed drand round (hex fields lowercased). */
export interface DrandRound {
  /** Round number, >= 1. */
  readonly round: number;
  /** Group signature, hex (96 bytes on G2 or 48 bytes on G1 depending on the scheme). */
  readonly signature: string;
  /** Signature of the previous round (chained schemes only), hex. */
  readonly previousSignature?: string;
  /** The randomness the relay states, hex; checked against SHA-256(signature) on verify. */
  readonly randomness?: string;
}

/**
 * Parses a drand round JSON document strictly.
 *
 * @param text `{round, signature, randomness?, previous_signature?}`
 * @returns the round, frozen
 * @throws {InputError} `BAD_BEACON` when the input is not a string, the text is not JSON, has
 *   unknown fields, a round that is not a positive safe integer, or non-hex fields
 * @example
 * ```ts
 * import { parseDrandRound } from "./drand_round.ts";
 * const r = parseDrandRound('{"round":123,"signature":"b75c"}');
 * if (r.round !== 123 || r.signature !== "b75c") throw new Error();
 * ```
 */
export function parseDrandRound(text: string): DrandRound {
  const obj = _object(_json(text, "round"), "round", [
    "round",
    "signature",
    "previous_signature",
    "randomness",
  ]);
  const out: DrandRound = {
    round: _int(obj, "round", { min: 1, max: Number.MAX_SAFE_INTEGER }),
    signature: _hex(obj, "signature", "round"),
    ...(obj.previous_signature === undefined
      ? {}
      : { previousSignature: _hex(obj, "previous_signature", "round") }),
    ...(obj.randomness === undefined ? {} : { randomness: _hex(obj, "randomness", "round", 32) }),
  };
  if (out.signature.length === 0) _bad("'round.signature' is empty");
  return Object.freeze(out);
}

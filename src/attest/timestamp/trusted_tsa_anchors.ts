/**
 * The TSA trust anchors a trust root pins: `"tsa": [{"certificate": <base64 DER>, "name"}]`.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { InputError } from "../../errors.ts";
import { decodeBase64 } from "../base64.ts";
import { isStrictDer } from "./_strict_der.ts";

/**
 * Reads the `tsa` entry of a trust root (absent: no TSA is trusted).
 *
 * @param value the trust root's `tsa` field as parsed JSON
 * @returns DER certificates
 * @throws {InputError} `BAD_TRUST_ROOT` when the entry is not an array of at most 16
 *   `{certificate, name}` whose certificates are X.509 DER
 * @example
 * ```ts
 * import { trustedTsaAnchors } from "./trusted_tsa_anchors.ts";
 * if (trustedTsaAnchors(undefined).length !== 0) throw new Error();
 * let refused = false;
 * try {
 *   trustedTsaAnchors([{ certificate: "MAA=", name: "t" }]); // an empty SEQUENCE: no certificate
 * } catch {
 *   refused = true;
 * }
 * if (!refused) throw new Error();
 * ```
 */
export function trustedTsaAnchors(value: unknown): readonly Uint8Array[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 16) _bad("'tsa' is not an array of anchors");
  return (value as unknown[]).map((v, i) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      _bad(`'tsa[${i}]' is not an object`);
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== "certificate" && k !== "name") _bad(`'tsa[${i}]' has unknown field '${k}'`);
    }
    if (typeof o.name !== "string") _bad(`'tsa[${i}].name' is not a string`);
    if (typeof o.certificate !== "string" || o.certificate.length > 64 * 1024) {
      _bad(`'tsa[${i}].certificate' is not base64 DER`);
    }
    let der: Uint8Array;
    try {
      der = decodeBase64(o.certificate as string, { alphabet: "standard" });
    } catch {
      return _bad(`'tsa[${i}].certificate' is not base64 DER`);
    }
    try {
      if (!isStrictDer(der)) throw new Error("not one DER value");
      const parsed = asn1js.fromBER(der.slice().buffer);
      if (parsed.offset !== der.length) throw new Error("not one DER value");
      new pkijs.Certificate({ schema: parsed.result });
    } catch {
      return _bad(`'tsa[${i}].certificate' is not an X.509 certificate`);
    }
    return der;
  });
}

function _bad(why: string): never {
  throw new InputError("BAD_TRUST_ROOT", `Cannot read trust root: ${why}`);
}

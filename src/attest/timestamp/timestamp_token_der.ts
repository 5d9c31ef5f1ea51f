/**
 * A time-stamp response (RFC 3161 §2.4.2 TimeStampResp), as Sigstore bundles carry it
 * (`rfc3161Timestamps[].signedTimestamp`), from a response or from a bare TimeStampToken.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { InputError } from "../../errors.ts";
import { isStrictDer } from "./_strict_der.ts";

/**
 * Returns the DER of a granted TimeStampResp: `der` itself when it is one, a response with status
 * `granted` wrapping it when it is a bare TimeStampToken.
 *
 * @param der a TimeStampResp or a TimeStampToken
 * @returns the response's DER
 * @throws {InputError} `BAD_TIMESTAMP_TOKEN` when it is neither or the response was not granted
 * @example
 * ```ts
 * import { timestampResponseDer } from "./timestamp_token_der.ts";
 * import { InputError } from "../../errors.ts";
 * try {
 *   timestampResponseDer(new Uint8Array([1, 2]));
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof InputError) || e.code !== "BAD_TIMESTAMP_TOKEN") throw e;
 * }
 * ```
 */
export function timestampResponseDer(der: Uint8Array): Uint8Array {
  const bad = (why: string): never => {
    throw new InputError("BAD_TIMESTAMP_TOKEN", `Cannot read time-stamp token: ${why}`);
  };
  if (!isStrictDer(der)) bad("not one DER value");
  const parsed = asn1js.fromBER(der.slice().buffer);
  if (parsed.offset === -1 || parsed.offset !== der.length) bad("not one DER value");
  const first = (parsed.result as asn1js.Sequence).valueBlock?.value?.[0];
  try {
    if (first instanceof asn1js.ObjectIdentifier) {
      const token = new pkijs.ContentInfo({ schema: parsed.result });
      const resp = new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
        timeStampToken: token,
      });
      return new Uint8Array(resp.toSchema().toBER());
    }
    const resp = new pkijs.TimeStampResp({ schema: parsed.result });
    if (resp.status.status !== 0 && resp.status.status !== 1) return bad("not granted");
    if (resp.timeStampToken === undefined) return bad("the response holds no token");
    return der.slice();
  } catch (e) {
    if (e instanceof InputError) throw e;
    return bad("neither a token nor a response");
  }
}

/**
 * An attestation file in either form bitaudit writes: the DSSE envelope
 * (`attestation.dsse.json`) or the Sigstore bundle around it (`attestation.sigstore.json`, from
 * `audit --bundle` or `bundle`), told apart by content.
 *
 * @module
 */
import type { DsseEnvelope } from "./dsse.ts";
import { parseStrictJson } from "../json_strict.ts";
import { MAX_ENVELOPE_BYTES, MAX_ENVELOPE_VALUES, parseEnvelope } from "./envelope.ts";
import { parseSigstoreBundle } from "./sigstore_bundle.ts";

/** An attestation read from a file. */
export interface AttestationFile {
  /** `dsse`: a bare DSSE envelope; `sigstore-bundle`: a Sigstore bundle v0.3. */
  readonly format: "dsse" | "sigstore-bundle";
  /** The envelope to check. */
  readonly envelope: DsseEnvelope;
  /** RFC 3161 timestamps the file carries (a bundle's `rfc3161Timestamps`; none for `dsse`). */
  readonly timestamps: readonly Uint8Array[];
}

/**
 * Reads an attestation: a JSON object with a `mediaType` or a `dsseEnvelope` is read as a
 * Sigstore bundle (`parseSigstoreBundle`), anything else as a DSSE envelope (`parseEnvelope`), both
 * strictly.
 *
 * @param text the file's text
 * @returns the format, the envelope and the timestamps carried
 * @throws {InputError} `ENVELOPE_TOO_LARGE`, `BAD_ENVELOPE`, `BAD_BASE64`
 * @example
 * ```ts
 * import { readAttestation } from "./read_attestation.ts";
 * import { sigstoreBundle } from "./sigstore_bundle.ts";
 * const env = { payloadType: "t", payload: "e30=", signatures: [{ keyid: "", sig: "A".repeat(86) + "==" }] };
 * if (readAttestation(JSON.stringify(env)).format !== "dsse") throw new Error();
 * const b = readAttestation(JSON.stringify(sigstoreBundle(env)));
 * if (b.format !== "sigstore-bundle" || b.envelope.payload !== "e30=") throw new Error();
 * ```
 */
export function readAttestation(text: string): AttestationFile {
  if (_looksLikeBundle(text)) {
    const b = parseSigstoreBundle(text);
    return Object.freeze({
      format: "sigstore-bundle",
      envelope: b.envelope,
      timestamps: b.timestamps,
    });
  }
  return Object.freeze({ format: "dsse", envelope: parseEnvelope(text), timestamps: [] });
}

function _looksLikeBundle(text: string): boolean {
  // Over the limit, `parseEnvelope` refuses it without parsing.
  if (typeof text !== "string" || text.length > MAX_ENVELOPE_BYTES) return false;
  let value: unknown;
  try {
    // Bounded as the parse that follows is: a text of millions of values is refused there.
    value = parseStrictJson(text, { maxValues: MAX_ENVELOPE_VALUES });
  } catch {
    return false;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (Object.hasOwn(value, "mediaType") || Object.hasOwn(value, "dsseEnvelope"));
}

/**
 * An attestation file in either form bitaudit writes: the DSSE envelope
 * (`attestation.dsse.json`) or the Sigstore bundle around it (`attestation.sigstore.json`, from
 * `audit --bundle` or `bundle`), told apart by content.
 *
 * @module
 */
import type { DsseEnvelope } from "./dsse.ts";
import { InputError } from "../errors.ts";
import { parseStrictJson } from "../json_strict.ts";
import { MAX_ENVELOPE_BYTES, MAX_ENVELOPE_VALUES, parseEnvelope } from "./envelope.ts";
import { parseSigstoreBundle } from "./sigstore_bundle.ts";
import { TRUST_ROOT_MEDIA_TYPE } from "./trust_root.ts";

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
 * Reads an attestation: a JSON object whose `mediaType` is a Sigstore bundle's (any version: the
 * bundle parser names one it does not read) or that holds a `dsseEnvelope` is read as a Sigstore
 * bundle (`parseSigstoreBundle`); a trust root (its `mediaType`), handed over in the
 * attestation's place, is refused as such; anything else is read as a DSSE envelope
 * (`parseEnvelope`), so that another object's error is an envelope's. Both parses are strict.
 *
 * @param text the file's text
 * @returns the format, the envelope and the timestamps carried
 * @throws {InputError} `ENVELOPE_TOO_LARGE`, `BAD_ENVELOPE` (also for a trust root, named as one),
 *   `BAD_BASE64`
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
  const form = _form(text);
  if (form === "trust-root") {
    throw new InputError(
      "BAD_ENVELOPE",
      "Cannot read attestation: not an attestation: this is a trust root (give it as the trust " +
        "root, with --trust-root)",
    );
  }
  if (form === "bundle") {
    const b = parseSigstoreBundle(text);
    return Object.freeze({
      format: "sigstore-bundle",
      envelope: b.envelope,
      timestamps: b.timestamps,
    });
  }
  return Object.freeze({ format: "dsse", envelope: parseEnvelope(text), timestamps: [] });
}

/** Media types of Sigstore bundles start so (v0.1 to v0.3, in either spelling). */
const _SIGSTORE_BUNDLE = "application/vnd.dev.sigstore.bundle";

/** Which parser the text is for, told by its `mediaType` or `dsseEnvelope`. */
function _form(text: string): "bundle" | "trust-root" | "envelope" {
  // Over the limit, `parseEnvelope` refuses it without parsing.
  if (typeof text !== "string" || text.length > MAX_ENVELOPE_BYTES) return "envelope";
  let value: unknown;
  try {
    // Bounded as the parse that follows is: a text of millions of values is refused there.
    value = parseStrictJson(text, { maxValues: MAX_ENVELOPE_VALUES });
  } catch {
    return "envelope";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "envelope";
  const mediaType = Object.hasOwn(value, "mediaType")
    ? (value as { mediaType: unknown }).mediaType
    : undefined;
  if (mediaType === TRUST_ROOT_MEDIA_TYPE) return "trust-root";
  const bundle = (typeof mediaType === "string" && mediaType.startsWith(_SIGSTORE_BUNDLE)) ||
    Object.hasOwn(value, "dsseEnvelope");
  return bundle ? "bundle" : "envelope";
}

/**
 * `bitaudit bundle`: an attestation as a Sigstore bundle v0.3, optionally with an RFC 3161
 * timestamp over its signature, for verifiers of the Sigstore ecosystem.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  decodeBase64,
  type DsseEnvelope,
  IN_TOTO_PAYLOAD_TYPE,
  MAX_TIMESTAMP_TOKEN_BYTES,
  parseStatement,
  sigstoreBundle,
  timestampImprintMismatch,
  timestampResponseDer,
  VERDICT_PREDICATE_TYPE,
} from "../../attest/mod.ts";
import { InputError } from "../../errors.ts";
import { quoteShort } from "../../escape_text.ts";
import { loadEnvelope } from "../load_inputs.ts";
import { printText } from "../output.ts";
import { writeNewFile } from "../write_new_file.ts";
import { readBinaryFile } from "../read_json_file.ts";
import { addCommandHelp } from "../command_help.ts";

/**
 * Builds the `bundle` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { bundleCommand } from "./bundle.ts";
 * if (bundleCommand().name() !== "bundle") throw new Error();
 * ```
 */
export function bundleCommand(): CommandUnknownOpts {
  return addCommandHelp(new Command("bundle"))
    .description("write an attestation as a Sigstore bundle v0.3 (DSSE, public-key hint)")
    .argument("<attestation>", "attestation.dsse.json")
    .requiredOption("--out <file>", "bundle JSON to write (never overwritten)")
    .option(
      "--timestamp <file>",
      "RFC 3161 token or response over the attestation's first signature (refused if over anything else)",
    )
    .action(async (attestation, opts) => {
      const envelope = await loadEnvelope(attestation);
      _checkVerdict(envelope, attestation);
      const timestamps = opts.timestamp === undefined
        ? []
        : [await _token(opts.timestamp, envelope)];
      await writeBundle(envelope, { out: opts.out, timestamps });
      printText(`wrote ${opts.out}`);
    });
}

/**
 * Writes the Sigstore bundle of an envelope.
 *
 * @param envelope the attestation envelope
 * @param options output path and RFC 3161 token DERs
 * @throws {InputError} `OUTPUT_EXISTS` when the file exists
 * @example
 * ```ts ignore
 * await writeBundle(envelope, { out: "attestation.sigstore.json", timestamps: [] });
 * ```
 */
export async function writeBundle(
  envelope: DsseEnvelope,
  options: { out: string; timestamps: readonly Uint8Array[] },
): Promise<void> {
  const bundle = sigstoreBundle(envelope, { timestamps: options.timestamps });
  await writeNewFile(options.out, JSON.stringify(bundle, null, 2) + "\n");
}

/**
 * Refuses an envelope that is not an audit verdict (an announcement, a claim): `check` of its
 * bundle would only say INVALID, after it was handed on as an attestation.
 */
function _checkVerdict(envelope: DsseEnvelope, path: string): void {
  const refuse = (why: string): never => {
    throw new InputError(
      "BAD_STATEMENT",
      `Cannot bundle '${path}': ${why}; bundle takes an audit verdict (attestation.dsse.json)`,
    );
  };
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    refuse(`its payloadType is ${quoteShort(envelope.payloadType, 80)}, not in-toto's`);
  }
  const type = parseStatement(decodeBase64(envelope.payload, { alphabet: "any" })).predicateType;
  if (type !== VERDICT_PREDICATE_TYPE) {
    refuse(
      `its predicateType is ${quoteShort(type, 80)}, not a verdict's ${VERDICT_PREDICATE_TYPE}`,
    );
  }
}

/** Reads a token and makes sure it is over the signature the bundle carries (the first one). */
async function _token(path: string, envelope: DsseEnvelope): Promise<Uint8Array> {
  const der = timestampResponseDer(await readBinaryFile(path, MAX_TIMESTAMP_TOKEN_BYTES));
  const first = envelope.signatures[0];
  const why = first === undefined
    ? "the attestation is unsigned"
    : timestampImprintMismatch(der, decodeBase64(first.sig, { alphabet: "any" }));
  if (why !== undefined) {
    throw new InputError(
      "BAD_TIMESTAMP_TOKEN",
      `Cannot bundle the time-stamp token in '${path}': it is not over the attestation's (first) ` +
        `signature: ${why}`,
    );
  }
  return der;
}

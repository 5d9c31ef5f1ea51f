/**
 * Item results signed by the worker that computed them. A worker holds its own Ed25519 key (never
 * the inspector's); each result it hands back, in a shard's results file or as a pool message, is
 * one line: the RFC 8785 canonical JSON of a DSSE envelope with exactly one signature, whose
 * payload is the item result's canonical JSON (without its newline) and whose payload type is
 * {@link ITEM_RESULT_PAYLOAD_TYPE}. The signature covers `PAE(payloadType, payload)`, so a result
 * moved to another plan, edited (a flipped status, a forged PASS) or signed by a key the inspector
 * did not name is refused before anything is merged.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import {
  type AttributedResult,
  encodeItemResult,
  type ItemResult,
  parseItemResult,
} from "../verify/mod.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { type DsseEnvelope, signEnvelope, type SigningKey } from "./dsse.ts";
import { parseEnvelope } from "./envelope.ts";
import { keyId } from "./key_id.ts";
import { pae } from "./pae.ts";
import { verify } from "./signature.ts";

/** DSSE payload type of a signed item result. */
export const ITEM_RESULT_PAYLOAD_TYPE = "application/vnd.bitaudit.item-result+json";

/** Longest signed result line accepted (UTF-8 bytes, without its newline). */
export const MAX_SIGNED_RESULT_BYTES = 1024 * 1024;

/** The worker keys an inspector accepts: key id -> 32-byte Ed25519 public key. */
export type WorkerKeys = ReadonlyMap<string, Uint8Array>;

/**
 * The accepted worker keys, by key id.
 *
 * @param publicKeys 32-byte Ed25519 public keys
 * @returns key id -> key
 * @throws {RangeError} when a key is listed twice or is not 32 bytes
 * @example
 * ```ts
 * import { workerKeys } from "./signed_item_result.ts";
 * if (workerKeys([new Uint8Array(32)]).size !== 1) throw new Error();
 * ```
 */
export function workerKeys(publicKeys: readonly Uint8Array[]): WorkerKeys {
  const keys = new Map<string, Uint8Array>();
  for (const k of publicKeys) {
    const id = keyId(k);
    if (keys.has(id)) throw new RangeError(`worker key ${id.slice(0, 16)} is listed twice`);
    keys.set(id, k);
  }
  return keys;
}

/**
 * Signs an item result with a worker key.
 *
 * @param result the result
 * @param key the worker's key
 * @returns the signed line, with its newline
 * @example
 * ```ts ignore
 * await partial.append(await signItemResult(result, workerKey));
 * ```
 */
export async function signItemResult(result: ItemResult, key: SigningKey): Promise<string> {
  const payload = new TextEncoder().encode(encodeItemResult(result).trimEnd());
  const env = await signEnvelope(payload, { payloadType: ITEM_RESULT_PAYLOAD_TYPE, keys: [key] });
  return new TextDecoder().decode(canonicalJson(env)) + "\n";
}

/**
 * Opens a signed result line: the envelope read strictly (canonical form, one signature, the
 * item-result payload type), the signer one of the accepted worker keys, the signature valid,
 * then the payload parsed as an item result (`parseItemResult`, which checks it against its own
 * status).
 *
 * @param line the line without its newline
 * @param options `where` (file and line, or stream and sequence, for messages) and the accepted
 *   `workers`
 * @returns the result and the key id of the worker that signed it
 * @throws {InputError} `RESULT_INVALID` (not a canonical signed result, a malformed payload, or a
 *   result that contradicts its own status), `RESULT_UNKNOWN_WORKER` (signed by a key not
 *   accepted), `RESULT_SIGNATURE` (the signature does not verify)
 * @example
 * ```ts ignore
 * const { result, worker } = await openItemResult(line, { where: "r.jsonl:1", workers });
 * ```
 */
export async function openItemResult(
  line: string,
  options: { where: string; workers: WorkerKeys },
): Promise<AttributedResult> {
  return itemResultOf(await verifyItemResultSignature(line, options), options.where);
}

/**
 * The second half of {@link openItemResult}: the signed payload of
 * {@link verifyItemResultSignature} parsed as an item result.
 *
 * @param signed the verified payload and the worker's key id
 * @param where name for messages
 * @returns the result and the key id of the worker that signed it
 * @throws {InputError} `RESULT_INVALID` (a malformed payload, or a result that contradicts its
 *   own status)
 * @example
 * ```ts ignore
 * const r = itemResultOf(await verifyItemResultSignature(line, o), o.where);
 * ```
 */
export function itemResultOf(
  signed: { readonly payload: Uint8Array; readonly keyid: string },
  where: string,
): AttributedResult {
  return { result: _payload(signed.payload, where), worker: signed.keyid };
}

/**
 * The first half of {@link openItemResult}: the envelope read strictly and its one signature
 * verified under an accepted worker key, the payload not yet parsed. A line that fails here is
 * no accepted worker's word (anyone could have sent it); one that passes and then fails to parse
 * is an accepted worker's malformed or self-contradicting result.
 *
 * @param line the line without its newline
 * @param options `where` and the accepted `workers`, as {@link openItemResult}
 * @returns the signed payload bytes and the key id of the worker that signed them
 * @throws {InputError} `RESULT_INVALID` (not a canonical signed envelope), `RESULT_UNKNOWN_WORKER`,
 *   `RESULT_SIGNATURE`
 * @example
 * ```ts ignore
 * const { keyid } = await verifyItemResultSignature(line, { where: "stream #4", workers });
 * ```
 */
export async function verifyItemResultSignature(
  line: string,
  options: { where: string; workers: WorkerKeys },
): Promise<{ payload: Uint8Array; keyid: string }> {
  const { env, payload, keyid } = _envelope(line, options.where);
  const publicKey = options.workers.get(keyid);
  if (publicKey === undefined) {
    throw new InputError(
      "RESULT_UNKNOWN_WORKER",
      `Cannot accept result '${options.where}': signed by worker key ${
        keyid.slice(0, 16)
      }, which is not one of the accepted worker keys`,
    );
  }
  const signature = decodeBase64(env.signatures[0]!.sig);
  if (!await verify(pae(env.payloadType, payload), { signature, publicKey })) {
    throw new InputError(
      "RESULT_SIGNATURE",
      `Cannot accept result '${options.where}': its signature by worker key ${
        keyid.slice(0, 16)
      } does not verify`,
    );
  }
  return { payload, keyid };
}

/**
 * Reads a signed result line without checking its signature, for informative uses only (cost
 * estimates): the envelope and the result are still read strictly.
 *
 * @param line the line without its newline
 * @param where name for messages
 * @returns the result and the key id the line names
 * @throws {InputError} `RESULT_INVALID`
 * @example
 * ```ts ignore
 * const { result } = readItemResultUnchecked(line, "pilot.jsonl:3");
 * ```
 */
export function readItemResultUnchecked(line: string, where: string): AttributedResult {
  const { payload, keyid } = _envelope(line, where);
  return { result: _payload(payload, where), worker: keyid };
}

function _envelope(
  line: string,
  where: string,
): { env: DsseEnvelope; payload: Uint8Array; keyid: string } {
  const bad = (why: string): never => {
    throw new InputError("RESULT_INVALID", `Cannot read result '${where}': ${why}`);
  };
  let env: DsseEnvelope;
  try {
    env = parseEnvelope(line, { maxBytes: MAX_SIGNED_RESULT_BYTES });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const bare = line.startsWith('{"assets":');
    return bad(bare ? "it is not signed by a worker (a bare item result)" : e.message);
  }
  if (env.payloadType !== ITEM_RESULT_PAYLOAD_TYPE) {
    bad(`payload type is not '${ITEM_RESULT_PAYLOAD_TYPE}'`);
  }
  if (env.signatures.length !== 1) bad("a result carries exactly one worker signature");
  const keyid = env.signatures[0]!.keyid;
  if (!/^[0-9a-f]{64}$/.test(keyid)) bad("its signature does not name a worker key id");
  const payload = decodeBase64(env.payload);
  if (encodeBase64(payload) !== env.payload) bad("its payload is not in standard base64");
  if (new TextDecoder().decode(canonicalJson(env)) !== line) {
    bad("not in canonical form (RFC 8785 JSON)");
  }
  return { env, payload, keyid };
}

function _payload(payload: Uint8Array, where: string): ItemResult {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(payload);
  } catch {
    throw new InputError("RESULT_INVALID", `Cannot read result '${where}': payload is not UTF-8`);
  }
  return parseItemResult(text, where);
}

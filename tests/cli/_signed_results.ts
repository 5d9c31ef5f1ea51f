/** Reading and forging worker-signed result lines in tests (what an attacker with a key can do). */
import { canonicalJson } from "../../src/claims/mod.ts";
import { decodeBase64, type SigningKey, signItemResult } from "../../src/attest/mod.ts";
import { loadSigningKey } from "../../src/cli/load_inputs.ts";
import type { ItemResult } from "../../src/verify/mod.ts";

const dec = new TextDecoder();

/**
 * The item result inside a signed line (signature not checked), as plain JSON.
 *
 * @param line a signed result line
 */
export function payloadOf(line: string): ItemResult & Record<string, unknown> {
  return JSON.parse(dec.decode(decodeBase64(JSON.parse(line).payload)));
}

/**
 * A signed line for `result` (any JSON: consistent or not), signed with the key file.
 *
 * @param result the item result to sign (not checked)
 * @param key a PKCS#8 PEM key file, or a loaded key
 */
export async function signedLine(result: unknown, key: string | SigningKey): Promise<string> {
  const k = typeof key === "string" ? await loadSigningKey(key) : key;
  // signItemResult encodes its argument canonically without checking it.
  return (await signItemResult(result as ItemResult, k)).trimEnd();
}

/**
 * The bare (unsigned) canonical item result of a signed line.
 *
 * @param line a signed result line
 */
export function bareLine(line: string): string {
  return dec.decode(canonicalJson(payloadOf(line)));
}

/**
 * Independent reference for the Merkle tests: RFC 6962 §2.1 written recursively, hashed with
 * WebCrypto rather than the code under test.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Independent SHA-256 over a concatenation, via WebCrypto (not the code under test). */
export async function h(...parts: Uint8Array[]): Promise<Uint8Array> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const buf = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    buf.set(p, o);
    o += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
}

/** MTH straight from RFC 6962 §2.1, recursive, with WebCrypto hashing. */
export async function referenceRoot(d: readonly Uint8Array[]): Promise<Uint8Array> {
  if (d.length === 0) return await h();
  if (d.length === 1) return await h(Uint8Array.of(0), d[0] as Uint8Array);
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return await h(
    Uint8Array.of(1),
    await referenceRoot(d.slice(0, k)),
    await referenceRoot(d.slice(k)),
  );
}

/** Deterministic distinct leaves: leaf i = SHA-256("leaf" || i). */
export function testLeaves(n: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => sha256(new TextEncoder().encode(`leaf ${i}`)));
}

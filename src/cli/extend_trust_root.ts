/**
 * Rotation and revocation for `key trust-root --extend`: an existing trust root carried over key
 * for key (windows, revocations, pinned drand chains and TSAs), with chosen keys' windows ended or
 * keys revoked, and new keys added. Nothing the existing root says is dropped: a key that signed
 * past audits stays listed, so those audits keep checking against the new root for the times its
 * window covers.
 *
 * @module
 */
import {
  parseRfc3339,
  parseTrustRoot,
  trustedDrandChains,
  trustedTsaAnchors,
} from "../attest/mod.ts";
import { InputError } from "../errors.ts";
import { parseStrictJson } from "../json_strict.ts";

/** A trust-root document as JSON (what `buildTrustRoot` returns). */
export interface TrustRootDocument {
  /** The media type. */
  mediaType: string;
  /** The keys' entries. */
  keys: Record<string, unknown>[];
  /** Pinned drand chains. */
  drand?: unknown;
  /** Pinned time-stamp authorities. */
  tsa?: unknown;
}

/** What to change in the existing root's keys, each keyed by a key id or a unique prefix. */
export interface TrustRootChanges {
  /** Keys whose validity ends at the time given (rotation). */
  readonly end: readonly (readonly [string, string])[];
  /** Keys revoked from the time given (compromise), with the reason. */
  readonly revoke: readonly (readonly [string, string])[];
  /** Why the `revoke` keys are revoked. */
  readonly reason?: string;
}

/**
 * Parses `KEYID=TIME` arguments of `--end` / `--revoke`.
 *
 * @param args the arguments
 * @param flag the flag, for messages
 * @returns the pairs, in order
 * @throws {InputError} `USAGE` when one is not a hex key id (8 to 64 digits), `=`, an RFC 3339 time
 * @example
 * ```ts
 * import { keyTimeArgs } from "./extend_trust_root.ts";
 * const [pair] = keyTimeArgs(["0c58544f=2026-12-01T00:00:00Z"], "--end");
 * if (pair?.[0] !== "0c58544f") throw new Error();
 * ```
 */
export function keyTimeArgs(
  args: readonly string[],
  flag: string,
): (readonly [string, string])[] {
  return args.map((a) => {
    const m = /^([0-9a-f]{8,64})=(.+)$/.exec(a);
    let ok = m !== null;
    if (ok) {
      try {
        parseRfc3339(m![2]!);
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      throw new InputError(
        "USAGE",
        `Cannot read ${flag} ${JSON.stringify(a.slice(0, 100))}: expected KEYID=TIME (a key id ` +
          "or its first 8+ lowercase hex digits, '=', an RFC 3339 time)",
      );
    }
    return [m![1]!, m![2]!] as const;
  });
}

/**
 * The existing trust root with the changes applied and the new document's keys, drand chains
 * and TSAs added (those already pinned are not repeated).
 *
 * @param existing the existing trust root's text (read strictly, as `check` reads it)
 * @param added the new keys and pins (`buildTrustRoot`'s document; may list no key)
 * @param changes windows to end and keys to revoke
 * @returns the combined document (validate it with `parseTrustRoot` before writing)
 * @throws {InputError} `BAD_TRUST_ROOT` when the existing root does not parse; `USAGE` when a key
 *   id matches no key or several, a key is revoked twice, `--revoke` has no reason, a key to add
 *   is already listed, or an end comes before the key's start or after its current end
 * @example
 * ```ts ignore
 * const doc = extendTrustRoot(text, buildTrustRoot([newKey], { start }), { end: [[oldId, start]], revoke: [] });
 * ```
 */
export function extendTrustRoot(
  existing: string,
  added: TrustRootDocument,
  changes: TrustRootChanges,
): TrustRootDocument {
  // Refused as `check` would refuse it, pins included (the raw document is copied below).
  const parsed = parseTrustRoot(existing);
  trustedDrandChains(parsed.drand);
  trustedTsaAnchors(parsed.tsa);
  const base = parseStrictJson(existing) as TrustRootDocument;
  const keys = base.keys.map((k) => structuredClone(k));
  const find = (prefix: string, flag: string) => {
    const hits = keys.filter((k) => String(k.keyid).startsWith(prefix));
    if (hits.length !== 1) {
      throw new InputError(
        "USAGE",
        `Cannot apply ${flag} ${prefix}: ${
          hits.length === 0 ? "no key" : `${hits.length} keys`
        } of the existing trust root ${hits.length === 0 ? "has" : "have"} that key id`,
      );
    }
    return hits[0]!;
  };
  for (const [prefix, time] of changes.end) {
    const key = find(prefix, "--end");
    if (key.role === "prover") {
      // A checkpoint's signing time is the prover's own word, so its key must be valid when it
      // is checked: an end would undo every audit of the key's checkpoints.
      throw new InputError(
        "USAGE",
        `Cannot end prover key ${prefix}: every audit of its checkpoints would stop checking ` +
          "(their signing time is the prover's word, so the key must still be valid); add the " +
          "new prover key and keep this one, or --revoke it if it is compromised",
      );
    }
    const validFor = key.validFor as { start: string; end?: string };
    if (parseRfc3339(time) < parseRfc3339(validFor.start)) {
      throw new InputError("USAGE", `Cannot end key ${prefix} at ${time}: before its start`);
    }
    if (validFor.end !== undefined && parseRfc3339(time) > parseRfc3339(validFor.end)) {
      throw new InputError(
        "USAGE",
        `Cannot end key ${prefix} at ${time}: its window already ends at ${validFor.end} (an end ` +
          "is only ever moved earlier)",
      );
    }
    key.validFor = { ...validFor, end: time };
  }
  if (changes.revoke.length > 0 && !(changes.reason ?? "").trim()) {
    throw new InputError("USAGE", "Cannot revoke without --revoke-reason (it is kept in the root)");
  }
  for (const [prefix, time] of changes.revoke) {
    const key = find(prefix, "--revoke");
    if (key.revoked !== undefined) {
      throw new InputError("USAGE", `Cannot revoke key ${prefix}: it is already revoked`);
    }
    key.revoked = { time, reason: changes.reason! };
  }
  // A prover key added without the origin the root already pins its prover keys to would vouch
  // for checkpoints of any origin, undoing the pin without a word.
  const pins = [
    ...new Set(
      keys.filter((x) => x.role === "prover" && typeof x.origin === "string").map((x) => x.origin),
    ),
  ];
  const unpinned = added.keys.find((k) => k.role === "prover" && k.origin === undefined);
  if (pins.length > 0 && unpinned !== undefined) {
    throw new InputError(
      "USAGE",
      `Cannot add prover key ${String(unpinned.keyid).slice(0, 16)}… without --prover-origin: ` +
        `the existing trust root pins its prover keys to ${
          pins.map((o) => JSON.stringify(o)).join(", ")
        }, and an unpinned key would vouch for checkpoints of any origin`,
    );
  }
  for (const k of added.keys) {
    if (keys.some((x) => x.keyid === k.keyid)) {
      throw new InputError(
        "USAGE",
        `Cannot add key ${String(k.keyid).slice(0, 16)}…: the existing trust root lists it ` +
          "(change its window with --end or --revoke)",
      );
    }
    keys.push(k);
  }
  const union = (a: unknown, b: unknown, id: (x: Record<string, unknown>) => unknown) => {
    const all = [
      ...(a as Record<string, unknown>[] ?? []),
      ...(b as Record<string, unknown>[] ?? []),
    ];
    const seen = new Set<unknown>();
    return all.filter((x) => !seen.has(id(x)) && seen.add(id(x)));
  };
  const drand = union(base.drand, added.drand, (c) => c.chainHash);
  const tsa = union(base.tsa, added.tsa, (t) => t.certificate);
  return {
    mediaType: base.mediaType,
    keys,
    ...(drand.length === 0 ? {} : { drand }),
    ...(tsa.length === 0 ? {} : { tsa }),
  };
}

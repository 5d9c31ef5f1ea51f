/**
 * Issue 25: `check`'s human output keeps the attestation's validity and the verdict apart, in
 * words and in colour, and escapes what the attestation says even when it paints.
 */
import assert from "node:assert/strict";
import type { CheckReport, VerdictPredicate } from "../../src/attest/mod.ts";
import { checkLines } from "../../src/cli/check_lines.ts";

const report: CheckReport = {
  valid: true,
  verdict: "FAILED",
  auditId: "a",
  signatures: [],
  checks: [{ check: "seed", ok: true, detail: "seed recomputed" }],
};
const predicate = (verdict: string, auditId = "audit-1") =>
  ({
    verdict,
    audit: { auditId },
    results: [{ status: "FAIL", finding: "fingerprint" }, { status: "PASS" }],
  }) as unknown as VerdictPredicate;
const base = { report, format: "dsse", token: null, hints: [] } as const;

Deno.test("checkLines() says VALID and the verdict on two lines, never 'VALID attestation: verdict FAILED'", () => {
  const lines = checkLines({ ...base, predicate: predicate("FAILED") });
  assert.deepEqual(lines.slice(1), [
    "VALID attestation: signed by a key of your trust root, every check passed (audit audit-1)",
    "Verdict FAILED: 1 of the 2 sampled records did not match what the prover claimed when recomputed; the claim log contains false claims.",
  ]);
});

Deno.test("checkLines() paints validity green and each verdict its own colour", () => {
  const tone = (verdict: string) => {
    const lines = checkLines({ ...base, predicate: predicate(verdict) }, { color: true });
    return [lines[1]!.slice(0, 5), lines[2]!.slice(0, 5)];
  };
  assert.deepEqual(tone("FAILED"), ["\u001b[32m", "\u001b[31m"]);
  assert.deepEqual(tone("PASSED"), ["\u001b[32m", "\u001b[32m"]);
  assert.deepEqual(tone("INCONCLUSIVE"), ["\u001b[32m", "\u001b[33m"]);
  const invalid = checkLines({ ...base, report: { ...report, valid: false }, predicate: null }, {
    color: true,
  });
  assert.equal(invalid.at(-1), "\u001b[31mINVALID attestation\u001b[0m");
});

Deno.test("checkLines() escapes an audit id's bidi override and escapes, coloured or not", () => {
  const id = "x\u202eDESSAP\u001b[2J";
  for (const color of [false, true]) {
    const line = checkLines({ ...base, predicate: predicate("FAILED", id) }, { color })[1]!;
    assert.ok(line.includes("x\\u{202e}DESSAP\\u{1b}[2J"), line);
    assert.ok(!line.includes("\u202e"));
    // deno-lint-ignore no-control-regex
    assert.equal(line.replace(/\u001b\[\d+m/g, "").includes("\u001b"), false);
  }
});

Deno.test("checkLines() says 'announced in advance' only of a timestamped announcement", () => {
  const summary = (announcement: "timestamped" | "pre-committed" | "none") =>
    checkLines({
      ...base,
      report: {
        ...report,
        trust: { randomness: "drand", commitment: "prover-signed", announcement },
      },
      predicate: predicate("FAILED"),
    }).at(-1)!;
  assert.match(summary("timestamped"), /; sample announced in advance \(RFC 3161 timestamp/);
  assert.match(
    summary("pre-committed"),
    /; sample announced at the inspector's stated time only \(no timestamp: the order is the inspector's word\)$/,
  );
  assert.doesNotMatch(summary("pre-committed"), /in advance/);
  assert.match(summary("none"), /; sample not pre-committed$/);
});

Deno.test("checkLines() says which token a bundle's check read: its own, or the one given with --timestamp (review h148)", () => {
  const first = (token: "given" | "bundle" | null) =>
    checkLines({ ...base, format: "sigstore-bundle", token, predicate: predicate("FAILED") })[0];
  assert.equal(
    first("bundle"),
    "read a Sigstore bundle v0.3; its RFC 3161 timestamp is checked (DSSE envelope inside)",
  );
  assert.equal(
    first("given"),
    "read a Sigstore bundle v0.3; the RFC 3161 token given with --timestamp is checked, not one " +
      "the bundle carries (DSSE envelope inside)",
  );
  assert.equal(first(null), "read a Sigstore bundle v0.3 (DSSE envelope inside)");
});

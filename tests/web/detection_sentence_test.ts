/**
 * The detection sentence of the checker page and the reports (review h123): it names F of N, the
 * signed level rounded up to whole records, and counts only the sampled records that were
 * verified (a NOT_VERIFIED record catches nothing).
 */
import assert from "node:assert/strict";
import { type DetectionStatement, detectionStatement } from "../../src/verify/mod.ts";
import { detectionSentence, VERIFIED_ASSUMPTION, verifiedDetection } from "../../src/web/mod.ts";

/** The sentence for a statement and the sampled records' statuses, as the reports build it. */
const sentence = (d: DetectionStatement, ...s: string[]) =>
  detectionSentence(d, verifiedDetection(d, s.map((status) => ({ status }))));

Deno.test("detectionSentence() names F of N where the 1 % level rounds up to a whole record", () => {
  // N = 6, k = 4: 1 % of 6 records is F = 1 (16.7 %), caught by 4 of 6 with probability 2/3,
  // written rounded down (never above the truth).
  const s = sentence(detectionStatement(6, { k: 4 }), "PASS", "PASS", "FAIL", "PASS");
  assert.equal(
    s,
    "If 1 of the 6 records were false (1 %, rounded up to whole records), a sample of 4 catches at least one with probability 0.666666.",
  );
  // 1 % of 300 is exactly 3 records: no rounding said.
  const exact = sentence(detectionStatement(300, { k: 2 }), "PASS", "PASS");
  assert.match(exact!, /^If 3 of the 300 records were false \(1 %\), a sample of 2 catches/);
});

Deno.test("detectionSentence() counts only the verified records when some were NOT_VERIFIED", () => {
  const d = detectionStatement(6, { k: 4 });
  const s = sentence(d, "PASS", "NOT_VERIFIED", "PASS", "PASS")!;
  // 3 verified of 6 with F = 1: 1/2, not the signed 2/3 of all 4. 1/2 computed in doubles may
  // be just below or above it; the text is never above the truth, so 0.499999.
  assert.match(s, /^1 of the 4 sampled records was NOT_VERIFIED and could catch nothing/);
  assert.match(s, /the signed figure, 0\.666666, counts all 4/);
  assert.match(s, /the 3 verified records catch at least one with probability 0\.499999/);
  assert.doesNotMatch(s, /a sample of 4 catches/);
  // A sample of all 6 signs 1.000000 (certain); with one record not verified it is 5/6.
  const all = sentence(
    detectionStatement(6, { k: 6 }),
    ...Array(5).fill("PASS"),
    "NOT_VERIFIED",
  )!;
  assert.match(all, /the 5 verified records catch at least one with probability 0\.833333/);
  const none = sentence(d, ...Array(4).fill("NOT_VERIFIED"))!;
  assert.match(
    none,
    /^4 of the 4 sampled records were NOT_VERIFIED .*could catch no false record\.$/,
  );
});

Deno.test("detectionSentence() leaves what the verified figures assume to the caller that says it beside the sentence", () => {
  // report.md and report.html say it in the note right above the sentence: once is enough.
  const d = detectionStatement(6, { k: 4 });
  const v = verifiedDetection(
    d,
    ["PASS", "NOT_VERIFIED", "PASS", "PASS"].map((status) => ({ status })),
  );
  assert.ok(detectionSentence(d, v)!.endsWith(`0.499999, assuming ${VERIFIED_ASSUMPTION}.`));
  const said = detectionSentence(d, v, { assumptionSaid: true })!;
  assert.ok(
    said.endsWith("the 3 verified records catch at least one with probability 0.499999."),
    said,
  );
  assert.equal(detectionSentence(d, v, { assumptionSaid: false }), detectionSentence(d, v));
});

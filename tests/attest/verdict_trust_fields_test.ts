/** The verdict predicate's trust inputs (drand round, checkpoint, announcement) through JSON. */
import assert from "node:assert/strict";
import {
  buildVerdictPredicate,
  drandBinding,
  InputError,
  parseDrandChainInfo,
  parseDrandRound,
  parseVerdictPredicate,
  type VerdictPredicateCode,
} from "../../mod.ts";
import { verdictReport } from "./_verdict_report.ts";

const dir = new URL("../../demo/drand/", import.meta.url);
const info = parseDrandChainInfo(Deno.readTextFileSync(new URL("quicknet-info.json", dir)));
const round = parseDrandRound(Deno.readTextFileSync(new URL("quicknet-round-123.json", dir)));
const built = buildVerdictPredicate(verdictReport(), {
  verifier: { version: "0.1.0", engine: "wasm", runtime: "deno 2.9.6" },
  assets: { "tables/manifest.json": "66".repeat(32) },
  timeVerified: "2026-03-01T12:00:00Z",
  drand: drandBinding(info, round),
  checkpoint: {
    note: "o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n\u2014 o AAAAAQA=\n",
    origin: "o",
    treeSize: 0,
    rootHash: "e3".repeat(32),
    signedAt: "2023-08-23T15:00:00Z",
    proverKeyId: "aa".repeat(32),
  },
  announcement: { payloadType: "application/vnd.in-toto+json", payload: "e30=", signatures: [] },
});
const json = () => JSON.parse(JSON.stringify(built));
const code = (c: VerdictPredicateCode) => (e: unknown) => e instanceof InputError && e.code === c;

Deno.test("parseVerdictPredicate() returns the drand round, checkpoint and announcement it was built with", () => {
  const back = parseVerdictPredicate(json());
  assert.deepEqual(back, built);
  assert.equal(back.audit.beacon.source, "drand");
  assert.equal(back.audit.beacon.drand?.roundTime, "2023-08-23T15:15:33Z");
});

Deno.test("parseVerdictPredicate() refuses unknown, missing and out-of-set trust fields", () => {
  const p = json();
  p.audit.beacon.drand.extra = 1;
  assert.throws(() => parseVerdictPredicate(p), code("VERDICT_FIELD_UNKNOWN"));
  const q = json();
  q.audit.beacon.source = "trusted";
  assert.throws(() => parseVerdictPredicate(q), code("VERDICT_FIELD_VALUE"));
  const r = json();
  delete r.audit.checkpoint.note;
  assert.throws(() => parseVerdictPredicate(r), code("VERDICT_FIELD_MISSING"));
  const s = json();
  s.audit.announcement.envelope.signatures = [{ keyid: "k" }];
  assert.throws(() => parseVerdictPredicate(s), code("VERDICT_FIELD_MISSING"));
  const t = json();
  delete t.audit.beacon.source;
  assert.throws(() => parseVerdictPredicate(t), code("VERDICT_FIELD_MISSING"));
});

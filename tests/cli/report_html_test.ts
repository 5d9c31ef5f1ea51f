import assert from "node:assert/strict";
import { detectionStatement, resultsByKind } from "../../mod.ts";
import { escapeHtml } from "../../src/cli/escape_html.ts";
import { reportHtml } from "../../src/cli/report_html.ts";
import { reportMarkdown } from "../../src/cli/report_markdown.ts";
import { VERIFIED_ASSUMPTION } from "../../src/web/mod.ts";
import { verdictReport } from "../attest/_verdict_report.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const INJECT = '<script>alert(1)</script><img src=x onerror="alert(2)">\u001b[32mPASSED\u202e';

const meta = {
  keyids: ["ab".repeat(32)],
  timeVerified: "2026-03-01T12:00:00Z",
  engine: "reference",
  meaning: "Verdict FAILED: 1 of the 2 sampled records did not match.",
  assets: { "tables/manifest.json": "66".repeat(32), [`x${INJECT}`]: "77".repeat(32) },
};

Deno.test("escapeHtml() leaves no markup, control or bidi character active", () => {
  const s = escapeHtml(INJECT + "&'");
  for (const c of ["<", ">", '"', "'", "\u001b", "\u202e"]) assert.ok(!s.includes(c), c);
  assert.match(s, /&lt;script&gt;.*\\u\{1b\}\[32mPASSED\\u\{202e\}&amp;&#39;$/);
});

Deno.test("reportHtml() escapes the audit id, log id, reasons and asset names", async () => {
  const base = verdictReport();
  const report = {
    ...base,
    auditId: INJECT,
    logId: INJECT,
    results: base.results.map((r) => ({ ...r, reason: r.reason && INJECT })),
  };
  const html = await reportHtml(report, { ...meta, kinds: resultsByKind(report.results, null) });
  for (const bad of ["<script", "<img", 'onerror="', "\u001b", "\u202e"]) {
    assert.ok(!html.includes(bad), bad);
  }
  assert.ok(html.includes(escapeHtml(INJECT)));
});

Deno.test("reportHtml() draws three charts, marks k, lists each failure's first difference", async () => {
  const report = verdictReport({ population: 12, k: 12 });
  const kinds = resultsByKind(report.results, null);
  const html = await reportHtml(report, { ...meta, assets: { "a.json": "66".repeat(32) }, kinds });
  assert.equal(html.match(/<svg[ >]/g)?.length, 3);
  assert.match(html, /this audit: k = 12/);
  assert.match(html, />k = 12</); // the rule's label inside the SVG
  assert.match(html, /12 of 12 records sampled/);
  const fails = report.results.filter((r) => r.status === "FAIL");
  assert.ok(fails.length > 0);
  for (const r of fails) {
    assert.match(html, new RegExp(`first differing element ${r.firstDifference!.index}</strong>`));
  }
  // Self-contained: no script, no fetched resource.
  assert.doesNotMatch(html, /<script|<link|\ssrc=|url\((?!#)|@import/);
});

Deno.test("audit writes report.html beside report.md; the attestation does not refer to it", async () => {
  const f = await makeAuditFixture({
    records: 10,
    falsify: [{ seq: 3, kind: "fingerprint", bit: 5 }],
  });
  const out = `${f.dir}/out`;
  const r = await runBitaudit(auditArgs(f, out, 10));
  assert.equal(r.code, 1, r.stderr);
  const html = await Deno.readTextFile(`${out}/report.html`);
  assert.match(html, /<h1>bitaudit audit report: FAILED<\/h1>/);
  assert.match(html, /<td>gemm<\/td><td>9<\/td><td>1<\/td><td>0<\/td>/);
  const att = await Deno.readTextFile(`${out}/attestation.dsse.json`);
  assert.doesNotMatch(atob(JSON.parse(att).payload), /report\.(html|md)/);
  const again = await runBitaudit(auditArgs(f, out, 10));
  assert.equal(again.code, 2);
  assert.equal(await Deno.readTextFile(`${out}/report.html`), html);
});

Deno.test("reportHtml() draws the layer stack of a FAIL with a first diverging layer (issue 17)", async () => {
  const base = verdictReport({ population: 12, k: 12 });
  const firstDivergence = { layer: 7, stage: "mlp" as const, layers: 36 };
  const report = {
    ...base,
    results: base.results.map((r) => r.status === "FAIL" ? { ...r, firstDivergence } : r),
  };
  const kinds = resultsByKind(report.results, null);
  const html = await reportHtml(report, { ...meta, assets: {}, kinds });
  assert.equal(html.match(/<svg[ >]/g)?.length, 4);
  assert.equal(html.match(/<figure class="layers"><svg role="img" /g)?.length, 1);
  assert.match(html, /first diverging stage of the layer chain: layer 7, mlp/);
  assert.match(
    html,
    /<figcaption>Layer 7&#39;s MLP output is the first that differs; layers 0-6 and layer 7&#39;s attention match bit for bit\. The 56 stages after it/,
  );
  assert.doesNotMatch(html, /<script|<link|\ssrc=|url\((?!#)|@import/);
});

Deno.test("audit of a model-forward weight flip: report.html shows the layer stack, the signed bytes do not name it (issue 17)", async () => {
  const f = await makeAuditFixture({
    records: 1,
    forward: 2,
    falsify: [{
      seq: 1,
      kind: "weight_flip",
      tensor: "model.layers.0.mlp.down_proj.weight",
      index: 0,
      bit: 14,
    }],
  });
  const out = `${f.dir}/out`;
  const r = await runBitaudit(auditArgs(f, out, 3));
  assert.equal(r.code, 1, r.stderr);
  const html = await Deno.readTextFile(`${out}/report.html`);
  const said =
    "Layer 0&#39;s MLP output is the first that differs; layer 0&#39;s attention matches bit for bit. The 2 stages after it, through layer 1&#39;s MLP, are downstream and were not compared.";
  assert.ok(html.includes(`<desc>${said}</desc>`));
  assert.ok(html.includes(`<figcaption>${said}</figcaption>`));
  assert.match(html, /<title>Layer stack \(2 layers\): first difference at layer 0, MLP<\/title>/);
  assert.match(html, /<td>model_forward<\/td><td>1<\/td><td>1<\/td><td>0<\/td>/);
  const md = await Deno.readTextFile(`${out}/report.md`);
  assert.match(md, /layer 0, mlp\. Layer 0's MLP output is the first that differs/);
  const payload = atob(JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`)).payload);
  assert.doesNotMatch(payload, /firstDivergence|"layers"/);
  assert.match(payload, /first diverging stage: layer 0 mlp/); // the signed reason, as before
});

Deno.test("report.md and report.html say what the sample could catch in records, counting only verified ones", async () => {
  // Review h123: the 1 % level of 8 records is F = 1; one of the 8 sampled is NOT_VERIFIED, so
  // the 7 verified catch it with probability 7/8, not the signed 1.000000 of all 8 (written
  // rounded down after the error bound, never above the truth: 0.874999).
  const report = verdictReport();
  const kinds = resultsByKind(report.results, null);
  const want =
    "if 1 of the 8 records were false (1 %, rounded up to whole records), the 7 verified records catch at least one with probability 0.874999";
  const html = await reportHtml(report, { ...meta, kinds });
  assert.ok(html.includes(want), html);
  const md = reportMarkdown(report, meta);
  assert.ok(md.includes(want), md);
  assert.match(md, /^1 of the 8 sampled records was NOT_VERIFIED and could catch nothing/m);
});

Deno.test("report.html counts only the recomputed records as recomputed in the sample's caption", async () => {
  // Review h123: "8 of the 8 records were sampled and recomputed" where one was NOT_VERIFIED
  // before any recomputation (recomputed: null).
  const report = verdictReport();
  assert.equal(report.results.filter((r) => r.recomputed === null).length, 1);
  const html = await reportHtml(report, { ...meta, kinds: resultsByKind(report.results, null) });
  assert.ok(html.includes("8 of the 8 records were sampled; 7 of them were recomputed."), html);
  assert.doesNotMatch(html, /sampled and recomputed/);
  const all = { ...report, results: report.results.filter((r) => r.recomputed !== null) };
  const k = all.results.length;
  const caption = await reportHtml({ ...all, selected: all.results.map((r) => r.index) }, {
    ...meta,
    kinds: resultsByKind(all.results, null),
  });
  assert.ok(caption.includes(`${k} of the 8 records were sampled and recomputed.`));
});

Deno.test("report.md and report.html label the signed detection figures as counting all k sampled, beside what the verified records catch (review h181)", async () => {
  // The table under "P(catch >= 1)" and the chart's "this audit's k" read as the detection
  // achieved, though one of the 8 sampled records was NOT_VERIFIED and could catch nothing.
  const report = verdictReport();
  const kinds = resultsByKind(report.results, null);
  const md = reportMarkdown(report, meta);
  assert.ok(
    md.includes(
      "| false records | F | signed, counting all 8 sampled: binomial | hypergeometric | by the 7 verified: hypergeometric |\n|---|---|---|---|---|\n",
    ),
    md,
  );
  assert.ok(md.includes("| 0.01 | 1 | 0.077255 | 1.000000 | 0.874999 |"), md);
  assert.doesNotMatch(md, /P\(catch >= 1\), binomial/);
  const html = await reportHtml(report, { ...meta, kinds });
  assert.ok(html.includes('<th scope="col">by the 7 verified: hypergeometric</th>'), html);
  assert.ok(
    html.includes("<td>0.01</td><td>1</td><td>0.077255</td><td>1.000000</td><td>0.874999</td>"),
  );
  assert.ok(
    html.includes(
      "<caption>Detection statement (signed, counting all 8 sampled) and what the 7 verified catch</caption>",
    ),
  );
  assert.match(html, /this audit: k = 8 sampled, 7 verified/);
  assert.match(html, />7 verified</); // the second rule's label inside the SVG
  assert.match(
    html,
    /The dotted line marks this audit&#39;s k = 8 sampled records; the grey line the 7 of them verified/,
  );
  // All verified: one pair of figures, said to be the sample's, all of it verified.
  const all = { ...report, results: report.results.filter((r) => r.status !== "NOT_VERIFIED") };
  const full = {
    ...all,
    selected: all.results.map((r) => r.index),
    detection: detectionStatement(8, { k: 7 }),
  };
  const fullMd = reportMarkdown(full, meta);
  assert.ok(
    fullMd.includes(
      "| false records | F | P(catch >= 1) by the 7 sampled, all verified: binomial | hypergeometric |\n|---|---|---|---|\n",
    ),
    fullMd,
  );
  const fullHtml = await reportHtml(full, { ...meta, kinds: resultsByKind(full.results, null) });
  assert.match(fullHtml, /this audit: k = 7\)/);
  assert.doesNotMatch(fullHtml, /verified: hypergeometric|grey line/);
});

Deno.test("report.md and report.html say once, under the detection table, what the verified records' figures assume (review h184)", async () => {
  // The table's column "by the 7 verified" gave each level's figure without the assumption the
  // detection sentence states; said once under the table, in the sentence's words.
  const report = verdictReport();
  const note =
    "The figures by the 7 verified records assume a false record is as likely as any other to be one this verifier can check.";
  const md = reportMarkdown(report, meta);
  assert.ok(md.includes(`| 0.01 | 1 | 0.077255 | 1.000000 | 0.874999 |\n`), md);
  assert.equal(md.split(note).length, 2, md);
  assert.ok(md.indexOf(note) > md.indexOf("by the 7 verified: hypergeometric"), md);
  const html = await reportHtml(report, { ...meta, kinds: resultsByKind(report.results, null) });
  assert.equal(html.split(`<p>${note}</p>`).length, 2, html);
  // All verified: the signed figures are the sample's, and nothing is assumed of the others.
  const all = { ...report, results: report.results.filter((r) => r.status !== "NOT_VERIFIED") };
  const full = {
    ...all,
    selected: all.results.map((r) => r.index),
    detection: detectionStatement(8, { k: 7 }),
  };
  assert.doesNotMatch(reportMarkdown(full, meta), /verified records assume/);
  const fullHtml = await reportHtml(full, { ...meta, kinds: resultsByKind(full.results, null) });
  assert.doesNotMatch(fullHtml, /verified records assume/);
});

Deno.test("report.md and report.html state the verified figures' assumption once: the detection sentence right under the table's note does not repeat it", async () => {
  // The note said it, and the sentence below it ended "..., assuming" the same words.
  const report = verdictReport();
  const md = reportMarkdown(report, meta);
  assert.equal(md.split(VERIFIED_ASSUMPTION).length, 2, md);
  assert.match(md, /the 7 verified records catch at least one with probability 0\.874999\.\n/);
  const html = await reportHtml(report, { ...meta, kinds: resultsByKind(report.results, null) });
  assert.equal(html.split(VERIFIED_ASSUMPTION).length, 2, html);
  assert.match(html, /the 7 verified records catch at least one with probability 0\.874999\.<\/p>/);
});

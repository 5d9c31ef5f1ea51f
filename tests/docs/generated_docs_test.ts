/**
 * The generated reference pages (`docs/cli.md`, `docs/errors.md`, `docs/support-matrix.md`) are
 * what their generators print today: a command, an error code or an asset changed without
 * regenerating them fails here.
 */
import assert from "node:assert/strict";
import { REGENERATE, renderGeneratedDocs } from "../../tools/docs/gen_all.ts";
import { buildCliProgram } from "../../tools/docs/gen_cli.ts";
import { renderErrorsDoc } from "../../tools/docs/gen_errors.ts";
import { datapathEvidence, EVIDENCE } from "../../tools/docs/gen_support_matrix.ts";
import { markdownTable, wrapProse } from "../../tools/docs/_markdown.ts";
import { PEER_COMPARISON } from "../../src/verify/mod.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("renderGeneratedDocs() matches the checked-in docs/cli.md, errors.md and support-matrix.md", async () => {
  const stale: string[] = [];
  for (const [path, text] of await renderGeneratedDocs()) {
    const now = await Deno.readTextFile(new URL(path, ROOT)).catch(() => "(missing)");
    if (now !== text) stale.push(path);
  }
  assert.deepEqual(
    stale,
    [],
    `stale generated pages: ${stale.join(", ")}; regenerate with ${REGENERATE}`,
  );
});

Deno.test("buildCliProgram() has every command main.ts adds, each with its help", async () => {
  const program = await buildCliProgram();
  const names = program.commands.map((c) => c.name());
  for (const name of ["audit", "check", "announce", "claims", "key", "demo"]) {
    assert.ok(names.includes(name), `missing '${name}' in ${names.join(", ")}`);
  }
  const audit = program.commands.find((c) => c.name() === "audit")!;
  assert.ok(audit.commands.some((c) => c.name() === "plan"), "audit plan is listed");
  assert.match(audit.helpInformation(), /^Usage: bitaudit audit /);
});

Deno.test("renderErrorsDoc() lists every code with its exit code", async () => {
  const { text } = await renderErrorsDoc();
  for (const code of ["PROFILE_UNKNOWN", "LOG_EMPTY", "USAGE_POLICY", "PERMISSION"]) {
    assert.match(text, new RegExp(`\\| \`${code}\` +\\| 2 \\(\`USAGE\`\\)`), code);
  }
  for (const code of ["ASSET_DIGEST_MISMATCH", "MANIFEST_MISSING"]) {
    assert.match(text, new RegExp(`\\| \`${code}\` +\\| 5 \\(\`ASSET\`\\)`), code);
  }
  assert.match(text, /\| `VERDICT_ASSETS` +\| 6 \(`OTHER_ASSETS`\)/);
});

Deno.test("datapathEvidence() reads the three kinds of a profile's validation text", () => {
  assert.deepEqual(datapathEvidence("measured: tests/vectors/x (5000 cases)"), {
    level: EVIDENCE.measured,
  });
  assert.deepEqual(
    datapathEvidence(
      "published model; the same architecture's datapath is checked against measured vectors on L40S",
    ),
    { level: EVIDENCE.peer, peer: "L40S" },
  );
  assert.deepEqual(datapathEvidence("published model only: no measured vectors bundled"), {
    level: EVIDENCE.source,
  });
});

Deno.test("the support matrix names the measured datapaths whose captures add C = 0 (their accumulator's place is not measured)", async () => {
  const text = (await renderGeneratedDocs()).get("docs/support-matrix.md")!;
  const prose = text.replace(/\s+/g, " ");
  assert.match(
    prose,
    /The captures behind `h100-sxm wgmma-e4m3-fp32`, `h100-sxm wgmma-e5m2-fp32` \(and the datapaths checked against them on other GPUs\) add C = 0 .* not where the accumulator joins the sum/,
  );
});

Deno.test("the support matrix states the peer comparison's scope from the constants the evidence labels apply (PEER_COMPARISON)", async () => {
  // Review h107 F3: it stated the qwen3 layer's peer scope without the hidden size, theta and SFU
  // conditions the code applied.
  const text = (await renderGeneratedDocs()).get("docs/support-matrix.md")!;
  const prose = text.replace(/\s+/g, " ");
  const p = PEER_COMPARISON;
  for (
    const phrase of [
      "every family's layer, `qwen3` included, is derived from source only",
      `one whole ${p.compared.layers}-layer ${p.compared.model} forward (hidden size ` +
      `${p.compared.hidden}) on the \`${p.profile}\` profile`,
      `validated on that GPU with ${p.validated.model} (hidden size ${p.validated.hidden})`,
      `the comparison's outputs are not bundled, so no test re-checks it`,
      `head dimension ${p.headDim}, RoPE theta ${p.ropeTheta} without scaling`,
      `in passes of ${p.minRows} to ${p.maxRows} rows, on one GPU`,
      `the \`${p.attention}\` backend's standard kernel at head dimension ${p.headDim}`,
      `passes of at most ${p.maxRows} rows, is checked against a GPU-validated peer`,
    ]
  ) assert.ok(prose.includes(phrase), phrase);
});

Deno.test("the support matrix says no capture fixes a datapath's alignFloor", async () => {
  const text = (await renderGeneratedDocs()).get("docs/support-matrix.md")!;
  assert.match(
    text.replace(/\s+/g, " "),
    /No capture fixes a datapath's `alignFloor` .* so on measured datapaths too it is the MATLAB model's/,
  );
});

Deno.test("markdownTable() and wrapProse() lay text out as deno fmt does", () => {
  assert.equal(
    markdownTable(["a", "b|c"], [["x", "y"]]),
    "| a   | b\\|c |\n| --- | ---- |\n| x   | y    |",
  );
  assert.equal(
    wrapProse("one `two three` [four five](x.md) six", 12),
    "one\n`two three`\n[four five](x.md)\nsix",
  );
});

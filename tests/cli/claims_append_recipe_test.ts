/**
 * `claims append --recipe <file.json>` writes the file's descriptor, name and all, into the signed
 * record, and an audit recomputes its body: a body named after a bundled recipe it is not (the
 * bundled K-walk renamed `cublas-serial-split-k2`) was appended and audited PASS. It is now
 * refused at append (exit 2, `RECIPE_INVALID`), as by `gemm` and `model classes`; the bundled body
 * under its own name, and a body under a name no bundled recipe has, append and audit PASS, with
 * the layer chain `model forward --recipe <bundled name>` wrote (whose recipe carries no schema tag).
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runBitaudit, withOverrides } from "./_run.ts";
import { appendTempDir, assertAudit, assertRefusals } from "./_append_fixture.ts";
import { assertCliCode } from "../_assert_code.ts";
import { encodeSafetensors } from "../../src/model/safetensors/encode_safetensors.ts";

const STACK = "cutlass-3.5-hf-flash-attn";
const CHECKPOINT = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
const KWALK = JSON.parse(
  await Deno.readTextFile(`${REPO_ROOT}/profiles/recipes/cutlass-kwalk-128x128x64.json`),
);
/** The bundled K-walk's body renamed after the bundled serial split-K. */
const MISNAMED = { ...KWALK, name: "cublas-serial-split-k2" };

const dir = await appendTempDir();
await Deno.writeTextFile(
  `${dir}/tokens.json`,
  JSON.stringify({ sequences: [[1, 2, 3], [4], [7, 8, 9, 10, 11, 12, 13]], padTokenId: 0 }),
);
for (
  const [file, json] of Object.entries({
    misnamed: MISNAMED,
    own: KWALK,
    mine: { ...KWALK, name: "my-kwalk" },
  })
) {
  await Deno.writeTextFile(`${dir}/${file}.json`, JSON.stringify(json));
}

function append(fingerprint: string, extra: string[]) {
  return runBitaudit(withOverrides([
    ...["claims", "append", "model_forward", "--log", `${dir}/log/claims.jsonl`],
    ...["--log-id", "recipe-name", "--checkpoint", CHECKPOINT, "--tokens", `${dir}/tokens.json`],
    ...["--stack", STACK, "--profile", "a100", "--fingerprint", fingerprint, "--json"],
  ], extra));
}

Deno.test("claims append refuses a recipe file named after a bundled recipe it is not; the bundled body under its own name or another name appends and audits PASS", async () => {
  const fwd = await runBitaudit([
    ...["model", "forward", "--checkpoint", CHECKPOINT, "--tokens", `${dir}/tokens.json`],
    ...["--profile", "a100", "--stack", STACK, "--recipe", "cutlass-kwalk-128x128x64"],
    ...["--threads", "1", "--out", `${dir}/forward.safetensors`, "--json"],
  ]);
  assert.equal(fwd.code, 0, fwd.stderr);
  const fp = JSON.parse(fwd.stdout).fingerprint as string;
  await Deno.writeTextFile(`${dir}/forward.json`, fwd.stdout);
  const first = await append(fp, [
    ...["--recipe", "cutlass-kwalk-128x128x64", "--layer-chain", `${dir}/forward.json`],
  ]);
  assert.equal(first.code, 0, first.stderr);
  // The chain's facts hold the recipe as `model forward` wrote it (no schema tag, its name last):
  // the same body from a file, under its own name or another, is the same kernel.
  const chained = ["--layer-chain", `${dir}/forward.json`];
  const run = (extra: string[]) => append(fp, [...extra, ...chained]);
  const misnamed = ["--recipe", `${dir}/misnamed.json`];
  await assertRefusals(dir, { cases: [[misnamed, "RECIPE_INVALID"]], run });
  const refused = await run(misnamed);
  assert.match(
    refused.stderr,
    /misnamed\.json: it is named 'cublas-serial-split-k2', the bundled recipe \{"family":"serial_split_k","splitK":2,"tileK":64\}, but describes \{"family":"kwalk",/,
  );
  for (const file of ["own", "mine"]) {
    const r = await run(["--recipe", `${dir}/${file}.json`]);
    assert.equal(r.code, 0, `${file}: ${r.stderr}`);
  }
  await assertAudit(dir, { out: "audit", statuses: ["PASS", "PASS", "PASS"] });
});

Deno.test("gemm and model classes refuse a recipe file named after a bundled recipe it is not", async () => {
  const data = new Uint16Array(8 * 16).fill(0x3f80);
  await Deno.writeFile(
    `${dir}/ab.safetensors`,
    encodeSafetensors([
      { name: "a", dtype: "BF16", shape: [8, 16], data },
      { name: "b", dtype: "BF16", shape: [8, 16], data },
    ]),
  );
  const gemm = await runBitaudit([
    ...["gemm", "--profile", "a100", "--recipe", `${dir}/misnamed.json`, "--threads", "1"],
    ...["--in", `${dir}/ab.safetensors`, "--out", `${dir}/gemm.safetensors`],
  ]);
  assert.equal(gemm.code, 2, gemm.stderr);
  assertCliCode(gemm.stderr, "RECIPE_INVALID");
  await assert.rejects(() => Deno.stat(`${dir}/gemm.safetensors`), "nothing written");
  const classes = await runBitaudit([
    ...["model", "classes", "--stack", STACK, "--profile", "a100"],
    ...["--recipe", `${dir}/misnamed.json`, "--config", `${CHECKPOINT}/config.json`],
    ...["--context", "16", "--max-batch", "2", "--json"],
  ]);
  assert.equal(classes.code, 2, classes.stderr);
  assertCliCode(classes.stderr, "RECIPE_INVALID");
  assert.match(classes.stderr, /it is named 'cublas-serial-split-k2'/);
});

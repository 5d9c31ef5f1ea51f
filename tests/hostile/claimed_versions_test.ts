/**
 * Red-team finding: the library versions a record states (`software.components`) were never
 * read, so a record naming a stack that pins PyTorch 2.8.0 and stating PyTorch 2.4.0 (whose
 * reduction trees differ) PASSed. A stated version the stack excludes now FAILs as a contradiction
 * of the stack; one with no release number to compare makes a match NOT_VERIFIED, and never hides
 * a FAIL.
 */
import assert from "node:assert/strict";
import {
  type ClaimPredicate,
  formatClaimLog,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { forwardScenario, proverRun, verifyAlone } from "./_recompute_fixture.ts";

const out = await proverRun(forwardScenario([], 1));
const honest = out.records.find((r) => r.predicate.workload.kind === "model_forward")!.predicate;

const withComponents = (
  p: ClaimPredicate,
  components: Record<string, string>,
): ClaimPredicate => ({
  ...p,
  software: { ...p.software, components: { ...p.software.components, ...components } },
});

Deno.test("a record stating library versions its stack excludes FAILs; the stack's own pass", async () => {
  assert.equal((await verifyAlone(honest, out.blobs)).status, "PASS");
  const agreeing = withComponents(honest, { torch: "2.8.0+cu128", transformers: "4.57.1" });
  assert.equal((await verifyAlone(agreeing, out.blobs)).status, "PASS");
  for (const [key, value] of [["pytorch", "2.4.0"], ["flash_attn", "2.5.6"]] as const) {
    const r = await verifyAlone(withComponents(honest, { [key]: value }), out.blobs);
    assert.equal(r.status, "FAIL", `${key} ${value}: ${r.reason}`);
    assert.match(
      r.reason,
      new RegExp(`record contradicts its stack .*components\\.${key} '${value}'`),
    );
  }
});

Deno.test("a version with no release number makes a match NOT_VERIFIED, and hides no FAIL", async () => {
  const vague = withComponents(honest, { pytorch: "nightly" });
  const r = await verifyAlone(vague, out.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /^recomputed output matches the fingerprint, but .*no release number/);
  const falsified = {
    ...vague,
    fingerprint: { ...vague.fingerprint, sha256: "0".repeat(64) },
  };
  assert.equal((await verifyAlone(falsified, out.blobs)).status, "FAIL");
});

Deno.test("a pre-release or container build of a pinned release, or an integer-encoded one, is NOT_VERIFIED where the bits match, and hides no FAIL", async () => {
  for (
    const [key, value, why] of [
      ["pytorch", "2.8.0a0+5228986c39.nv25.05", /pre-release, development or post-release/],
      ["transformers", "4.57.0.dev0", /pre-release, development or post-release/],
      ["pytorch", "2.8.0+git1234abc", /local build/],
    ] as const
  ) {
    const claimed = withComponents(honest, { [key]: value });
    const r = await verifyAlone(claimed, out.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${value}: ${r.reason}`);
    assert.match(r.reason, why);
    const falsified = {
      ...claimed,
      fingerprint: { ...claimed.fingerprint, sha256: "0".repeat(64) },
    };
    assert.equal((await verifyAlone(falsified, out.blobs)).status, "FAIL", value);
  }
});

Deno.test("a component name padded to swell the signed verdict is refused with the log, quoted short", () => {
  const record = makeClaimRecord(
    withComponents(honest, { ["pytorch" + " ".repeat(1e6)]: "9.9.9" }),
  );
  assert.throws(
    () => parseClaimLog(formatClaimLog([record])),
    (e) => e instanceof InputError && e.code === "CLAIM_INVALID" && e.message.length < 400,
  );
});

Deno.test("a run setting the stack does not pin makes a match NOT_VERIFIED; a release it pins none of is recorded, said not compared", async () => {
  for (
    const components of [
      { kv_cache_dtype: "fp8" },
      { attn_implementation: "sdpa" },
      { torch_dtype: "float16" },
      { env: "VLLM_USE_TRITON_FLASH_ATTN=1" },
    ]
  ) {
    const r = await verifyAlone(withComponents(honest, components), out.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${JSON.stringify(components)}: ${r.reason}`);
    assert.match(r.reason, /^recomputed output matches the fingerprint, but .*cannot be compared/);
  }
  const r = await verifyAlone(withComponents(honest, { cuda: "12.8.1" }), out.blobs);
  assert.equal(r.status, "PASS", r.reason);
  const step = r.steps.find((s) => s.step === "components");
  assert.match(step?.detail ?? "", /recorded, not compared .*cuda '12\.8\.1'/);
});

Deno.test("review h129: a word before a pinned release, or a MIG instance in the environment, is NOT_VERIFIED where the bits match; a release the stack excludes FAILs beside other text; a shell line continuation is read as a shell reads it", async () => {
  for (
    const [components, why] of [
      [{ torch: "nightly 2.8.0" }, /states more than a release/],
      [{ torch: "cpu 2.8.0" }, /states more than a release/],
      [{ env: "CUDA_VISIBLE_DEVICES=MIG-4f2d9a1c-1g.10gb" }, /selects a MIG instance/],
    ] as const
  ) {
    const r = await verifyAlone(withComponents(honest, components), out.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${JSON.stringify(components)}: ${r.reason}`);
    assert.match(r.reason, why);
  }
  const beside = await verifyAlone(withComponents(honest, { torch: "2.4.0 (cu118)" }), out.blobs);
  assert.equal(beside.status, "FAIL", beside.reason);
  assert.match(
    beside.reason,
    /record contradicts its stack .*components\.torch '2\.4\.0 \(cu118\)'/,
  );
  for (
    const components of [
      { env: "CUDA_VISIBLE_DEVICES=GPU-8932f937-d72c-4106-c12f-20bd9faed9f6" },
      { env: "CUDA_VISIBLE_DEVICES=0 \\\nHF_HOME=/data/hf" },
    ]
  ) {
    const r = await verifyAlone(withComponents(honest, components), out.blobs);
    assert.equal(r.status, "PASS", `${JSON.stringify(components)}: ${r.reason}`);
  }
});

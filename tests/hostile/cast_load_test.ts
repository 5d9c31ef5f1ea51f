/**
 * A record whose checkpoint stores a tensor as F32 or F16 is recomputed with the tensor cast to
 * BF16 as the stacks' loaders cast it (PyTorch's nearest-even `float -> bfloat16`), never turned
 * into NOT_VERIFIED: a prover storing one norm as F32 had made a falsified record's FAIL a
 * NOT_VERIFIED. The honest record PASSes with the fingerprint of the BF16 checkpoint, the
 * falsified one FAILs, and the result labels the cast derived from source.
 */
import assert from "node:assert/strict";
import { falsifiedDenseForward, honestDenseForward, verifyAlone } from "./_recompute_fixture.ts";
import { asF16, asF32, reencode, verifyOver } from "./_weight_bytes.ts";
import type { SafetensorsTensorInput } from "../../src/model/mod.ts";

const { forward, honest, digest } = await honestDenseForward();
const NORM = "model.norm.weight";
const EMBEDDING = "model.embed_tokens.weight";

Deno.test("an honest record over F32 weights PASSes with the BF16 checkpoint's fingerprint; the cast rounds as PyTorch does (they had been NOT_VERIFIED)", async () => {
  const weights = forward.blobs.get(digest)!;
  const bf16 = await verifyAlone(honest, forward.blobs);
  assert.equal(bf16.status, "PASS", bf16.reason);
  const cases: [string, (t: SafetensorsTensorInput[]) => SafetensorsTensorInput[], string][] = [
    ["the final norm as exact F32 values", asF32(NORM, () => 0), "PASS"],
    ["the embedding as exact F32 values", asF32(EMBEDDING, () => 0), "PASS"],
    // Nearest-even: a tie keeps an even kept part, a value below the tie keeps an odd one (a
    // cast that rounded ties away from zero, or up, would move every even one).
    [
      "the final norm at ties and below them",
      asF32(NORM, (b) => (b & 1) ? 0x7fff : 0x8000),
      "PASS",
    ],
    // Past the tie every value rounds to the next BF16 value: no longer the claimed weights.
    ["the final norm past the tie", asF32(NORM, () => 0x8001), "FAIL"],
  ];
  for (const [what, edit, want] of cases) {
    const r = await verifyOver(honest, forward.blobs, await reencode(weights, { edit }));
    assert.equal(r.status, want, `${what}: ${r.reason}`);
    if (want === "PASS") assert.equal(r.recomputed, bf16.recomputed, what);
    const cast = r.evidence?.find((e) => e.component.startsWith("checkpoint load:"));
    assert.equal(cast?.level, "derived-from-source", what);
    assert.match(cast!.component, /1 F32 tensor\(s\) cast to BF16/, what);
  }
  assert.equal(bf16.evidence?.some((e) => e.component.startsWith("checkpoint load:")), false);
});

Deno.test("a falsified record over an F32 norm FAILs on its fingerprint (it had been NOT_VERIFIED)", async () => {
  const { forward, falsified, digest } = await falsifiedDenseForward();
  assert.equal((await verifyAlone(falsified, forward.blobs)).status, "FAIL");
  const f32 = await reencode(forward.blobs.get(digest)!, { edit: asF32(NORM, () => 0) });
  const r = await verifyOver(falsified, forward.blobs, f32);
  assert.equal(r.status, "FAIL", r.reason);
  assert.equal(r.finding, "fingerprint", r.reason);
});

Deno.test("a record over an F16 norm is recomputed with the cast as well: the honest one PASSes, the falsified one FAILs on its fingerprint", async () => {
  // The F16 cast had been tested below the record only: a record over F16 weights on the HF
  // stack, honest or falsified, had no test.
  const edit = asF16(NORM);
  const pass = await verifyOver(
    honest,
    forward.blobs,
    await reencode(forward.blobs.get(digest)!, { edit }),
  );
  assert.equal(pass.status, "PASS", pass.reason);
  assert.equal(pass.recomputed, (await verifyAlone(honest, forward.blobs)).recomputed);
  const cast = pass.evidence?.find((e) => e.component.startsWith("checkpoint load:"));
  assert.match(cast?.component ?? "", /1 F16 tensor\(s\) cast to BF16/);
  const lying = await falsifiedDenseForward();
  const weights = lying.forward.blobs.get(lying.digest)!;
  const r = await verifyOver(
    lying.falsified,
    lying.forward.blobs,
    await reencode(weights, { edit }),
  );
  assert.equal(r.status, "FAIL", r.reason);
  assert.equal(r.finding, "fingerprint", r.reason);
});

/**
 * A record whose checkpoint stores a tensor as F32 or F16 is recomputed with the tensor cast to
 * BF16 as the stacks' loaders cast it (PyTorch's nearest-even `float -> bfloat16`), never turned
 * into NOT_VERIFIED: a prover storing one norm as F32 had made a falsified record's FAIL a
 * NOT_VERIFIED. The honest record PASSes with the fingerprint of the BF16 checkpoint, the
 * falsified one FAILs, and the result labels the cast derived from source.
 */
import assert from "node:assert/strict";
import {
  type Blobs,
  forwardScenario,
  honestDenseForward,
  proverRun,
  verifyAlone,
} from "./_recompute_fixture.ts";
import { asF16, asF32, over, reencode, weightDigest } from "./_weight_bytes.ts";
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
    const blobs: Blobs = new Map(forward.blobs);
    const r = await verifyAlone(over(honest, blobs, await reencode(weights, { edit })), blobs);
    assert.equal(r.status, want, `${what}: ${r.reason}`);
    if (want === "PASS") assert.equal(r.recomputed, bf16.recomputed, what);
    const cast = r.evidence?.find((e) => e.component.startsWith("checkpoint load:"));
    assert.equal(cast?.level, "derived-from-source", what);
    assert.match(cast!.component, /1 F32 tensor\(s\) cast to BF16/, what);
  }
  assert.equal(bf16.evidence?.some((e) => e.component.startsWith("checkpoint load:")), false);
});

Deno.test("a falsified record over an F32 or F16 norm FAILs on its fingerprint (it had been NOT_VERIFIED)", async () => {
  const falsified = await proverRun(forwardScenario([{ seq: 1, kind: "fingerprint", bit: 3 }], 1));
  const p = falsified.records[1]!.predicate;
  assert.equal((await verifyAlone(p, falsified.blobs)).status, "FAIL");
  // The F16 cast (exact to F32, then nearest-even) is the other load path: held to FAIL as well.
  for (const edit of [asF32(NORM, () => 0), asF16(NORM)]) {
    const blobs: Blobs = new Map(falsified.blobs);
    const cast = await reencode(falsified.blobs.get(weightDigest(p))!, { edit });
    const r = await verifyAlone(over(p, blobs, cast), blobs);
    assert.equal(r.status, "FAIL", r.reason);
    assert.equal(r.finding, "fingerprint", r.reason);
    const load = r.evidence?.find((e) => e.component.startsWith("checkpoint load:"));
    assert.match(load?.component ?? "", /1 F(32|16) tensor\(s\) cast to BF16/);
  }
});

/**
 * Weights the stacks' loaders read in a way bitaudit does not model are NOT_VERIFIED, never a
 * signed FAIL against an honest prover whose writer differs, and never PASS: a header the
 * safetensors reference reader reads although the format does not allow it (leading whitespace,
 * a carriage return in its padding, a tensor entry field the format does not define: serde_json
 * and the crate's `TensorInfo` take all three), an F64 tensor where the model is BF16 (the loaders
 * cast it; only the F32 and F16 casts are modelled: `cast_load_test.ts`), an F32 tensor holding a
 * NaN (its cast's pattern depends on where it runs), a tensor the model does not have (HF
 * Transformers drops it). Each had FAILed as an invalid checkpoint. Such a departure is refused
 * only after every other check, so a checkpoint that is broken as well still FAILs.
 */
import assert from "node:assert/strict";
import { falsifiedDenseForward, honestDenseForward } from "./_recompute_fixture.ts";
import { asF32, reencode, verifyOver, withHeader } from "./_weight_bytes.ts";
import type { SafetensorsTensorInput } from "../../src/model/mod.ts";

const { forward, honest, digest } = await honestDenseForward();
const NORM = "model.norm.weight";

/** The norm as F32 holding its exact BF16 values (what a writer keeping norms in F32 stores). */
const f32Norm = asF32(NORM, () => 0);

/** The norm as F64 (a cast the loaders make that is not modelled). */
function f64Norm(tensors: SafetensorsTensorInput[]): SafetensorsTensorInput[] {
  return tensors.map((t) => {
    if (t.name !== NORM) return t;
    const n = t.shape.reduce((a, b) => a * b, 1);
    return { name: t.name, dtype: "F64", shape: t.shape, data: new BigUint64Array(n) };
  });
}

/** The norm as F32 with a NaN among its exact BF16 values. */
function nanNorm(tensors: SafetensorsTensorInput[]): SafetensorsTensorInput[] {
  return f32Norm(tensors).map((t) => {
    if (t.name !== NORM) return t;
    const data = (t.data as Uint32Array).slice();
    data[3] = 0x7fc00000;
    return { ...t, data };
  });
}

/** One extra tensor the model does not have. */
function extraTensor(tensors: SafetensorsTensorInput[]): SafetensorsTensorInput[] {
  return [...tensors, { name: "model.extra", dtype: "BF16", shape: [2], data: new Uint16Array(2) }];
}

Deno.test("weights read by the loaders in a way not modelled are NOT_VERIFIED (they had FAILed as an invalid checkpoint), each reason named", async () => {
  const weights = forward.blobs.get(digest)!;
  const plain = await reencode(weights);
  const cases: [string, Uint8Array, RegExp][] = [
    ["a header opening with a space", withHeader(plain, (h) => ` ${h}`), /header starts with " "/],
    ["a carriage return in the padding", withHeader(plain, (h) => `${h}\r`), /carriage return/],
    [
      "a tensor entry field the format does not define",
      withHeader(plain, (h) => h.replace('"dtype":', '"note":[1.5,{"x":null}],"dtype":')),
      /has a field 'note' the format does not define/,
    ],
    [
      "an F64 norm",
      await reencode(weights, { edit: f64Norm }),
      /'model\.norm\.weight' is F64, not BF16, F32 or F16/,
    ],
    [
      "an F32 norm holding a NaN",
      await reencode(weights, { edit: nanNorm }),
      /'model\.norm\.weight' is F32 and holds a NaN \(element 3\)/,
    ],
    [
      "a tensor the model does not have",
      await reencode(weights, { edit: extraTensor }),
      /'model\.extra' is not part of the config's model/,
    ],
  ];
  // The unchanged re-encoding PASSes, so each case's verdict is its edit's.
  assert.equal((await verifyOver(honest, forward.blobs, plain)).status, "PASS");
  for (const [what, bytes, reason] of cases) {
    const r = await verifyOver(honest, forward.blobs, bytes);
    assert.equal(r.status, "NOT_VERIFIED", `${what}: ${r.reason}`);
    assert.match(r.reason, /^checkpoint: Cannot open checkpoint: /, what);
    assert.match(r.reason, reason, what);
  }
});

Deno.test("a checkpoint that departs in a way the loaders read and is broken as well still FAILs", async () => {
  const lying = await falsifiedDenseForward();
  const broken = await reencode(lying.forward.blobs.get(lying.digest)!, {
    // Broken: a tensor of another shape, which every loader refuses (a missing one is
    // initialised anew by Transformers: not modelled, not broken).
    edit: (t) =>
      extraTensor(f32Norm(t)).map((x) =>
        x.name === "model.layers.0.mlp.up_proj.weight"
          ? { name: x.name, dtype: "BF16", shape: [2, 2], data: new Uint16Array(4) }
          : x
      ),
  });
  const spaced = withHeader(broken, (h) => ` ${h}\r`);
  const r = await verifyOver(lying.falsified, lying.forward.blobs, spaced);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /'model\.layers\.0\.mlp\.up_proj\.weight'.*\[2,2\]/);
});

/**
 * A committed config.json with Python's `NaN` / `Infinity` / `-Infinity` values, which Python's
 * `json` (and so HF Transformers) reads and `save_pretrained` writes for a non-finite float: in a
 * field no forward reads the record is recomputed as any other (it FAILed as "not valid JSON", an
 * honest prover's checkpoint refused as no model at all); in a field that is read the value is
 * refused where it is read; the names inside strings stay strings.
 */
import assert from "node:assert/strict";
import { parseCheckpointJson } from "../../src/model/checkpoint/parse_checkpoint_json.ts";
import { honestOf, withConfig } from "./_config_edit.ts";
import { verifyAlone } from "./_recompute_fixture.ts";

const bytes = (t: string) => new TextEncoder().encode(t);

Deno.test("parseCheckpointJson() reads Python's NaN, Infinity and -Infinity as numbers, outside strings only", () => {
  const v = parseCheckpointJson(
    bytes('{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN", "d": "x\\" NaN", "e": 1}'),
    "config.json",
  ) as Record<string, unknown>;
  assert.ok(Number.isNaN(v.a));
  assert.deepEqual(v.b, [Infinity, -Infinity]);
  assert.equal(v.c, "NaN");
  assert.equal(v.d, 'x" NaN');
  assert.equal(v.e, 1);
  for (
    const bad of [
      '{"a": NaNa}',
      '{"a": nan}',
      '{"a": -NaN}',
      '{"a": +Infinity}',
      '{"a": Infinityx}',
      '{"a": NaN1}',
      '{"a": 1NaN}',
      '{"a": NaN.5}',
      "{NaN: 1}",
      '{"a": 0, NaN: "x"}',
    ]
  ) {
    assert.throws(() => parseCheckpointJson(bytes(bad), "config.json"), /not valid JSON/, bad);
  }
  // A string is a string, whatever it holds (a stand-in of an earlier reader read it as NaN), and
  // the last of two equal keys wins, as in Python, whichever of them holds a constant.
  const v2 = parseCheckpointJson(
    bytes('{"a": "\\u0000bitaudit-python-constant:NaN", "b": NaN, "b": 2, "c": 1, "c": -Infinity}'),
    "config.json",
  ) as Record<string, unknown>;
  assert.deepEqual(v2, { a: "\u0000bitaudit-python-constant:NaN", b: 2, c: -Infinity });
  // No number of the file is taken for a stand-in (runs of zeros, tiny fractions).
  const v3 = parseCheckpointJson(
    bytes('{"a": NaN, "b": 0.0001, "c": 0.00001, "d": 1e-5, "e": 0}'),
    "config.json",
  ) as Record<string, unknown>;
  assert.ok(Number.isNaN(v3.a));
  assert.deepEqual({ ...v3, a: 0 }, { a: 0, b: 0.0001, c: 0.00001, d: 1e-5, e: 0 });
});

Deno.test("parseCheckpointJson() refuses many NaN values beside a long run of zeros at once, instead of building gigabytes of stand-ins", () => {
  const zeros = "0".repeat(500_000);
  const nans = Array.from({ length: 120_000 }, () => "NaN").join(",");
  const text = `{"a": 0.${zeros}1, "b": [${nans}]}`;
  const start = performance.now();
  assert.throws(
    () => parseCheckpointJson(bytes(text), "config.json"),
    /holds 120000 NaN or Infinity values beside a run of 500000 zeros/,
  );
  assert.ok(performance.now() - start < 5_000);
  // A few beside the same run are read.
  const v = parseCheckpointJson(bytes(`{"a": 0.${zeros}1, "b": [NaN, Infinity]}`), "config.json");
  assert.ok(Number.isNaN((v as { b: number[] }).b[0]));
});

Deno.test("a committed config.json with NaN or Infinity in a field no forward reads is recomputed (PASS); in rms_norm_eps it is refused", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId: "pyconst" });
  assert.equal((await verifyAlone(honest, blobs)).status, "PASS");
  for (const literal of ["NaN", "Infinity", "-Infinity"]) {
    const edit = (t: string) => {
      const e = t.replace(/"initializer_range": [^,}\n]+/, `"initializer_range": ${literal}`);
      assert.notEqual(e, t);
      return e;
    };
    const r = await verifyAlone(withConfig(honest, blobs, edit), blobs);
    assert.equal(r.status, "PASS", `${literal}: ${r.reason}`);
  }
  const eps = (t: string) => t.replace(/"rms_norm_eps": [^,}\n]+/, '"rms_norm_eps": NaN');
  const r = await verifyAlone(withConfig(honest, blobs, eps), blobs);
  assert.notEqual(r.status, "PASS");
  assert.match(r.reason ?? "", /rms_norm_eps/);
});

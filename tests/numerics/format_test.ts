/**
 * Format descriptors against the field-by-field reference: derived limits, container padding,
 * canonical NaNs, lookup by name.
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode, formatByName, type FormatName, FORMATS } from "../../src/numerics/mod.ts";
import { compareDyadic, dyadic } from "./_dyadic.ts";
import { refDecode } from "./_exact_reference.ts";
import { indexPattern, indexValue, maxFiniteIndex, padBits, refFormat } from "./_ref_formats.ts";

const NAMES = Object.keys(FORMATS) as FormatName[];

Deno.test("`FORMATS` entries agree with the reference grid when limits are derived", () => {
  for (const name of NAMES) {
    const f = FORMATS[name];
    const r = refFormat(name);
    assert.equal(f.name, name);
    assert.equal(f.expBits, r.expBits, name);
    assert.equal(f.fracBits, r.fracBits, name);
    assert.equal(f.storageBits, r.storageBits, name);
    assert.equal(f.containerShift, padBits(r), name);
    assert.equal(f.special === "e4m3fn", r.e4m3fn, name);
    assert.ok(Object.isFrozen(f), `${name} is frozen`);
    // Largest finite value: maxSignificand * 2^(emax - fracBits).
    const max = indexValue(r, maxFiniteIndex(r));
    assert.equal(compareDyadic(dyadic(f.maxSignificand, f.emax - f.fracBits), max), 0, name);
    // Smallest normal: 2^emin.
    assert.equal(compareDyadic(dyadic(1, f.emin), indexValue(r, 2 ** r.fracBits)), 0, name);
    assert.equal(f.bias, 2 ** (f.expBits - 1) - 1, name);
  }
});

Deno.test("`FORMATS` canonical NaNs decode as positive NaNs when read in their own format", () => {
  for (const name of NAMES) {
    const f = FORMATS[name];
    const ref = refDecode(refFormat(name), f.canonicalNan); // throws if padding bits are set
    assert.deepEqual(ref, { kind: "nan", sign: 0 }, name);
    assert.equal(decode(f, f.canonicalNan).kind, "nan", name);
  }
  // NVIDIA canonical NaNs: every exponent and fraction bit set.
  for (const name of ["fp32", "bf16", "fp16", "e4m3", "e5m2", "tf32"] as const) {
    const r = refFormat(name);
    assert.equal(FORMATS[name].canonicalNan, indexPattern(r, 0, 2 ** (r.expBits + r.fracBits) - 1));
  }
});

Deno.test("`formatByName()` returns each descriptor and throws RangeError when the name is unknown", () => {
  for (const name of NAMES) assert.equal(formatByName(name), FORMATS[name]);
  assert.throws(() => formatByName("fp8"), RangeError);
  assert.throws(() => formatByName(""), RangeError);
});

// Regression: FORMATS is a plain object, so a lookup by an inherited key such as "toString"
// returned Object.prototype members instead of throwing (found while writing this suite).
Deno.test("`formatByName()` throws RangeError when the name is an Object.prototype key", () => {
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
    assert.throws(() => formatByName(name), RangeError, name);
  }
});

import assert from "node:assert/strict";
import { meetsSfuStatus, type SfuValidationStatus } from "../../../src/hardware/sfu/mod.ts";

const HARDWARE: SfuValidationStatus[] = [
  "model-only",
  "spot-checked",
  "histogram-matched",
  "exhaustive-on-gpu",
];

Deno.test("`meetsSfuStatus()` orders hardware evidence with model-only at the bottom", () => {
  HARDWARE.forEach((s, i) => {
    HARDWARE.forEach((min, j) => assert.equal(meetsSfuStatus(s, min), i >= j, `${s} vs ${min}`));
  });
});

Deno.test("`meetsSfuStatus()` keeps ieee-exact apart from every hardware status", () => {
  for (const s of HARDWARE) {
    assert.equal(meetsSfuStatus("ieee-exact", s), false);
    assert.equal(meetsSfuStatus(s, "ieee-exact"), false);
  }
  assert.ok(meetsSfuStatus("ieee-exact", "ieee-exact"));
});

/**
 * The fast-math build's MUFU instructions are the `.ftz` ones (`ex2.approx.ftz`,
 * `rcp.approx.ftz`): a subnormal probability is flushed to zero whatever MUFU model is given,
 * so an IEEE model without its own flush gives the same bits as one with it.
 */
import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import { FA2_DAO_FASTMATH, flashAttentionForward } from "../../../src/kernels/mod.ts";
import { profile } from "./_fa2_fixture.ts";

Deno.test("FA2 (Dao build): a subnormal P from MUFU.EX2 is flushed, with or without the model's own FTZ", () => {
  // One query row over two keys: key 1's exp2 argument is about -129.85, a subnormal P that
  // would carry V's 2^120 rows into O unless flushed.
  const d = 64;
  const q = new Uint16Array(d);
  q[0] = 0x4180; // 16
  const k = new Uint16Array(2 * d);
  k[0] = 0x4100; // 8
  k[d] = 0xc214; // -37
  const v = new Uint16Array(2 * d);
  for (let i = 0; i < d; i++) {
    const bits = new Uint32Array(new Float32Array([2 ** 120 * (1 + i / 64)]).buffer)[0]!;
    v[d + i] = bits >>> 16;
  }
  const run = (ftz: boolean) =>
    flashAttentionForward({ q, k, v }, {
      heads: 1,
      kvHeads: 1,
      headDim: d,
      causal: false,
      build: FA2_DAO_FASTMATH,
      profile: profile("a100"),
      mufu: createSfu({ mode: "ieee", ftz }),
      multiProcessorCount: 108,
    }).out;
  const plain = run(false);
  assert.deepEqual(plain, run(true));
  assert.equal(plain[0], 0x0000, "key 1's P flushed: O is key 0's V, all zero");
});

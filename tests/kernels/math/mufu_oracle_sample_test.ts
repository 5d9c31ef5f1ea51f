/**
 * The TS SFU table model and the non-FTZ MUFU expansions of `mufu.ts` against committed outputs
 * of the libdevice oracle's independent C port (tools/libdevice_oracle/mufu.c), so that the
 * cross-check runs without an LLVM toolchain. Provenance: fixtures/README.md. The exhaustive
 * versions are in tests/slow/hardware/sfu/mufu_c_port_sweep_test.ts.
 */
import assert from "node:assert/strict";
import { ex2ApproxF32, rsqrtApproxF32 } from "../../../src/kernels/math/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const F = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/libdevice_oracle_sample.json", import.meta.url)),
) as Record<string, string[]>;
const num = (h: string) => parseInt(h, 16);
const inputs = F.mufu_inputs!.map(num);
const sfu = teslaSfu();

function check(name: string, fn: (x: number) => number) {
  const want = F[name]!.map(num);
  assert.equal(want.length, inputs.length, name);
  inputs.forEach((x, i) => assert.equal(fn(x), want[i], `${name}(0x${x.toString(16)})`));
}

Deno.test("`createSfu()` tesla-table rcp, rsqrt and ex2 match the oracle's C port sample", () => {
  check("mufu_rcp", sfu.rcp);
  check("mufu_rsqrt", sfu.rsqrt);
  check("mufu_ex2", sfu.ex2);
});

Deno.test("`ex2ApproxF32()` and `rsqrtApproxF32()` match the oracle's non-FTZ forms sample", () => {
  check("ex2_approx", (x) => ex2ApproxF32(sfu, x));
  check("rsqrt_approx", (x) => rsqrtApproxF32(sfu, x));
});

Deno.test("the oracle sample exercises both non-FTZ branches and the saturating ex2 codes", () => {
  const f = new Float32Array(new Uint32Array(inputs).buffer);
  assert.ok(f.some((x) => x < -126), "ex2.approx.f32 squared branch");
  assert.ok(f.some((x) => x !== 0 && Math.abs(x) < 2 ** -126), "rsqrt.approx.f32 scaled branch");
  assert.ok(f.some((x) => Math.abs(x) >= 128 && Number.isFinite(x)), "ex2 |x| >= 128");
});

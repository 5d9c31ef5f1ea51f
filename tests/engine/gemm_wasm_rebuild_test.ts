/**
 * Reproducibility: rebuilding the kernel from `wasm/assembly/` with the pinned compiler and flags
 * (tools/wasm/build.ts) gives exactly the committed `tables/wasm/gemm_engine.wasm`. Needs
 * --allow-run and assemblyscript@0.28.20 in Deno's npm cache (or network once); when the
 * compiler cannot run, this test fails: it never skips.
 */
import assert from "node:assert/strict";
import { buildGemmWasm } from "../../tools/wasm/build.ts";
import { WASM_URL } from "./_engine_fixture.ts";

Deno.test("buildGemmWasm() reproduces the committed gemm_engine.wasm byte for byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = `${dir}/gemm_engine.wasm`;
    await buildGemmWasm(out);
    const rebuilt = await Deno.readFile(out);
    const committed = await Deno.readFile(WASM_URL);
    assert.equal(rebuilt.length, committed.length);
    assert.ok(rebuilt.every((v, i) => v === committed[i]), "rebuilt bytes differ");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

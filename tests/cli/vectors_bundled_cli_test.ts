/**
 * `vectors bundled --vectors <root>` checks nothing when the root holds no vector set: that is a
 * coded refusal (exit 2), never "0/0 cases bit-exact" with exit 0.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { runBitaudit } from "./_run.ts";

const dir = await tempDir({ prefix: "bitaudit-vectors-bundled-" });

Deno.test("vectors bundled refuses a root without any vector set with VECTOR_SET_MISSING", async () => {
  await Deno.mkdir(`${dir}/empty`);
  await Deno.mkdir(`${dir}/gpu-only/A100`, { recursive: true });
  await Deno.mkdir(`${dir}/loop`);
  await Deno.symlink(`${dir}/loop`, `${dir}/loop/A100`); // a link is not read as a set
  for (const root of ["empty", "gpu-only", "loop"]) {
    for (const json of [[], ["--json"]]) {
      const r = await runBitaudit(["vectors", "bundled", "--vectors", `${dir}/${root}`, ...json]);
      assert.equal(r.code, 2, `${root}: ${r.stdout}${r.stderr}`);
      assertCliCode(r.stderr, "VECTOR_SET_MISSING");
      assert.equal(r.stdout, "", root);
    }
  }
});

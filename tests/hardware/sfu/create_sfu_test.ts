import assert from "node:assert/strict";
import {
  createSfu,
  decodeSfuTables,
  SFU_IEEE_V1,
  SFU_TESLA_V1,
  type SfuTables,
} from "../../../src/hardware/sfu/mod.ts";
import { ieeeLg2 } from "../../../src/hardware/sfu/ieee_lg2.ts";
import { ieeeRcp } from "../../../src/hardware/sfu/ieee_rcp.ts";
import { mufuEx2 } from "../../../src/hardware/sfu/mufu_ex2.ts";
import { mufuLg2 } from "../../../src/hardware/sfu/mufu_lg2.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const tables = decodeSfuTables(readTeslaTableBytes());

Deno.test("`createSfu()` exposes the table model and its status when mode is tesla-table", () => {
  const sfu = createSfu({ mode: "tesla-table", tables });
  assert.equal(sfu.mode, "tesla-table");
  assert.equal(sfu.status, SFU_TESLA_V1);
  assert.equal(sfu.ex2(0xbf000000), mufuEx2(0xbf000000, tables));
  assert.deepEqual(Array.from(sfu.map("rsqrt", new Uint32Array([0x40800000]))), [0x3f000000]);
  assert.equal(sfu.status.functions.rcp.status, "histogram-matched");
  assert.equal(sfu.status.functions.rsqrt.status, "histogram-matched");
  assert.equal(sfu.status.functions.ex2.status, "spot-checked");
  assert.ok(Object.isFrozen(sfu) && Object.isFrozen(SFU_TESLA_V1.functions.ex2));
  assert.equal(sfu.status.functions.lg2.status, "model-only");
  assert.equal(sfu.lg2(0x40400000), mufuLg2(0x40400000, tables));
  assert.ok(!("lg2" in SFU_TESLA_V1.unsupported) && "sin" in SFU_TESLA_V1.unsupported);
});

Deno.test("`createSfu()` gives correctly rounded results when mode is ieee", () => {
  const sfu = createSfu({ mode: "ieee" });
  assert.equal(sfu.status, SFU_IEEE_V1);
  assert.equal(sfu.rcp(0x3fe21812), ieeeRcp(0x3fe21812));
  assert.equal(sfu.ex2(0xc2fe0000), 0x00400000);
  assert.equal(createSfu({ mode: "ieee", ftz: true }).ex2(0xc2fe0000), 0);
  assert.equal(sfu.lg2(0x40400000), ieeeLg2(0x40400000));
  assert.equal(sfu.status.functions.lg2.status, "ieee-exact");
  assert.equal(sfu.map("lg2", new Uint32Array([0x3f000000]))[0], 0xbf800000);
  assert.equal(createSfu({ mode: "ieee", ftz: true }).lg2(0x00000001), 0xff800000);
});

Deno.test("`createSfu()` throws on an unknown mode or missing tables", () => {
  assert.throws(() => createSfu({ mode: "ampere" } as never), RangeError);
  assert.throws(
    () => createSfu({ mode: "tesla-table", tables: {} as SfuTables }),
    TypeError,
  );
  assert.throws(
    () => createSfu({ mode: "tesla-table", tables: { ...tables, rcp: new Int32Array(3) } }),
    TypeError,
  );
  const sfu = createSfu({ mode: "ieee" });
  assert.throws(() => sfu.map("sin" as never, new Uint32Array(1)), RangeError);
  assert.throws(() => sfu.map("toString" as never, new Uint32Array(1)), RangeError);
});

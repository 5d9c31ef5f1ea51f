/**
 * `parseGpuLinks()`: a GPU profile's `links` (the NVLink forms its part ships in, with data-sheet
 * sources) is validated field by field and frozen.
 */
import assert from "node:assert/strict";
import { parseGpuLinks, parseGpuProfile } from "../../src/hardware/mod.ts";

Deno.test("parseGpuLinks() refuses unknown, repeated or missing forms and sources by field", () => {
  for (
    const [json, field] of [
      [{ nvlink: [], sources: ["s"] }, /nvlink/],
      [{ nvlink: ["nvlink4"], sources: ["s"] }, /nvlink\[0\]/],
      [{ nvlink: ["none", "none"], sources: ["s"] }, /nvlink\[1\].*twice/],
      [{ nvlink: ["none"], sources: [] }, /sources/],
      [{ nvlink: ["none"], sources: ["s"], extra: 1 }, /extra/],
      [{ nvlink: "none", sources: ["s"] }, /nvlink/],
    ] as const
  ) {
    assert.throws(() => parseGpuLinks(json, "profile.links"), field);
  }
  const l = parseGpuLinks({ nvlink: ["none"], sources: ["s"], note: "n" }, "profile.links");
  assert.ok(Object.isFrozen(l) && Object.isFrozen(l.nvlink));
});

Deno.test("parseGpuProfile() reads links where given and leaves them absent otherwise", () => {
  const base = {
    schema: "bitaudit.gpu-profile/v1",
    id: "x",
    name: "X",
    architecture: "sm_89",
    computeCapability: "8.9",
    aliases: [],
    sources: [],
    tensorCore: { datapaths: [] },
  };
  assert.equal(parseGpuProfile(base).links, undefined);
  const p = parseGpuProfile({ ...base, links: { nvlink: ["none"], sources: ["data sheet"] } });
  assert.deepEqual(p.links?.nvlink, ["none"]);
  assert.throws(
    () => parseGpuProfile({ ...base, links: { nvlink: ["pcie"], sources: ["s"] } }),
    /profile\.links\.nvlink\[0\]/,
  );
});

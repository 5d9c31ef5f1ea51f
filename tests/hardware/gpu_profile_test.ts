import assert from "node:assert/strict";
import { findDatapath, findInstructions, parseGpuProfile } from "../../src/hardware/mod.ts";

const DIR = new URL("../../profiles/gpu/", import.meta.url);
const read = (id: string) => JSON.parse(Deno.readTextFileSync(new URL(`${id}.json`, DIR)));
const ids = [...Deno.readDirSync(DIR)].map((e) => e.name.replace(/\.json$/, "")).sort();

Deno.test("parseGpuProfile() accepts every bundled profile and freezes it", () => {
  assert.equal(ids.length, 16);
  for (const id of ids) {
    const p = parseGpuProfile(read(id));
    assert.equal(p.id, id);
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.tensorCore.datapaths[0]));
    for (const d of p.tensorCore.datapaths) assert.ok(d.sources.length > 0, `${id}/${d.id}`);
  }
});

Deno.test("bundled profiles cover the GPU list with their supported formats", () => {
  const want = [
    "a100",
    "a2",
    "a30",
    "a40",
    "b200",
    "gh200",
    "h100-nvl",
    "h100-pcie",
    "h100-sxm",
    "h200",
    "l4",
    "l40",
    "l40s",
    "rtx-1000-ada",
    "rtx-pro-6000-blackwell",
    "v100",
  ];
  assert.deepEqual(ids, want);
  const h100 = parseGpuProfile(read("h100-sxm"));
  for (const input of ["fp16", "bf16", "tf32", "e4m3", "e5m2"] as const) {
    assert.ok(findDatapath(h100, { input, output: "fp32" }), input);
  }
  const v100 = parseGpuProfile(read("v100"));
  assert.equal(findDatapath(v100, { input: "bf16", output: "fp32" }), undefined);
  const aliases = ids.flatMap((id) => parseGpuProfile(read(id)).aliases);
  assert.equal(new Set(aliases).size, aliases.length, "aliases are unique");
});

Deno.test("parseGpuProfile() names the bad field when a parameter is wrong", () => {
  // deno-lint-ignore no-explicit-any -- mutating arbitrary JSON paths of a parsed profile
  const cases: [string, (p: Record<string, any>) => void, RegExp][] = [
    ["fracBits", (p) => p.tensorCore.datapaths[0].fracBits = "24", /datapaths\[0\]\.fracBits/],
    ["rounding", (p) => p.tensorCore.datapaths[1].rounding = "rn", /datapaths\[1\]\.rounding/],
    ["unknown", (p) => p.tensorCore.datapaths[0].neab = 1, /datapaths\[0\]\.neab': unknown field/],
    ["arch", (p) => p.architecture = "sm_99", /profile\.architecture/],
    ["schema", (p) => p.schema = "x", /profile\.schema/],
    ["blockSize", (p) => p.tensorCore.datapaths[0].blockSize = 32, /blockSize/],
    ["input", (p) => p.tensorCore.datapaths[0].input = "fp64", /input/],
  ];
  for (const [name, mutate, re] of cases) {
    const p = read("a100");
    mutate(p);
    assert.throws(() => parseGpuProfile(p), (e: Error) => re.test(e.message), name);
  }
});

Deno.test("parseGpuProfile() refuses a datapath the architecture's instruction catalog lacks", () => {
  const p = read("a100");
  p.tensorCore.datapaths[0].input = "e4m3"; // no fp8 mma on sm_80
  p.tensorCore.datapaths[0].id = "x";
  assert.throws(() => parseGpuProfile(p), /sm_80 has no mma instruction e4m3->fp32/);
});

Deno.test("findInstructions() knows bf16 has no fp16-output mma", () => {
  assert.equal(
    findInstructions("sm_80", { family: "mma", input: "bf16", output: "fp16", k: 16 }).length,
    0,
  );
  assert.equal(
    findInstructions("sm_90", { family: "wgmma", input: "e4m3", output: "fp32", k: 32 }).length,
    1,
  );
});

/**
 * The committed GPU profiles are the output of `tools/profiles/generate.ts`, byte for byte: GPUs of
 * one architecture share their datapaths there, so a hand edit of one profile (a peer-checked
 * datapath drifting from the measured one it names) fails here.
 */
import assert from "node:assert/strict";
import { generateGpuProfiles } from "../../tools/profiles/generate.ts";

const DIR = new URL("../../profiles/gpu/", import.meta.url);

Deno.test("`generateGpuProfiles()` reproduces every committed GPU profile byte for byte", () => {
  const generated = generateGpuProfiles();
  const committed = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".json"))
    .sort();
  assert.deepEqual(generated.map((p) => `${p.id}.json`).sort(), committed);
  for (const p of generated) {
    assert.equal(Deno.readTextFileSync(new URL(`${p.id}.json`, DIR)), p.text, p.id);
  }
  assert.deepEqual(generateGpuProfiles(), generated); // deterministic
});

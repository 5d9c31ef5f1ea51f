/**
 * `model synth` killed outright (SIGKILL: no handler runs) while it writes the weights leaves no
 * cut-short weight file under its name: a weight file is there whole, or not at all.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";
import { modelSynth, REPO_ROOT } from "./_run.ts";

/** The length a safetensors file has when whole: 8 + its header + the data its tensors span. */
async function wholeLength(path: string): Promise<number> {
  using f = await Deno.open(path, { read: true });
  const head = new Uint8Array(8);
  assert.equal(await f.read(head), 8);
  const n = Number(new DataView(head.buffer).getBigUint64(0, true));
  const text = new Uint8Array(n);
  for (let at = 0; at < n;) at += (await f.read(text.subarray(at))) ?? n;
  const tensors = JSON.parse(new TextDecoder().decode(text)) as Record<
    string,
    { data_offsets?: [number, number] }
  >;
  const end = Math.max(...Object.values(tensors).map((t) => t.data_offsets?.[1] ?? 0));
  return 8 + n + end;
}

Deno.test("model synth killed while writing the weights leaves no cut-short weight file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-synth-kill-" });
  const config = JSON.parse(
    await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`),
  );
  // About 100 MB of weights: long enough to write that the kill lands while writing.
  Object.assign(config, { hidden_size: 1024, intermediate_size: 4096, vocab_size: 32000 });
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
  const out = `${dir}/ckpt`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "--quiet", "--allow-read", "--allow-write", `${REPO_ROOT}/src/cli/main.ts`],
      ...["model", "synth", "--config", `${dir}/config.json`, "--seed", "1", "--out", out],
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Killed as soon as a weight file (under its name, or a temporary one) holds a byte.
  let writing = false;
  for (let i = 0; i < 60_000 && !writing; i++) {
    try {
      for (const e of Deno.readDirSync(out)) {
        if (e.name.startsWith("model.") && Deno.statSync(`${out}/${e.name}`).size > 0) {
          writing = true;
        }
      }
    } catch { /* the folder is not there yet */ }
    if (!writing) await new Promise((r) => setTimeout(r, 1));
  }
  child.kill("SIGKILL");
  await child.status;
  assert.ok(writing, "the child reached the weights");
  const weights = `${out}/model.safetensors`;
  let size: number | null = null;
  try {
    size = (await Deno.stat(weights)).size;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (size !== null) {
    assert.equal(size, await wholeLength(weights), "a weight file under its name is whole");
  }
});

Deno.test("model synth --shards above the config's tensor count is a usage error (exit 2) that writes nothing, not an internal error", async () => {
  const dir = await tempDir({ prefix: "synth-shards-" });
  const out = `${dir}/ck`;
  const config = `${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`;
  for (const shards of ["25", "1000"]) {
    const r = await modelSynth(config, out, ["--shards", shards]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^error \[USAGE_NUMBER\]: Cannot use --shards \d+: shards must be in 1\.\.24/,
    );
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});

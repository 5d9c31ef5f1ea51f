/**
 * The bundled tiny dense checkpoint opened once for the prover's record tests: its folder, the
 * asset store, the opened checkpoint and its weight file's digest.
 *
 * @module
 */
import { checkpointDir, openAssetStore, sha256Hex } from "../../src/assets/mod.ts";
import { openDecoderCheckpoint } from "../../src/model/mod.ts";

/** Folder of the bundled `qwen3-tiny-dense` checkpoint. */
export const DIR = new URL("../../tables/models/qwen3-tiny-dense/", import.meta.url).pathname;
/** The asset store. */
export const store = await openAssetStore();
const dir = await checkpointDir(DIR);
/** The opened checkpoint (its folder closed). */
export const ckpt = await openDecoderCheckpoint(dir);
dir.close();
/** Its one weight file's SHA-256, as a record names it. */
export const digests = {
  "model.safetensors": sha256Hex(await Deno.readFile(`${DIR}model.safetensors`)),
};

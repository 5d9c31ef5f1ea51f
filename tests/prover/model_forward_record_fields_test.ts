/**
 * The fields of a `model_forward` record `claims append` writes, against the record format of
 * docs/prover.md ("model_forward"; "Fingerprints"): the fingerprint's shape is `[positions,
 * hidden]`, one row per fingerprinted position whatever the batch's size, and the batch's pad
 * token is carried beside its sequences.
 *
 * @module
 */
import assert from "node:assert/strict";
import { checkpointDir, sha256Hex } from "../../src/assets/mod.ts";
import type { ModelForwardWorkload } from "../../src/claims/mod.ts";
import { openDecoderCheckpoint } from "../../src/model/mod.ts";
import { modelForwardClaim, nextLogPosition } from "../../src/prover/mod.ts";
import { InputError } from "../../src/errors.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { ckpt, digests, DIR, store } from "./_tiny_dense_fixture.ts";

/** The checkpoint's `hidden_size`, read from its config.json (not from the opened checkpoint). */
const HIDDEN = (JSON.parse(await Deno.readTextFile(`${DIR}config.json`)) as { hidden_size: number })
  .hidden_size;

const facts = (tokens: unknown, positions?: readonly (readonly [number, number])[]) => ({
  position: nextLogPosition(null, { logId: "fields" }),
  checkpoint: { ckpt, digests },
  tokens,
  stack: "hf-qwen3-flash-attn-torch2.8",
  profile: "a100",
  multiProcessorCount: 108,
  kernel: { catalog: "demo-qwen3-tiny-a100" },
  fingerprint: "c".repeat(64),
  ...(positions === undefined ? {} : { positions }),
});

Deno.test("modelForwardClaim() shapes the fingerprint [positions, hidden]: more positions than sequences give more rows", async () => {
  const positions = [[0, 0], [0, 2], [1, 0], [0, 1]] as const;
  const r = await modelForwardClaim(
    facts({ sequences: [[1, 2, 3], [4]], padTokenId: 0 }, positions),
    { store },
  );
  const w = r.predicate.workload as ModelForwardWorkload;
  assert.equal(r.predicate.batch.size, 2, "two sequences");
  assert.deepEqual(w.positions, positions);
  assert.equal(HIDDEN, 256);
  assert.deepEqual(r.predicate.fingerprint.shape, [4, HIDDEN]);
  assert.equal(r.predicate.fingerprint.tensor, "model.norm.out");
  assert.equal(r.predicate.fingerprint.dtype, "bf16");
});

Deno.test("modelForwardClaim() carries the batch's pad token beside its sequences, and states none when the batch names none", async () => {
  const padded = await modelForwardClaim(
    facts({ sequences: [[1, 2, 3], [4]], padTokenId: 7 }),
    { store },
  );
  const w = padded.predicate.workload as ModelForwardWorkload;
  assert.deepEqual(w.tokens, { sequences: [[1, 2, 3], [4]], padTokenId: 7 });
  const one = await modelForwardClaim(facts({ sequences: [[5, 6]] }), { store });
  const t = (one.predicate.workload as ModelForwardWorkload).tokens;
  assert.deepEqual(t, { sequences: [[5, 6]] });
  assert.equal("padTokenId" in t, false);
});

Deno.test("modelForwardClaim() records a vLLM pass's expert-parallel size as stated, and refuses one vLLM has not (docs/prover.md: --ep equal to --tp, or 1)", async () => {
  const TP = new URL("../../tables/models/qwen3-tiny-tp/", import.meta.url).pathname;
  const tpDir = await checkpointDir(TP);
  const tpCkpt = await openDecoderCheckpoint(tpDir);
  tpDir.close();
  const tpDigests = {
    "model.safetensors": sha256Hex(await Deno.readFile(`${TP}model.safetensors`)),
  };
  const on = (ep: number) =>
    modelForwardClaim({
      ...facts({ sequences: [[1, 2, 3], [4]] }),
      checkpoint: { ckpt: tpCkpt, digests: tpDigests },
      stack: "vllm-0.11-eager-fa2",
      gpuCount: 2,
      parallel: { tp: 2, ep, interconnect: "nvlink" },
    }, { store });
  const same = await on(2);
  assert.equal(same.predicate.parallelism.tp, 2);
  assert.equal(same.predicate.parallelism.ep, 2);
  await assertRejectsCode(() => on(3), InputError, "CLAIM_INVALID");
  await assert.rejects(() => on(3), /ep=3 with tp=2/);
});

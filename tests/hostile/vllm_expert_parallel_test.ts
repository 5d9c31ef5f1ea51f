/**
 * An expert-parallel size vLLM never runs with hides no lie (review h150): vLLM has no ep setting
 * of its own (`FusedMoEParallelConfig.make`: tp x dp with `--enable-expert-parallel`, else 1), so
 * a record on a vLLM stack stating another ep describes no run and FAILs, for a dense model as for
 * a MoE, honest fingerprint or falsified, before anything is said to be not modelled. It had been
 * NOT_VERIFIED for dense models (the rule ran only where a layer is a MoE block), which hid a
 * falsified fingerprint. HF stacks, which may add expert parallelism, keep their NOT_VERIFIED.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { _checkClaimedWorld, _claimedParallel } from "../../src/verify/_claimed_parallel.ts";
import { _Stop } from "../../src/verify/_stop.ts";
import { forwardSection } from "../verify/_serving_fixture.ts";
import { flipFingerprint, proverRun, store, verifyAlone } from "./_recompute_fixture.ts";
import { vllmServedScenario } from "./_vllm_served.ts";

const EAGER = "vllm-0.11-eager-fa2";
const run = await proverRun(vllmServedScenario({ logId: "vllm-ep", seed: "vllm-ep-v1" }, {
  prompt: 12,
  forward: {
    ...forwardSection(["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-moe"], {
      records: 2,
      lengths: [3, 6],
    }),
    stack: EAGER,
    components: { vllm: "0.11.0" },
  },
}));
const blobs = new Map(run.blobs);
/** The records: a dense and a MoE forward pass, and a dense served sequence, all on vLLM. */
const records = run.records.slice(1).map((r) => r.predicate);

/** Expert-parallel sizes no vLLM run has: each is neither 1 nor tp x dp. */
const NO_RUN = [
  { tp: 1, ep: 2 },
  { tp: 2, ep: 3 },
  { tp: 1, ep: 4096 },
] as const;

const edited = (p: ClaimPredicate, par: { tp: number; ep: number }): ClaimPredicate => ({
  ...p,
  hardware: { ...p.hardware, count: 8 },
  parallelism: { ...p.parallelism, ...par },
});

Deno.test("a vLLM record stating an ep other than 1 or tp x dp FAILs as contradicting its stack, dense or MoE, forward or served, honest or falsified", async () => {
  const kinds = records.map((p) => {
    const w = p.workload as { kind: string; model: { type: string } };
    return `${w.kind} ${w.model.type}`;
  });
  assert.deepEqual(kinds, ["model_forward qwen3", "model_forward qwen3_moe", "sequence qwen3"]);
  for (const [i, honest] of records.entries()) {
    // The records are ones the verifier replays: honest PASS, a flipped fingerprint FAILs.
    const pass = await verifyAlone(honest, blobs);
    assert.equal(pass.status, "PASS", `${kinds[i]}: ${pass.reason}`);
    assert.equal((await verifyAlone(flipFingerprint(honest), blobs)).status, "FAIL", kinds[i]);
    for (const par of NO_RUN) {
      for (const p of [honest, flipFingerprint(honest)]) {
        const r = await verifyAlone(edited(p, par), blobs);
        const what = `${kinds[i]} ${JSON.stringify(par)}`;
        assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
        assert.match(
          r.reason,
          new RegExp(
            `^record contradicts its stack '${p.software.stack}': ep=${par.ep} with ` +
              `tp=${par.tp} x dp=1: vLLM has no expert-parallel size of its own`,
          ),
          what,
        );
        assert.ok(!r.steps.some((s) => s.step === "recompute"), `${what}: nothing recomputed`);
      }
    }
  }
});

Deno.test("ep on an HF stack is still NOT_VERIFIED (not modelled), and ep = tp x dp on vLLM is no contradiction", async () => {
  const stack = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;
  const { profile: a100 } = await loadGpuProfile(store, "a100");
  const verdict = (p: ClaimPredicate, id: string) =>
    stack(id).then((s) => {
      try {
        _checkClaimedWorld(p, s, a100);
        _claimedParallel(p, s, a100);
      } catch (e) {
        if (e instanceof _Stop) return `${e.status}: ${e.why}`;
        throw e;
      }
      return "resolved";
    });
  const hfId = "hf-qwen3-flash-attn-torch2.8";
  const hf = await stack(hfId);
  const onHf = (par: { tp: number; ep: number }) => ({
    ...edited(records[0]!, par),
    software: { stack: hfId, components: hf.components },
  });
  assert.match(await verdict(onHf(NO_RUN[0]), hfId), /^NOT_VERIFIED: expert parallelism \(ep=2\)/);
  assert.match(
    await verdict(onHf({ tp: 2, ep: 3 }), hfId),
    /^NOT_VERIFIED: ep=3: HF Transformers 4\.5x tp_plan has no expert-parallel entries/,
  );
  assert.match(await verdict(onHf(NO_RUN[2]), hfId), /^NOT_VERIFIED: expert parallelism/);
  // vLLM: ep = tp splits the experts (modelled); ep = tp x dp over data-parallel ranks is not
  // modelled, but it is a run vLLM makes.
  const vllm = records[1]!;
  assert.equal(await verdict(edited(vllm, { tp: 2, ep: 2 }), EAGER), "resolved");
  const dp = { ...edited(vllm, { tp: 2, ep: 4 }) };
  const overDp = { ...dp, parallelism: { ...dp.parallelism, dp: 2 } };
  assert.match(await verdict(overDp, EAGER), /^NOT_VERIFIED: ep=4 with tp=2: .*data-parallel/);
});

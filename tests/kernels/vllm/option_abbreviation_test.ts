/**
 * vLLM 0.11's argument parser (`FlexibleArgumentParser`, argparse with `allow_abbrev` kept) reads
 * a unique prefix of an option as the option, and `arg_utils.py` gives
 * `--decode-context-parallel-size` the short alias `-dcp`: a stack that sets a setting this way
 * does not leave it at its default, so every reading that looks for the whole name says it is not
 * read (NOT_VERIFIED downstream) instead of taking the default.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  vllmKvBlock,
  vllmMaxNumSeqs,
  vllmOptionAbbreviation,
  vllmTokenBudget,
} from "../../../src/kernels/mod.ts";
import { vllmStackMaxModelLen } from "../../../src/model/mod.ts";

const vllm = (flags: string) => ({ components: { vllm: "0.11.0", flags } });

Deno.test("vllmOptionAbbreviation() finds a strict prefix of a named option, with _ read as -, and nothing else", () => {
  assert.deepEqual(vllmOptionAbbreviation(vllm("--max_num_seq=8"), ["max-num-seqs"]), {
    shown: "'--max_num_seq'",
    name: "max-num-seqs",
  });
  assert.equal(vllmOptionAbbreviation(vllm("--max-num-seqs 8"), ["max-num-seqs"]), null);
  assert.equal(vllmOptionAbbreviation(vllm("--max-model-len 8"), ["max-num-seqs"]), null);
  assert.equal(vllmOptionAbbreviation(vllm("--enforce-eager"), ["max-num-seqs"]), null);
  // A single dash is no long option; "-O" is the compilation config's alias.
  assert.equal(vllmOptionAbbreviation(vllm("-O '{}' -max-num 8"), ["max-num-seqs"]), null);
  assert.equal(vllmOptionAbbreviation({ components: { vllm: "0.11.0" } }, ["max-num-seqs"]), null);
});

Deno.test("an abbreviated --max-num-seqs, --max-num-batched-tokens or --block-size is not read: no default is assumed", () => {
  for (const flags of ["--max-num-seq 8", "--max_num_seq=8", "--max-num 8"]) {
    const r = vllmMaxNumSeqs(vllm(flags), "a100");
    assert.equal(r?.ok, false, flags);
    assert.match(r.ok ? "" : r.reason, /abbreviates --max-num-seqs/, flags);
  }
  assert.deepEqual(vllmMaxNumSeqs(vllm("--max-num-seqs 8"), "a100"), {
    ok: true,
    requests: 8,
    rule: "--max-num-seqs 8 pinned by the stack",
  });
  const budget = vllmTokenBudget(vllm("--max-num-batched 512"), { gpu: "a100", maxModelLen: 4096 });
  assert.equal(budget?.ok, false);
  assert.match(budget.ok ? "" : budget.reason, /abbreviates --max-num-batched-tokens/);
  const block = vllmKvBlock(vllm("--block 32"));
  assert.equal(block?.ok, false);
  assert.match(block.ok ? "" : block.reason, /abbreviates --block-size/);
  assert.equal(vllmKvBlock(vllm("--block-size 32"))?.ok, true);
});

Deno.test("decode context parallelism or a KV connector set by -dcp, -dc or an abbreviation gives no block size", () => {
  for (
    const [flags, setting] of [
      ["-dcp 2", "decode_context_parallel_size"],
      ["-dcp=2", "decode_context_parallel_size"],
      ["--enforce-eager -dc 2", "decode_context_parallel_size"],
      ["--decode-context-parallel 2", "decode_context_parallel_size"],
      ["--kv-transfer {}", "kv_transfer_config"],
    ]
  ) {
    const r = vllmKvBlock(vllm(flags!));
    assert.equal(r?.ok, false, flags);
    assert.match(
      r.ok ? "" : r.reason,
      new RegExp(`sets ${setting}, which changes the unit`),
      flags,
    );
  }
  // -dp is data parallelism, another option: the block is derived.
  assert.equal(vllmKvBlock(vllm("-dp 2"))?.ok, true);
});

Deno.test("an abbreviated --max-model-len or --hf-overrides leaves vLLM's max_model_len not derived", () => {
  const config = { maxPositionEmbeddings: 40960 };
  assert.equal(vllmStackMaxModelLen(config, vllm("--enforce-eager")).ok, true);
  for (const flags of ["--max-model 4096", "--max_model=4096", "--hf-over {}"]) {
    const r = vllmStackMaxModelLen(config, vllm(flags));
    assert.equal(r.ok, false, flags);
  }
});

Deno.test("an abbreviated chunking option (--long-prefill 64, --no-enable-chunked) leaves the token budget not derived", () => {
  for (const flags of ["--long-prefill 64", "--max-num-partial 2", "--no-enable-chunked"]) {
    const r = vllmTokenBudget(vllm(flags), { gpu: "a100", maxModelLen: 4096 });
    assert.equal(r?.ok, false, flags);
    assert.match(r.ok ? "" : r.reason, /changes where vLLM ends a prompt's chunk/, flags);
  }
  assert.equal(
    vllmTokenBudget(vllm("--enforce-eager"), { gpu: "a100", maxModelLen: 4096 })?.ok,
    true,
  );
});

/**
 * The model-forward command's outside inputs: the token batch (`tokens.json`), the checkpoint
 * folder and the thread count. Each is refused with its code before any output is written.
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileTable } from "./_hostile.ts";
import { REPO_ROOT } from "../cli/_run.ts";

const CKPT = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;

/** `model forward` over `tokens` (written verbatim into the case folder). */
const forward = (tokens: string, extra: string[] = []) => async (dir: string) => {
  await Deno.writeTextFile(`${dir}/tokens.json`, tokens);
  return [
    "model",
    "forward",
    "--checkpoint",
    CKPT,
    "--tokens",
    `${dir}/tokens.json`,
    "--profile",
    "a100",
    "--stack",
    "hf-qwen3-flash-attn-torch2.8",
    "--kernel",
    "demo-qwen3-tiny-a100",
    "--out",
    `${dir}/out.safetensors`,
    ...extra,
  ];
};

/** `model synth` of a config into `out`. */
const synth = (config: string, out: string) => [
  "model",
  "synth",
  "--config",
  config,
  "--seed",
  "1",
  "--out",
  out,
];

const cases: HostileCase[] = [
  {
    name: "a duplicate key in tokens.json is refused",
    args: forward('{"sequences":[[1,2]],"sequences":[[3]]}'),
    exit: 2,
    code: "INPUT_JSON",
  },
  {
    name: "a duplicate key of 1 MB in tokens.json is refused in a line of about 1000 characters",
    args: forward(`{"${"k".repeat(1 << 20)}":1,"${"k".repeat(1 << 20)}":2}`),
    exit: 2,
    code: "INPUT_JSON",
    check: (run) => {
      assert.ok(run.stderr.length < 1200, `${run.stderr.length} characters`);
      assert.match(run.stderr, /kkk\.\.\. \(\d+ more characters\)\n$/);
    },
  },
  {
    name: "a token id given as 8.0 is refused",
    args: forward('{"sequences":[[1,8.0]]}'),
    exit: 2,
    code: "INPUT_JSON",
  },
  {
    name: "an unknown field in tokens.json is refused",
    args: forward('{"sequences":[[1,2]],"extra":1}'),
    exit: 2,
    code: "TOKENS_INVALID",
  },
  {
    name: "a token id outside the vocabulary is refused",
    args: forward('{"sequences":[[1,999999999]]}'),
    exit: 2,
    code: "TOKENS_INVALID",
  },
  {
    name: "an empty batch is refused",
    args: forward('{"sequences":[]}'),
    exit: 2,
    code: "TOKENS_INVALID",
  },
  {
    name: "a BOM before tokens.json is refused",
    args: forward('\ufeff{"sequences":[[1,2]]}'),
    exit: 2,
    code: "INPUT_JSON",
  },
  ...["0", "100000", "0x2"].map((n): HostileCase => ({
    name: `a thread count of '${n}' is a usage error`,
    args: forward('{"sequences":[[1,2]]}', ["--threads", n]),
    exit: 2,
    code: "USAGE_NUMBER",
  })),
  {
    name: "a synthetic checkpoint of 10^6 shards is a usage error",
    args: (dir: string) => [
      "model",
      "synth",
      "--config",
      `${CKPT}/config.json`,
      "--seed",
      "1",
      "--shards",
      "1000000",
      "--out",
      `${dir}/ck`,
    ],
    exit: 2,
    code: "USAGE_NUMBER",
  },
  {
    name: "model synth refuses a config.json above the checkpoint reader's 1 MiB before writing",
    args: async (dir: string) => {
      const c = JSON.parse(await Deno.readTextFile(`${CKPT}/config.json`));
      await Deno.writeTextFile(
        `${dir}/big.json`,
        JSON.stringify({ ...c, _name_or_path: "x".repeat(1 << 20) }),
      );
      return synth(`${dir}/big.json`, `${dir}/ck`);
    },
    exit: 2,
    code: "CONFIG_READ",
  },
  ...([["1", "its safetensors header"], ["2", "model\\.safetensors\\.index\\.json"]] as const).map((
    [shards, what],
  ): HostileCase => ({
    name: `model synth refuses, before writing, a checkpoint of 10^6 tensors on ${shards} ` +
      "shard(s) whose header or index the reader would refuse",
    args: async (dir: string) => {
      const c = JSON.parse(
        await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-moe/config.json`),
      );
      // 971,477 tensors; the embedding of 2^38 elements makes a synth that skipped the check fail
      // at once (no memory for it) instead of writing terabytes.
      await Deno.writeTextFile(
        `${dir}/many.json`,
        JSON.stringify({
          ...c,
          num_experts: 4096,
          num_hidden_layers: 80,
          max_window_layers: 80,
          hidden_size: 1 << 16,
          vocab_size: 1 << 22,
        }),
      );
      return [...synth(`${dir}/many.json`, `${dir}/ck`), "--shards", shards];
    },
    exit: 2,
    code: "SYNTH_TOO_LARGE",
    check: (run) => assert.match(run.stderr, new RegExp(what)),
  })),
];

hostileTable("model forward inputs", cases);

/** `--shard i/n` (or `n` with JOB_COMPLETION_INDEX) read as every other integer flag is. */
import assert from "node:assert/strict";
import { MAX_SHARDS, parseShardFlag } from "../../src/cli/shard_flag.ts";
import { UsageError } from "../../src/errors.ts";

const env = (index?: string) => (name: string) =>
  name === "JOB_COMPLETION_INDEX" ? index : undefined;

Deno.test("parseShardFlag() takes i/n, and n with the job index", () => {
  assert.deepEqual(parseShardFlag("0/3", env()), { index: 0, count: 3 });
  assert.deepEqual(parseShardFlag("2/3", env()), { index: 2, count: 3 });
  assert.deepEqual(parseShardFlag("5", env("4")), { index: 4, count: 5 });
  assert.deepEqual(parseShardFlag(`1/${MAX_SHARDS}`, env()), { index: 1, count: MAX_SHARDS });
});

Deno.test("parseShardFlag() refuses leading zeros, counts past the bound with that reason, and indices past n", () => {
  const why = (text: string, index?: string) => {
    try {
      parseShardFlag(text, env(index));
    } catch (e) {
      assert.ok(e instanceof UsageError && e.code === "USAGE_SHARD", String(e));
      return e.message;
    }
    throw new Error(`accepted ${text}`);
  };
  assert.match(why("00/2"), /without leading zeros/);
  assert.match(why("01/3"), /without leading zeros/);
  assert.match(why("12345678/4"), /index 12345678 is not below n = 4/);
  assert.match(why("0/100000000"), /n must be in 1\.\.1000000/);
  assert.match(why(`0/${MAX_SHARDS + 1}`), /n must be in 1\.\.1000000/);
  assert.match(why("0/0"), /n must be in 1\.\./);
  assert.match(why("3/3"), /index 3 is not below n = 3/);
  assert.match(why("3", "01"), /JOB_COMPLETION_INDEX is not a shard index/);
  assert.match(why("3"), /JOB_COMPLETION_INDEX is not set/);
});

/**
 * drand chain info: a round given where the chain's info belongs is named as a round, with what
 * to give instead.
 */
import assert from "node:assert/strict";
import { parseDrandChainInfo } from "../../../src/attest/mod.ts";
import { InputError } from "../../../src/errors.ts";
import { runBitaudit } from "../../cli/_run.ts";
import { tempDir } from "../../_temp.ts";

const DRAND = new URL("../../../demo/drand/", import.meta.url).pathname;

Deno.test("parseDrandChainInfo() says a drand round is a round, not chain info", async () => {
  const round = await Deno.readTextFile(`${DRAND}quicknet-round-123.json`);
  const withRandomness = JSON.stringify({ round: 7, randomness: "ab", signature: "cd" });
  for (const [text, n] of [[round, "123"], [withRandomness, "7"]] as const) {
    assert.throws(() => parseDrandChainInfo(text), (e: unknown) => {
      assert.ok(e instanceof InputError && e.code === "BAD_BEACON", String(e));
      assert.match(e.message, new RegExp(`a drand round ${n}, not the chain's info: .*/info JSON`));
      return true;
    });
  }
  // The chain info itself still reads.
  const info = parseDrandChainInfo(await Deno.readTextFile(`${DRAND}quicknet-info.json`));
  assert.equal(info.beaconId, "quicknet");
});

Deno.test("key trust-root --drand given a round file says --drand takes the chain's info", async () => {
  const dir = await tempDir({ prefix: "bitaudit-drand-info-" });
  const pub = `${dir}/inspector.pub`;
  const gen = await runBitaudit(["key", "generate", "--out", `${dir}/inspector`]);
  assert.equal(gen.code, 0, gen.stderr);
  const out = await runBitaudit([
    ...["key", "trust-root", "--pub", pub, "--out", `${dir}/root.json`],
    ...["--drand", `${DRAND}quicknet-round-123.json`],
  ]);
  assert.equal(out.code, 2, out.stderr);
  assert.match(
    out.stderr,
    /^error \[BAD_BEACON\]: .*a drand round 123, not the chain's info: --drand/,
  );
  assert.doesNotMatch(out.stderr, /unknown field/);
});

/**
 * A result's build (version and manifest digest) as merge, serve and audit work hold it, and as
 * their refusals name it: the signed version is untrusted text, quoted and escaped.
 */
import assert from "node:assert/strict";
import { describeBuild, resultBuild, sameBuild } from "../../src/verify/result_build.ts";

Deno.test("a build with no manifest matches none, itself included", () => {
  const bare = resultBuild({ verifier: { version: "0.1.0" }, assets: {} });
  assert.deepEqual(bare, { version: "0.1.0", manifest: null });
  assert.equal(sameBuild(bare, bare), false);
  const b = { version: "0.1.0", manifest: "ab".repeat(32) };
  assert.equal(sameBuild(b, { ...b }), true);
  assert.equal(sameBuild(b, { ...b, version: "0.1.1" }), false);
});

Deno.test("describeBuild() quotes the signed version as other untrusted text is (a quote, a bidi override, a long run)", () => {
  assert.equal(
    describeBuild({ version: "0.1.0' \u202e", manifest: "0b".repeat(32) }),
    "version '0.1.0\\' \\u{202e}', manifest 0b0b0b0b0b0b0b0b…",
  );
  const long = describeBuild({ version: "9".repeat(100), manifest: null });
  assert.match(long, /^version '9{40}\.\.\. \(60 more characters\)', no manifest$/);
});

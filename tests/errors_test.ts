/** Coded errors: the code unions, the CLI's exit codes per code and the unknown-asset test. */
import assert from "node:assert/strict";
import { AssetError, InputError, isUnknownAsset, UsageError } from "../src/errors.ts";
import { EXIT, exitCodeOf } from "../src/cli/exit_codes.ts";
import { assertCode, isCode } from "./_assert_code.ts";

Deno.test("error classes carry their code, name and cause", () => {
  const cause = new Error("inner");
  const e = new InputError("LOG_EMPTY", "Cannot read log: empty", { cause });
  assert.equal(e.code, "LOG_EMPTY");
  assert.equal(e.name, "InputError");
  assert.equal(e.cause, cause);
  assert.equal(new UsageError("USAGE_PLAN", "x").name, "UsageError");
});

/** A call that throws `e`. */
const thrower = (e: Error) => () => {
  throw e;
};

Deno.test("assertCode() accepts only the codes of the class it is given", () => {
  const missing = thrower(new AssetError("MANIFEST_MISSING", "x"));
  assertCode(missing, AssetError, "MANIFEST_MISSING");
  assert.throws(() => assertCode(missing, AssetError, "MANIFEST_INVALID"));
  assert.throws(() =>
    assertCode(thrower(new InputError("LOG_EMPTY", "x")), AssetError, "MANIFEST_MISSING")
  );
  // A misspelt code, or a code of another class, does not type-check.
  // @ts-expect-error: not an AssetCode
  isCode(AssetError, "MANIFEST_MISING");
  // @ts-expect-error: an InputCode, not an AssetCode
  isCode(AssetError, "LOG_EMPTY");
  // @ts-expect-error: not an InputCode
  new InputError("NO_SUCH_CODE", "x");
});

Deno.test("exitCodeOf() gives 2 for a refused input or command line, as the CLI documents", () => {
  assert.equal(exitCodeOf(new AssetError("PROFILE_UNKNOWN", "x")), EXIT.USAGE);
  assert.equal(exitCodeOf(new AssetError("ASSET_FILE_INVALID", "x")), EXIT.USAGE);
  assert.equal(exitCodeOf(new InputError("VERDICT_FIELD_MISSING", "x")), EXIT.USAGE);
  assert.equal(exitCodeOf(new UsageError("USAGE_NUMBER", "x")), EXIT.USAGE);
  assert.equal(exitCodeOf({ host: "NOT_FOUND" }), EXIT.USAGE);
});

Deno.test("exitCodeOf() gives a tampered or missing asset of the install 5, never a usage error's 2", () => {
  assert.equal(EXIT.ASSET, 5);
  const install = [
    "ASSET_DIGEST_MISMATCH",
    "ASSET_INVALID", // a bundled asset whose manifest entry was changed with it (review h98)
    "ASSET_MISSING",
    "ASSET_NOT_LISTED",
    "ASSET_SIZE_MISMATCH",
    "MANIFEST_INVALID",
    "MANIFEST_MISSING",
    "SFU_TABLE_LAYOUT",
    "SFU_TABLE_LENGTH",
    "SFU_TABLE_MAGIC",
    "SFU_TABLE_TRUNCATED",
    "SFU_TABLE_VERSION",
  ] as const;
  for (const code of install) assert.equal(exitCodeOf(new AssetError(code, "x")), EXIT.ASSET, code);
});

Deno.test("exitCodeOf() gives a verdict of this release with other assets its own code, 6", () => {
  assert.equal(exitCodeOf(new InputError("VERDICT_ASSETS", "x")), EXIT.OTHER_ASSETS);
  assert.equal(EXIT.OTHER_ASSETS, 6);
  const codes = Object.values(EXIT);
  assert.equal(new Set(codes).size, codes.length, "every exit code is distinct");
});

Deno.test("isUnknownAsset() is true for unlisted ids only, never for tampered assets or inputs", () => {
  for (
    const code of ["PROFILE_UNKNOWN", "STACK_UNKNOWN", "CATALOG_UNKNOWN", "RECIPE_UNKNOWN"] as const
  ) {
    assert.ok(isUnknownAsset(new AssetError(code, "x")), code);
  }
  assert.ok(!isUnknownAsset(new AssetError("ASSET_DIGEST_MISMATCH", "x")));
  assert.ok(!isUnknownAsset(new InputError("VERDICT_FIELD_UNKNOWN", "x")));
  assert.ok(!isUnknownAsset(new Error("PROFILE_UNKNOWN")));
});

/**
 * `parseServingHistory()` refuses bytes that are not the history's exact RFC 8785 encoding with a
 * message naming the likely cause and how to write it.
 */
import assert from "node:assert/strict";
import { encodeServingHistory, parseServingHistory } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const PASSES = [{ entries: [{ query: 3, cached: 0 }], self: 0, rows: 3, logitsRows: 1 }];

Deno.test("parseServingHistory() says why bytes are not canonical (newline, spaces, key order) and how to write them", () => {
  const canon = new TextDecoder().decode(encodeServingHistory(PASSES));
  const cases: [string, RegExp][] = [
    [canon + "\n", /it ends in a newline/],
    [JSON.stringify(JSON.parse(canon), null, 1), /it holds spaces or newlines/],
    [
      `{"schema":"bitaudit.serving-history/v1","passes":${
        JSON.stringify(JSON.parse(canon).passes)
      }}`,
      /keys are not in sorted order/,
    ],
  ];
  // A UTF-8 byte-order mark (the decoder drops it, the bytes keep it); a CRLF ending (refused by
  // the strict parser first, with the same advice).
  cases.push(["\ufeff" + canon, /it begins with a UTF-8 byte-order mark/]);
  // Said before the content's checks, which the dropped mark would leave naming something else.
  for (const text of ["{}", '{"passes":[],"schema":"x"}', "[", ""]) {
    cases.push([
      "\ufeff" + text,
      /^Cannot read serving history: it begins with a UTF-8 byte-order mark;/,
    ]);
  }
  cases.push([canon + "\r\n", /not strict JSON: .*no byte-order mark and no newline at the end/]);
  for (const [text, cause] of cases) {
    assert.throws(() => parseServingHistory(new TextEncoder().encode(text)), (e) => {
      assert.ok(isCode(InputError, "HISTORY_INVALID")(e), (e as Error).message);
      assert.match((e as Error).message, cause);
      assert.match(
        (e as Error).message,
        /json\.dumps\(obj, sort_keys=True, separators=\(",", ":"\), ensure_ascii=False\)/,
      );
      return true;
    });
  }
  assert.deepEqual(parseServingHistory(new TextEncoder().encode(canon)), PASSES);
});

/**
 * `decodePem()` against RFC 7468 §3 (strict textual encoding): LF or CRLF line ends, blank lines
 * around the block and base64 lines up to 76 characters are read; any other character (a byte
 * order mark, a tab, a Unicode space, a lone carriage return) and a space at either end of a line
 * are refused with BAD_PEM naming the line and what was found, for private and public keys alike.
 */
import assert from "node:assert/strict";
import {
  decodePem,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  encodePem,
  encodePrivateKeyPem,
  encodePublicKeyPem,
} from "../../src/attest/mod.ts";
import { InputError } from "../../src/errors.ts";

const SEED = new Uint8Array(32).map((_, i) => i + 1);
const PRIV = encodePrivateKeyPem(SEED);
const PUB = encodePublicKeyPem(new Uint8Array(32).fill(7));

/** The BAD_PEM message `decode` throws for `text`. */
function refusal(decode: (text: string) => unknown, text: string): string {
  let message = "";
  assert.throws(() => decode(text), (e: unknown) => {
    assert.ok(e instanceof InputError && e.code === "BAD_PEM", String(e));
    message = e.message;
    return true;
  });
  return message;
}

Deno.test("decodePem() reads LF and CRLF line ends, blank lines around the block and lines of 64 or 76 characters", () => {
  const crlf = PRIV.replaceAll("\n", "\r\n");
  for (const text of [PRIV, crlf, `\n\n${PRIV}\n\n`, `\r\n${crlf}\r\n\r\n`, PRIV.trimEnd()]) {
    assert.deepEqual(decodePrivateKeyPem(text), SEED, JSON.stringify(text));
  }
  const der = new Uint8Array(114).map((_, i) => i);
  const b64 = encodePem("TEST", der).split("\n").slice(1, -2).join("");
  const wrapped = (n: number) =>
    `-----BEGIN TEST-----\n${b64.match(new RegExp(`.{1,${n}}`, "g"))!.join("\n")}\n` +
    "-----END TEST-----\n";
  assert.deepEqual(decodePem(wrapped(64), "TEST"), der);
  assert.deepEqual(decodePem(wrapped(76), "TEST"), der);
  refusal((t) => decodePem(t, "TEST"), wrapped(80));
});

Deno.test("decodePem() refuses a byte order mark or any whitespace but a line end, for private and public keys, naming the line and the code point", () => {
  const cases: [string, string, RegExp][] = [
    ["\ufeff", "", /line 1 holds U\+FEFF \(byte order mark\)/],
    ["\u00a0\u2028", "", /line 1 holds U\+00A0 \(no-break space\)/],
    ["", "\u3000", /line 4 holds U\+3000 \(ideographic space\)/],
    ["\u000b\u000c", "", /line 1 holds U\+000B \(vertical tab\)/],
    ["\f\n", "", /line 1 holds U\+000C \(form feed\)/],
    ["\t\n", "", /line 1 holds U\+0009 \(tab\)/],
    ["", "\u0000", /line 4 holds U\+0000 \(NUL\)/],
    ["  \n\n", "", /line 1 holds only spaces/],
    ["\n\u2003\n", "", /line 2 holds U\+2003 \(a space character\)/],
  ];
  for (const [before, after, why] of cases) {
    for (const [decode, pem] of [[decodePrivateKeyPem, PRIV], [decodePublicKeyPem, PUB]] as const) {
      const message = refusal(decode, `${before}${pem}${after}`);
      assert.match(message, why, JSON.stringify(before + after));
    }
  }
  // Inside the armor: the BOM after a line end, a lone carriage return, NBSP in the body.
  const lines = PRIV.split("\n");
  assert.match(
    refusal(decodePrivateKeyPem, `${lines[0]}\n\ufeff${lines.slice(1).join("\n")}`),
    /line 2 holds U\+FEFF/,
  );
  assert.match(refusal(decodePrivateKeyPem, PRIV.replaceAll("\n", "\r")), /line 1 holds U\+000D/);
  assert.match(
    refusal(decodePrivateKeyPem, PRIV.replace("MC4C", "MC4C\u00a0")),
    /line 2 holds U\+00A0/,
  );
});

Deno.test("decodePem() says which armor or body line starts or ends with a space", () => {
  const lines = PUB.trimEnd().split("\n");
  const spaced = (i: number, edit: (l: string) => string) =>
    lines.map((l, j) => j === i ? edit(l) : l).join("\n") + "\n";
  assert.match(refusal(decodePublicKeyPem, spaced(0, (l) => `${l} `)), /line 1 ends with a space/);
  assert.match(refusal(decodePublicKeyPem, spaced(1, (l) => ` ${l}`)), /line 2 starts with/);
  assert.match(refusal(decodePublicKeyPem, spaced(2, (l) => `${l}  `)), /line 3 ends with a space/);
});

Deno.test("decodePem() names another block with its article and what to do, says what surrounds or breaks the block, and that there is none", () => {
  const block = (label: string) =>
    `-----BEGIN ${label}-----\nMC4CAQAwBQYDK2VwBCIEICrB26cwlAOS5npPjdlLn5/LD8it1RJPxaPquZEBULcM\n` +
    `-----END ${label}-----\n`;
  const cases: [string, RegExp][] = [
    [
      block("ENCRYPTED PRIVATE KEY"),
      /it is an ENCRYPTED PRIVATE KEY block .*decrypt it with openssl pkey -in <file> -out <new file>/,
    ],
    [block("OPENSSH PRIVATE KEY"), /it is an OPENSSH PRIVATE KEY block .*bitaudit key generate/],
    [block("RSA PRIVATE KEY"), /it is an RSA PRIVATE KEY block, not an Ed25519 key/],
    [block("EC PRIVATE KEY"), /it is an EC PRIVATE KEY block, not an Ed25519 key/],
    [block("PUBLIC KEY"), /it is a PUBLIC KEY block \(a \.pub file\): give the private key/],
    [PRIV + PRIV, /it holds 2 PEM blocks, not one$/],
    [PRIV + encodePrivateKeyPem(new Uint8Array(32)), /it holds 2 PEM blocks, not one$/],
    [`Bag Attributes\n${PRIV}`, /line 1 is text before the BEGIN line$/],
    [`${PRIV}garbage\n`, /line 4 is text after the END line$/],
    [PRIV.replace("MC4C", "Proc-Type: 4,ENCRYPTED\n\nMC4C"), /line 2 is a header/],
    [PRIV.replace("MC4C", "\nMC4C"), /line 2 is blank, inside the block$/],
    [PRIV.replace("MC4C", "MC*C"), /line 2 is not base64$/],
    [
      PRIV.replace("BEGIN PRIVATE KEY", "BEGIN private key"),
      /line 1 is not the BEGIN line -----BEGIN PRIVATE KEY-----$/,
    ],
    [
      PRIV.replace("-----END PRIVATE KEY-----", "-----END PUBLIC KEY-----"),
      /line 3 is not the END/,
    ],
    [PRIV.split("\n").slice(0, 2).join("\n"), /it has no END line/],
    ["garbage", /it has no BEGIN line/],
    ["", /: it is empty$/],
    ["\n\r\n\n", /: it holds only blank lines$/],
  ];
  for (const [text, why] of cases) {
    assert.match(refusal(decodePrivateKeyPem, text), why, JSON.stringify(text));
  }
  // Read for a public key, a private key block gets no private key's advice.
  assert.match(refusal(decodePublicKeyPem, block("ENCRYPTED PRIVATE KEY")), /block$/);
});

/**
 * Issue 19, part 1: a commitment covers every byte. Claim lines, envelopes, trust roots and
 * scenario files with extra fields, duplicate keys, non-integer number forms, lone surrogates, a
 * byte-order mark or carriage returns are refused with a coded error (exit 2) instead of being
 * rebuilt from their known fields, so two different files can no longer share one commitment.
 */
import { type HostileCase, hostileTable, signedFixture } from "./_hostile.ts";
import { auditArgs } from "../cli/_audit_fixture.ts";

const fx = await signedFixture();
const log = await Deno.readTextFile(fx.log);

/** Writes the fixture's log with its first line passed through `edit`. */
async function editedLog(dir: string, edit: (line: string) => string): Promise<string> {
  const [first, ...rest] = log.split("\n");
  const path = `${dir}/claims.jsonl`;
  await Deno.writeTextFile(path, [edit(first!), ...rest].join("\n"));
  return path;
}

const LINE_EDITS: readonly [string, (line: string) => string][] = [
  ["an unknown top-level field", (l) => l.replace('{"_type"', '{"note":"x","_type"')],
  ["an unknown predicate field", (l) => l.replace('"predicate":{', '"predicate":{"x":1,')],
  ["an unknown field inside batch", (l) => l.replace('"batch":{', '"batch":{"x":1,')],
  ["an unknown workload field", (l) => l.replace('"kind":"gemm"', '"kind":"gemm","bias":"x"')],
  ["an unknown subject field", (l) => l.replace('"digest":{', '"note":"x","digest":{')],
  ["a duplicate key", (l) => l.replace('"batch":{"size":', '"batch":{"size":999,"size":')],
  ["8.0 for an integer", (l) => l.replace(/"batch":\{"size":(\d+)\}/, '"batch":{"size":$1.0}')],
  ["8e0 for an integer", (l) => l.replace(/"batch":\{"size":(\d+)\}/, '"batch":{"size":$1e0}')],
  ["-0 for an integer", (l) => l.replace(/"seq":0/, '"seq":-0')],
  ["an integer beyond 2^53", (l) => l.replace(/"count":\d+/, '"count":9007199254740993')],
  ["a lone surrogate", (l) => l.replace('"stack":"', '"stack":"\\ud800')],
  ["a byte-order mark", (l) => `\ufeff${l}`],
  ["a carriage return", (l) => `${l}\r`],
];

const logCases: HostileCase[] = LINE_EDITS.flatMap(([what, edit]): HostileCase[] => [
  {
    name: `claims root refuses a claim line with ${what}`,
    args: async (dir) => ["claims", "root", "--log", await editedLog(dir, edit)],
    exit: 2,
    code: "CLAIM_INVALID",
  },
  {
    name: `audit refuses a claim line with ${what} and writes nothing`,
    args: async (dir) => {
      const args = auditArgs({ ...fx, log: await editedLog(dir, edit) }, `${dir}/out`, 2);
      return [...args, "--blobs", `${fx.dir}/log/blobs`];
    },
    exit: 2,
    code: "CLAIM_INVALID",
  },
]);

const envelope = await Deno.readTextFile(fx.attestation);

async function editedFile(dir: string, name: string, text: string): Promise<string> {
  await Deno.writeTextFile(`${dir}/${name}`, text);
  return `${dir}/${name}`;
}

const checkArgs = async (dir: string, env: string, root?: string) => [
  "check",
  await editedFile(dir, "attestation.dsse.json", env),
  "--trust-root",
  root === undefined ? fx.trustRoot : await editedFile(dir, "trust-root.json", root),
];

const trustRoot = await Deno.readTextFile(fx.trustRoot);

const documentCases: HostileCase[] = [
  {
    name: "check refuses an envelope with a duplicate payload key",
    args: (dir) =>
      checkArgs(dir, envelope.replace('"payload": ', '"payload": "e30=", "payload": ')),
    exit: 2,
    code: "BAD_ENVELOPE",
  },
  {
    name: "check refuses an envelope with a byte-order mark",
    args: (dir) => checkArgs(dir, `\ufeff${envelope}`),
    exit: 2,
    code: "BAD_ENVELOPE",
  },
  {
    name: "check refuses an envelope with CRLF line ends",
    args: (dir) => checkArgs(dir, `${envelope.trim()}\r\n`),
    exit: 2,
    code: "BAD_ENVELOPE",
  },
  {
    name: "check refuses a trust root with a duplicate key",
    args: (dir) => checkArgs(dir, envelope, trustRoot.replace('"keys":', '"keys":[],"keys":')),
    exit: 2,
    code: "BAD_TRUST_ROOT",
  },
  {
    name: "check refuses a trust root with an unknown field inside a key",
    args: (dir) => checkArgs(dir, envelope, trustRoot.replace('"role":', '"roles":[],"role":')),
    exit: 2,
    code: "BAD_TRUST_ROOT",
  },
];

const scenario = await Deno.readTextFile(new URL("../../demo/scenario.json", import.meta.url));
const scenarioCases: HostileCase[] = [
  ["an unknown field in hardware", scenario.replace('"hardware": {', '"hardware": { "x": 1,')],
  ["a duplicate key", scenario.replace('"records": ', '"records": 1, "records": ')],
  ["8.0 for an integer", scenario.replace(/"records": (\d+)/, '"records": $1.0')],
].map(([what, text]) => ({
  name: `claims make refuses a scenario with ${what} and creates no output`,
  args: async (dir: string) => [
    "claims",
    "make",
    "--scenario",
    await editedFile(dir, "scenario.json", text!),
    "--out",
    `${dir}/out`,
  ],
  exit: 2,
}));

hostileTable("strict JSON", [...logCases, ...documentCases, ...scenarioCases]);

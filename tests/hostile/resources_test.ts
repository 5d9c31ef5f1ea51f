/**
 * Issue 19, part 2 (bounded resources) and the integer rules of part 6: sizes and counts from
 * inputs are checked before anything is allocated or started, integers are decimal only.
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileTable, signedFixture } from "./_hostile.ts";
import { auditArgs } from "../cli/_audit_fixture.ts";
import { encodeSafetensors } from "../../src/model/safetensors/encode_safetensors.ts";
import { MAX_THREADS } from "../../src/cli/parse_int_option.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import { MAX_RECORD_VALUES } from "../../src/claims/mod.ts";

const fx = await signedFixture();
const SCENARIO = new URL("../../demo/scenario.json", import.meta.url).pathname;

async function gemmInput(dir: string, rows: number): Promise<string> {
  const data = new Uint16Array(rows * 8).fill(0x3f80);
  await Deno.writeFile(
    `${dir}/in.safetensors`,
    encodeSafetensors([
      { name: "a", dtype: "BF16", shape: [rows, 8], data },
      { name: "b", dtype: "BF16", shape: [rows, 8], data },
    ]),
  );
  return `${dir}/in.safetensors`;
}

/** A gemm input of 'a' and 'b' [2,8] whose header carries more than its two operands need. */
async function gemmHeavyInput(dir: string, heavy: "flood" | "tensors"): Promise<string> {
  const op = (at: number) => `{"dtype":"BF16","shape":[2,8],"data_offsets":[${at},${at + 32}]`;
  // 'flood': 5,000 values in a field the format does not define; 'tensors': 200 empty tensors.
  const rest = heavy === "flood"
    ? `${op(0)},"x":[${"{},".repeat(4999)}{}]},"b":${op(32)}}`
    : `${op(0)}},"b":${op(32)}}` +
      Array.from({ length: 200 }, (_, i) =>
        `,"z${i}":{"dtype":"BF16","shape":[0],` +
        `"data_offsets":[64,64]}`).join("");
  const header = new TextEncoder().encode(`{"a":${rest}}`);
  const file = new Uint8Array(8 + header.length + 64);
  new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
  file.set(header, 8);
  await Deno.writeFile(`${dir}/in.safetensors`, file);
  return `${dir}/in.safetensors`;
}

const gemmArgs = (input: string, dir: string, extra: string[] = []) => [
  "gemm",
  "--profile",
  "a100",
  "--recipe",
  "cublas-single-walk",
  "--in",
  input,
  "--out",
  `${dir}/out.safetensors`,
  "--threads",
  "1",
  ...extra,
];

const gemm = (rows: number, extra: string[] = []) => async (dir: string) =>
  gemmArgs(await gemmInput(dir, rows), dir, extra);

const usage = (name: string, args: string[], code: CliErrorCode = "USAGE_NUMBER"): HostileCase => ({
  name,
  args: (dir) => args.map((a) => a.replace("$DIR", dir)),
  exit: 2,
  code,
});

hostileTable("resources", [
  {
    name: "gemm refuses a 40000x40000 output of a 1.3 MB input before allocating",
    args: gemm(40000),
    exit: 2,
    code: "GEMM_TOO_LARGE",
  },
  {
    name: "gemm refuses a 100000x100000 output before allocating",
    args: gemm(100000),
    exit: 2,
    code: "GEMM_TOO_LARGE",
  },
  {
    name: "gemm stops the header's parse at 5,000 values in a field the format does not define",
    args: async (dir) => gemmArgs(await gemmHeavyInput(dir, "flood"), dir),
    exit: 2,
    code: "SAFETENSORS_HEADER_TOO_LARGE",
  },
  {
    name: "gemm refuses an input describing 202 tensors (it reads 'a' and 'b')",
    args: async (dir) => gemmArgs(await gemmHeavyInput(dir, "tensors"), dir),
    exit: 2,
    code: "SAFETENSORS_HEADER_TOO_LARGE",
  },
  {
    name: "gemm runs a small product, and --max-output-mib bounds it",
    args: gemm(64, ["--max-output-mib", "1"]),
    exit: 0,
    writes: true,
    check: async (_run, dir) => assert.ok((await Deno.stat(`${dir}/out.safetensors`)).size > 0),
  },
  usage("audit refuses --threads 1000", [
    ...auditArgs(fx, "$DIR/out", 2),
    "--threads",
    String(Math.max(1000, MAX_THREADS + 1)),
  ]),
  ...["0", "-4", "abc", "1.0", "0x2", " 1"].map((t) =>
    usage(`claims make refuses --threads '${t}'`, [
      "claims",
      "make",
      "--scenario",
      SCENARIO,
      "--out",
      "$DIR/out",
      "--threads",
      t,
    ])
  ),
  ...["0x1", " 1", "1e0", "+1", "0"].map((t) =>
    usage(`check refuses --threshold '${t}'`, [
      "check",
      fx.attestation,
      "--trust-root",
      fx.trustRoot,
      "--threshold",
      t,
    ])
  ),
  usage("plan refuses a population written as 1e12 (decimal integers only)", [
    "plan",
    "--population",
    "1e12",
    "--p-false",
    "1e-7",
    "--confidence",
    "0.99",
  ]),
  {
    name: "plan sizes a sample for a population of 2^53 - 1 without scanning it",
    args: () => [
      "plan",
      "--population",
      String(2 ** 53 - 1),
      "--p-false",
      "1e-7",
      "--confidence",
      "0.99",
      "--json",
    ],
    exit: 0,
    check: (run) => {
      const r = JSON.parse(run.stdout);
      assert.ok(r.kHypergeometric > 0 && r.kHypergeometric <= r.kBinomial);
    },
  },
  {
    name: "claims root refuses a record of more than 2^20 JSON values (its log well under 256 MiB)",
    args: async (dir) => {
      // A workload of a kind this version keeps verbatim: one zero over the values limit.
      const zeros = Array(MAX_RECORD_VALUES).fill("0").join(",");
      const line = `{"_type":"x","subject":[],"predicateType":"x","predicate":{"workload":` +
        `{"kind":"future","values":[${zeros}]}}}\n`;
      await Deno.writeTextFile(`${dir}/claims.jsonl`, line);
      return ["claims", "root", "--log", `${dir}/claims.jsonl`];
    },
    exit: 2,
    code: "CLAIM_INVALID",
    check: (run) => assert.match(run.stderr, /more than 1048576 values/),
  },
  usage("audit refuses --k 0x10", [
    ...auditArgs(fx, "$DIR/out", 2).slice(0, -6),
    "--k",
    "0x10",
    "--key",
    fx.key,
    "--out",
    "$DIR/out",
  ]),
]);

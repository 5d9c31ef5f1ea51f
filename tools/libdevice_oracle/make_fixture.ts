/**
 * Writes tests/kernels/math/fixtures/libdevice_oracle_sample.json from the libdevice CPU oracle
 * (build it first with build.sh). Usage:
 *   deno run --allow-read --allow-write --allow-run tools/libdevice_oracle/make_fixture.ts
 * The MUFU-executing functions read the SFU ROM asset, handed over after its digest check.
 *
 * @module
 */
import { checkedSfuTablesPath } from "./checked_sfu_tables_path.ts";
import { runOracle } from "./run_oracle.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ORACLE = `${ROOT}.build/libdevice_oracle/libdevice_oracle`;
const SPECIAL = [
  0,
  0x80000000,
  1,
  0x80000001,
  0x007fffff,
  0x00800000,
  0x3f800000,
  0xbf800000,
  0x7f7fffff,
  0xff7fffff,
  0x7f800000,
  0xff800000,
  0x7fc00000,
  0x40490fdb,
  0x47ce4780,
  0x47ce477f,
  0x4b800000,
];

const env = { SFU_TABLES: await checkedSfuTablesPath() };

const run = (fn: string, records: Uint32Array) => runOracle(ORACLE, fn, records, env);

const hex = (x: number) => x.toString(16).padStart(8, "0");
const unary: number[] = [...SPECIAL];
for (let i = 0; i < 2048; i++) unary.push(Math.imul(i, 0x9e3779b1) >>> 0); // golden-ratio stride
// Inputs of the MUFU-executing functions: the specials, 256 of the uniform patterns, and 1024
// where the MUFU instructions decide the result: |x| in [2^-24, 2^8) (biased exponents 103-134)
// and a few exponents 0-1 (subnormal scaling of rsqrt.approx.f32), both signs.
const mufuInputs: number[] = unary.slice(0, SPECIAL.length + 256);
for (let i = 0; i < 1024; i++) {
  const h = Math.imul(i + 0x51ed, 0x9e3779b1) >>> 0;
  const e = 103 + (h >>> 9) % 34;
  mufuInputs.push(
    ((h & 0x80000000) | ((e >= 135 ? e - 135 : e) << 23) | (h >>> 1 & 0x7fffff)) >>> 0,
  );
}
const triples: number[] = [];
let s = 0x2545f491;
const next = () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0);
for (let i = 0; i < 512; i++) {
  const a = next(), b = next();
  // c near -a*b half the time: cancellation and halfway cases
  const c = i % 2 === 0 ? next() : (((a ^ b) & 0x80000000) ^ 0x80000000 | (next() & 0x7fffff) |
    Math.min(254, Math.max(0, ((a >>> 23) & 0xff) + ((b >>> 23) & 0xff) - 127)) << 23) >>> 0;
  triples.push(a, b, c);
}
const fixture: Record<string, unknown> = {
  producer: "tools/libdevice_oracle/make_fixture.ts",
  unary: unary.map(hex),
  mufu_inputs: mufuInputs.map(hex),
  triples: triples.map(hex),
};
for (const fn of ["sinf", "cosf", "logf", "saturatef", "fsqrt_rn", "float2int_rn"]) {
  fixture[fn] = [...await run(fn, new Uint32Array(unary))].map(hex);
}
for (const fn of ["fmaf_rn", "fmaf_rz", "fmaf_ru", "fmaf_rd"]) {
  fixture[fn] = [...await run(fn, new Uint32Array(triples))].map(hex);
}
const MUFU = ["expf", "exp2f", "rsqrtf", "tanhf"];
const RAW = ["mufu_ex2", "mufu_rcp", "mufu_rsqrt", "ex2_approx", "rsqrt_approx"];
for (const fn of [...MUFU, ...RAW]) {
  fixture[fn] = [...await run(fn, new Uint32Array(mufuInputs))].map(hex);
}
const pairs = new Uint32Array(triples.filter((_, i) => i % 3 !== 2));
for (const fn of ["fadd_rd", "fmul_ru", "fdiv_rn", "fdiv_rz"]) {
  fixture[fn] = [...await run(fn, pairs)].map(hex);
}
const path = `${ROOT}tests/kernels/math/fixtures/libdevice_oracle_sample.json`;
Deno.mkdirSync(`${ROOT}tests/kernels/math/fixtures`, { recursive: true });
Deno.writeTextFileSync(path, JSON.stringify(fixture) + "\n");
console.log(path);

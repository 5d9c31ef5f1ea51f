/**
 * Writes tests/kernels/math/fixtures/libdevice_oracle_sample.json from the libdevice CPU oracle
 * (build it first with build.sh). Usage:
 *   deno run --allow-read --allow-write --allow-run tools/libdevice_oracle/make_fixture.ts
 *
 * @module
 */
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

async function run(fn: string, records: Uint32Array): Promise<Uint32Array> {
  const child = new Deno.Command(ORACLE, { args: [fn, "stdin"], stdin: "piped", stdout: "piped" })
    .spawn();
  const w = child.stdin.getWriter();
  const done = w.write(new Uint8Array(records.buffer)).then(() => w.close());
  const out = await child.output();
  await done;
  return new Uint32Array(out.stdout.slice().buffer);
}

const hex = (x: number) => x.toString(16).padStart(8, "0");
const unary: number[] = [...SPECIAL];
for (let i = 0; i < 2048; i++) unary.push(Math.imul(i, 0x9e3779b1) >>> 0); // golden-ratio stride
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
  triples: triples.map(hex),
};
for (const fn of ["sinf", "cosf", "logf", "saturatef", "fsqrt_rn", "float2int_rn"]) {
  fixture[fn] = [...await run(fn, new Uint32Array(unary))].map(hex);
}
for (const fn of ["fmaf_rn", "fmaf_rz", "fmaf_ru", "fmaf_rd"]) {
  fixture[fn] = [...await run(fn, new Uint32Array(triples))].map(hex);
}
const pairs = new Uint32Array(triples.filter((_, i) => i % 3 !== 2));
for (const fn of ["fadd_rd", "fmul_ru", "fdiv_rn", "fdiv_rz"]) {
  fixture[fn] = [...await run(fn, pairs)].map(hex);
}
const path = `${ROOT}tests/kernels/math/fixtures/libdevice_oracle_sample.json`;
Deno.mkdirSync(`${ROOT}tests/kernels/math/fixtures`, { recursive: true });
Deno.writeTextFileSync(path, JSON.stringify(fixture) + "\n");
console.log(path);

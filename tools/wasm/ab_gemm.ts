/**
 * Paired A/B of two GEMM engine modules: both loaded in one process and timed alternately on the
 * same bf16 -> fp32 K-walk (the calling thread alone), for kernel experiments. A pair runs A then
 * B, the next B then A, so that neither always runs second; each pair gives the ratio A / B of the
 * process CPU time (`process.cpuUsage`: on a shared host the waits between time slices do not
 * count, so the ratio holds under load; the engine runs on the calling thread, the runtime's
 * background threads are idle meanwhile) and of the wall time. It prints the medians with their
 * spread, the load average at the start and the end, and how many outputs of the two modules
 * differ (a kernel change that keeps the bits shows 0). The operands are deterministic bf16
 * normals with exponents -9..2 (a fixed linear congruential sequence).
 *
 * Usage: `deno run -A tools/wasm/ab_gemm.ts A.wasm B.wasm [MxNxK] [gpu profile] [pairs]` (defaults
 * 250x2560x2560, a100, 12): a ratio above 1 means B is faster.
 *
 * @module
 */
import process from "node:process";
import { createGemmEngine } from "../../src/engine/mod.ts";
import { findDatapath, parseGpuProfile } from "../../src/hardware/mod.ts";

const [fileA, fileB, shape = "250x2560x2560", gpu = "a100", pairsText = "12"] = Deno.args;
if (fileA === undefined || fileB === undefined) {
  console.error("usage: ab_gemm.ts A.wasm B.wasm [MxNxK] [gpu profile] [pairs]");
  Deno.exit(2);
}
const dims = shape.split("x").map(Number);
const pairs = Number(pairsText);
if (
  dims.length !== 3 || !dims.every((v) => Number.isSafeInteger(v) && v >= 1 && v <= 65536) ||
  dims[0]! * dims[2]! > 2 ** 27 || dims[1]! * dims[2]! > 2 ** 27 ||
  !Number.isSafeInteger(pairs) || pairs < 1 || pairs > 1000 || !/^[a-z0-9-]{1,40}$/.test(gpu)
) {
  console.error(
    "ab_gemm: expected MxNxK (each 1..65536, M x K and N x K at most 2^27), a profile name and " +
      "1..1000 pairs",
  );
  Deno.exit(2);
}
const [m, n, k] = dims as [number, number, number];
const root = new URL("../../", import.meta.url);
const profile = parseGpuProfile(
  JSON.parse(await Deno.readTextFile(new URL(`profiles/gpu/${gpu}.json`, root))),
);
const dp = findDatapath(profile, { input: "bf16", output: "fp32" });
if (dp === undefined) {
  console.error(`ab_gemm: profile '${gpu}' has no bf16 -> fp32 datapath`);
  Deno.exit(2);
}
const engines = [fileA, fileB].map(async (f) => createGemmEngine(await Deno.readFile(f)));
const [engineA, engineB] = await Promise.all(engines);

let seed = 12345;
/** The next deterministic bf16 normal (sign, exponent 118..129, fraction). */
function nextBf16(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return ((seed >>> 31) << 15) | ((118 + ((seed >>> 8) % 12)) << 7) | (seed & 0x7f);
}
const job = {
  a: new Uint16Array(m * k).map(nextBf16),
  b: new Uint16Array(n * k).map(nextBf16),
  m,
  n,
  k,
};

const outA = engineA!.kWalk(dp, job);
const outB = engineB!.kWalk(dp, job);
let differing = 0;
for (let i = 0; i < outA.length; i++) if (outA[i] !== outB[i]) differing++;

/** Process CPU milliseconds (user and system) so far. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU and wall milliseconds of one K-walk. */
const timed = (engine: typeof engineA) => {
  const c0 = cpu(), w0 = performance.now();
  engine!.kWalk(dp, job);
  return [cpu() - c0, performance.now() - w0] as const;
};
const load = () => Deno.loadavg().map((v) => v.toFixed(2)).join(" ");
console.log(`ab_gemm ${shape} ${gpu}, ${pairs} pairs, load average at start: ${load()}`);
const cpuRatios: number[] = [], wallRatios: number[] = [], cpuA: number[] = [], cpuB: number[] = [];
for (let p = 0; p < pairs; p++) {
  let a: readonly [number, number], b: readonly [number, number];
  if (p % 2 === 0) {
    a = timed(engineA);
    b = timed(engineB);
  } else {
    b = timed(engineB);
    a = timed(engineA);
  }
  cpuA.push(a[0]);
  cpuB.push(b[0]);
  cpuRatios.push(a[0] / b[0]);
  wallRatios.push(a[1] / b[1]);
}
const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!;
const spread = (v: number[]) => `${Math.min(...v).toFixed(3)}-${Math.max(...v).toFixed(3)}`;
console.log(
  `CPU time: A ${median(cpuA).toFixed(0)} ms, B ${median(cpuB).toFixed(0)} ms, ` +
    `A / B ${median(cpuRatios).toFixed(3)} (${spread(cpuRatios)})`,
);
console.log(`wall time: A / B ${median(wallRatios).toFixed(3)} (${spread(wallRatios)})`);
console.log(`outputs differing: ${differing} of ${outA.length}`);
console.log(`load average at end: ${load()}`);

/**
 * Writes tests/kernels/math/fixtures/sleef_powf_sample.bin from the SLEEF library's own `powf`
 * (u10): little-endian uint32 triples (x, y, SLEEF's result), first the RoPE grid, then every pair
 * of special operands, then 60,000 pseudo-random pairs and 40,000 pairs whose power lies near an
 * FP32 rounding midpoint, half within 2^-7 ulp and half within 2^-12 ulp (inputs.ts). All four entry points
 * (AVX2, AVX-512F, and the 8- and 16-lane dispatchers) must agree on every pair, or nothing is
 * written. Build the oracle first (build.sh). Usage, from the repository root:
 *   deno run --allow-read --allow-write --allow-run --allow-env tools/sleef_oracle/make_fixture.ts
 *
 * @module
 */
import { hardPairs, randomPairs, ropeGrid, specialPairs } from "./inputs.ts";
import { oracleInfo, sleefPowf, VARIANTS } from "./run_oracle.ts";

const OUT = new URL("../../tests/kernels/math/fixtures/sleef_powf_sample.bin", import.meta.url);
const RANDOM = 60_000;
const HARD = 40_000;
const SEED = 0x51eef;

const grid = ropeGrid();
const specials = specialPairs();
const head = grid.length + specials.length;
const pairs = new Uint32Array(2 * (head + RANDOM + HARD));
pairs.set([...grid, ...specials].flat());
pairs.set(randomPairs(SEED, RANDOM), 2 * head);
pairs.set(hardPairs(SEED + 1, HARD / 2, 2 ** -7), 2 * (head + RANDOM));
pairs.set(hardPairs(SEED + 2, HARD / 2, 2 ** -12), 2 * (head + RANDOM + HARD / 2));
const n = pairs.length / 2;

const results = await Promise.all(VARIANTS.map((v) => sleefPowf(v, pairs)));
const ref = results[0]!;
for (const [k, r] of results.entries()) {
  const bad = r.findIndex((x, i) => x !== ref[i]);
  if (bad >= 0) throw new Error(`SLEEF ${VARIANTS[k]} differs from avx2 at pair ${bad}`);
}
const triples = new Uint32Array(3 * n);
for (let i = 0; i < n; i++) triples.set([pairs[2 * i]!, pairs[2 * i + 1]!, ref[i]!], 3 * i);
await Deno.writeFile(OUT, new Uint8Array(triples.buffer));
console.log(oracleInfo());
console.log(
  `${n} triples (${grid.length} RoPE grid, ${specials.length} special, ${RANDOM} random, ` +
    `${HARD} near a midpoint (2^-7, 2^-12 ulp), seed 0x${SEED.toString(16)}); ${
      VARIANTS.join(", ")
    } agree -> ${OUT.pathname}`,
);

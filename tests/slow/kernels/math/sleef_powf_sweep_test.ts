/**
 * Slow suite: `sleefPowfU10` against the SLEEF library's own `powf` (u10), through the oracle of
 * tools/sleef_oracle (built by build.sh from a built SLEEF: set SLEEF_DIR, or SLEEF_ORACLE to a
 * built oracle; without either the suite is skipped). Every entry point the CPU has (AVX2,
 * AVX-512F, the 8- and 16-lane dispatchers) on: the RoPE grid of 40 bases x every even head
 * dimension 2..1024, and `BITAUDIT_SLEEF_PAIRS` (default 4,000,000) pseudo-random pairs of the four
 * classes of inputs.ts (seed `BITAUDIT_SLEEF_SEED`, default 1).
 */
import assert from "node:assert/strict";
import { sleefPowfU10 } from "../../../../src/kernels/math/mod.ts";
import { bitsFromF32 } from "../../../../src/numerics/mod.ts";
import { randomPairs } from "../../../../tools/sleef_oracle/inputs.ts";
import { SLEEF_ORACLE, sleefPowf, VARIANTS } from "../../../../tools/sleef_oracle/run_oracle.ts";

const ROOT = new URL("../../../../", import.meta.url).pathname;
const PAIRS = Number(Deno.env.get("BITAUDIT_SLEEF_PAIRS") ?? 4_000_000);
const SEED = Number(Deno.env.get("BITAUDIT_SLEEF_SEED") ?? 1);

function oracleReady(): boolean {
  try {
    Deno.statSync(SLEEF_ORACLE);
    return true;
  } catch {
    const dir = Deno.env.get("SLEEF_DIR");
    if (dir === undefined) return false;
    const r = new Deno.Command("bash", {
      args: [`${ROOT}tools/sleef_oracle/build.sh`],
      env: { SLEEF_DIR: dir },
    }).outputSync();
    if (!r.success) {
      throw new Error(`Cannot build the SLEEF oracle: ${new TextDecoder().decode(r.stderr)}`);
    }
    return true;
  }
}

function supported(variant: string): boolean {
  const r = new Deno.Command(SLEEF_ORACLE, { args: [variant], stdin: "null" }).outputSync();
  return r.success;
}

/** theta = 40 bases from 1e3 to 1e9 (log-spaced, rounded to 3 digits) x every even d <= 1024. */
function wideRopeGrid(): Uint32Array {
  const out: number[] = [];
  for (let k = 0; k < 40; k++) {
    const theta = Number((10 ** (3 + (6 * k) / 39)).toPrecision(3));
    for (let d = 2; d <= 1024; d += 2) {
      for (let i = 0; i < d / 2; i++) {
        out.push(bitsFromF32(theta), bitsFromF32(Math.fround(2 * i) / d));
      }
    }
  }
  return Uint32Array.from(out);
}

const READY = oracleReady();
if (!READY) {
  console.log("sleef_powf_sweep: no SLEEF oracle (set SLEEF_DIR or SLEEF_ORACLE); skipped");
}

for (
  const [label, make] of [
    ["the wide RoPE grid", wideRopeGrid],
    [`${PAIRS} random pairs (seed ${SEED})`, () => randomPairs(SEED, PAIRS)],
  ] as const
) {
  Deno.test({
    name: `\`sleefPowfU10()\` matches SLEEF's powf on ${label}, every entry point`,
    ignore: !READY,
    fn: async () => {
      const pairs = make();
      const n = pairs.length / 2;
      const ours = new Uint32Array(n);
      for (let i = 0; i < n; i++) ours[i] = sleefPowfU10(pairs[2 * i]!, pairs[2 * i + 1]!);
      for (const v of VARIANTS.filter(supported)) {
        const lib = await sleefPowf(v, pairs);
        let bad = 0;
        const first: string[] = [];
        for (let i = 0; i < n; i++) {
          if (lib[i] !== ours[i] && bad++ < 5) {
            first.push(`${pairs[2 * i]!.toString(16)} ${pairs[2 * i + 1]!.toString(16)}`);
          }
        }
        console.log(`${v}: ${n} pairs, ${bad} mismatches`);
        assert.deepEqual({ bad, first }, { bad: 0, first: [] }, v);
      }
    },
  });
}

/**
 * `bitaudit demo`: the main job on bundled data.
 *
 * A simulated prover turns `demo/scenario.json` (a small transformer's projection GEMMs at varied
 * batch sizes on an A100, a handful of records falsified) into a committed claim log; a
 * throw-away inspector key audits a sample chosen by fixed public randomness, signs the verdict,
 * and the attestation is then checked offline as a third party would. Finally the bundled
 * GPU-measured tensor-core vectors are re-checked.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { detectionHypergeometric, type RecordResult } from "../../verify/mod.ts";
import type { ClaimRecord } from "../../claims/mod.ts";
import { EXIT } from "../exit_codes.ts";
import { prepareOutputDir } from "../load_inputs.ts";
import { printJson } from "../output.ts";
import { printVectorTable, runBundledVectors } from "../bundled_vectors.ts";
import { auditLog } from "./audit.ts";
import { checkFile } from "./check.ts";
import { runProver } from "./claims.ts";
import { generateKeys } from "./key.ts";
import { buildTrustRoot, decodePublicKeyPem } from "../../attest/mod.ts";
import { writeNewFile } from "../write_new_file.ts";

const SCENARIO = new URL("../../../demo/scenario.json", import.meta.url).pathname;
/** Public randomness of the demo audit: SHA-256("bitaudit demo beacon, round 1"); not a real beacon. */
const DEMO_RANDOMNESS = "6a0c2bd4f1c4a2f1f1c2f6f5ce1ea8b63a31e2a8c4b1d8b1a8e0f95bb0b7a3c1";
const DEMO_ROUND = 1;
const DEMO_K = 120;

/**
 * Builds the `demo` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { demoCommand } from "./demo.ts";
 * if (demoCommand().name() !== "demo") throw new Error();
 * ```
 */
export function demoCommand(): Command {
  return new Command("demo")
    .description(
      "end to end on bundled data: simulated prover -> committed log -> sampled audit -> signed attestation -> offline check; plus the measured tensor-core vectors",
    )
    .option(
      "--out <dir>",
      "keep claims.jsonl, blobs/, inspector.pub, trust-root.json, attestation.dsse.json and report.md here (default: a temporary folder)",
    )
    .option("--k <k>", "records to sample", String(DEMO_K))
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const out = opts.out ?? await Deno.makeTempDir({ prefix: "bitaudit-demo-" });
      const say = (s: string) => opts.json || console.log(s);
      await prepareOutputDir(out, [
        "claims.jsonl",
        "blobs",
        "inspector.pub",
        "trust-root.json",
        "attestation.dsse.json",
        "report.md",
      ]);
      say(`bitaudit demo -> ${out}\n`);
      say(
        "1. prover: running demo/scenario.json through the emulator (A100 profile: projection GEMMs through the demo dispatch catalog, then attention and FFN blocks)",
      );
      const prover = await runProver(SCENARIO, { out, progress: !opts.json });
      const falsified = prover.output.falsified;
      say(`   ${prover.output.records.length} records committed, log root ${prover.root}`);
      say("2. inspector: throw-away Ed25519 key and trust root");
      const keyDir = await Deno.makeTempDir({ prefix: "bitaudit-key-" });
      try {
        const keys = await generateKeys(`${keyDir}/inspector`);
        const pem = await Deno.readTextFile(keys.publicKey);
        await writeNewFile(`${out}/inspector.pub`, pem);
        const pub = decodePublicKeyPem(pem);
        const trustRoot = buildTrustRoot([pub], { start: "2026-01-01T00:00:00Z" });
        await writeNewFile(`${out}/trust-root.json`, JSON.stringify(trustRoot, null, 2) + "\n");
        say(`   keyid ${keys.keyid}`);
        say(`3. audit: k = ${opts.k} records drawn with randomness round ${DEMO_ROUND}`);
        const audit = await auditLog({
          log: `${out}/claims.jsonl`,
          randomness: DEMO_RANDOMNESS,
          round: String(DEMO_ROUND),
          k: opts.k,
          keys: [keys.privateKey],
          out,
          progress: !opts.json,
        });
        const r = audit.report;
        const failedIdx = new Set(r.results.filter((x) => x.status === "FAIL").map((x) => x.index));
        const sampled = new Set(r.selected);
        const caught = falsified.filter((f) => failedIdx.has(f.seq));
        const missed = falsified.filter((f) => !sampled.has(f.seq));
        // Sampled falsifications whose recomputation matched bit for bit are numerically
        // indistinguishable from honest records at the fingerprint: reported, not hidden.
        const indistinguishable = falsified.filter((f) =>
          sampled.has(f.seq) && !failedIdx.has(f.seq)
        );
        const wrongFail = [...failedIdx].filter((i) => !falsified.some((f) => f.seq === i));
        const pCatch = detectionHypergeometric(r.population, {
          falseCount: falsified.length,
          k: r.selected.length,
        });
        say(
          "4. third-party check of the attestation (offline, against the trust root and the log)",
        );
        const check = await checkFile({
          attestation: audit.attestation,
          trustRoot: `${out}/trust-root.json`,
          log: `${out}/claims.jsonl`,
        });
        say(
          `   ${check.valid ? "VALID" : "INVALID"}: ${
            check.checks.filter((c) => c.ok).length
          }/${check.checks.length} checks`,
        );
        say("5. measured tensor-core vectors (Khattak & Mikaitis; A100, L40S, H100)");
        const rows = await runBundledVectors();
        const matched = rows.reduce((s, x) => s + x.matched, 0);
        const total = rows.reduce((s, x) => s + x.total, 0);
        if (!opts.json) printVectorTable(rows, matched === total);
        say("");
        const summary = {
          out,
          verdict: r.verdict,
          sampled: r.selected.length,
          population: r.population,
          falsified,
          caught: caught.map((f) => ({
            ...f,
            reason: r.results.find((x) => x.index === f.seq)!.reason,
          })),
          notSampled: missed,
          indistinguishable,
          honestRecordsFailed: wrongFail,
          detectionProbability: Number(pCatch.toFixed(6)),
          detection: r.detection,
          attestationValid: check.valid,
          byKind: _byKind(r.results, prover.output.records),
          vectors: { matched, total },
        };
        if (opts.json) printJson(summary);
        else {
          console.log(`verdict: ${r.verdict}`);
          console.log(
            `falsified records caught: ${caught.length} of ${falsified.length} (${missed.length} not in the sample, ${indistinguishable.length} sampled but bit-identical to an honest run)`,
          );
          for (const c of summary.caught) console.log(`  #${c.seq} ${c.kind}: ${c.reason}`);
          for (const [kind, k] of Object.entries(summary.byKind)) {
            console.log(
              `sampled ${kind} records: ${k.PASS} PASS, ${k.FAIL} FAIL, ${k.NOT_VERIFIED} NOT_VERIFIED${
                k.sfu.length > 0 ? `; SFU used: ${k.sfu.join(", ")}` : ""
              }`,
            );
          }
          console.log(
            `P(catch >= 1 of ${falsified.length} falsified | k = ${r.selected.length} of ${r.population}) = ${
              pCatch.toFixed(4)
            } (hypergeometric)`,
          );
          for (const l of r.detection.levels) {
            console.log(
              `  misreporting rate ${l.pFalse}: detection ${l.hypergeometric} (binomial ${l.binomial})`,
            );
          }
          console.log(
            `attestation: ${audit.attestation} (${
              check.valid ? "verified" : "NOT verified"
            }), report: ${audit.reportPath}`,
          );
        }
        const ok = check.valid && wrongFail.length === 0 && matched === total;
        Deno.exitCode = ok ? EXIT.OK : EXIT.FAIL;
      } finally {
        await Deno.remove(keyDir, { recursive: true });
      }
    });
}

/** Sampled results per workload kind, with the SFU functions and statuses they depended on. */
function _byKind(
  results: readonly RecordResult[],
  records: readonly ClaimRecord[],
): Record<string, { PASS: number; FAIL: number; NOT_VERIFIED: number; sfu: string[] }> {
  const out: Record<string, { PASS: number; FAIL: number; NOT_VERIFIED: number; sfu: string[] }> =
    {};
  for (const r of results) {
    const kind = records[r.index]!.predicate.workload.kind;
    const k = out[kind] ??= { PASS: 0, FAIL: 0, NOT_VERIFIED: 0, sfu: [] };
    k[r.status]++;
    for (const u of r.sfu ?? []) {
      const label = `${u.fn} ${u.status}`;
      if (!k.sfu.includes(label)) k.sfu.push(label);
    }
  }
  for (const k of Object.values(out)) k.sfu.sort();
  return out;
}

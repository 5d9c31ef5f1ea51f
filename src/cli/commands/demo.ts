/**
 * `bitaudit demo`: the main job on bundled data.
 *
 * A simulated prover turns `demo/scenario.json` (a small transformer's projection GEMMs at varied
 * batch sizes on an A100, decoder blocks, forward passes and served sequences of every bundled
 * tiny model family, some tensor-parallel, a handful of records falsified) into a committed claim
 * log; a throw-away inspector key audits a sample chosen by fixed public randomness, signs the
 * verdict, and the attestation is then checked offline as a third party would. An in-process RFC 3161 TSA
 * with a throw-away certificate (pinned in the demo's trust root) stamps the announcement and the
 * attestation's signature, so `check` exercises the timestamp path without a subprocess. Finally
 * the bundled GPU-measured tensor-core vectors are re-checked.
 *
 * @module
 */
import { normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "@commander-js/extra-typings";
import {
  type AuditReport,
  lowerHypergeometric,
  type RecordResult,
  sixDecimalsDown,
} from "../../verify/mod.ts";
import { type VerifiedDetection, verifiedDetection } from "../../web/mod.ts";
import { type ClaimRecord, hexToBytes } from "../../claims/mod.ts";
import { collapseSpaces } from "../../escape_text.ts";
import { EXIT } from "../exit_codes.ts";
import { loadSigningKey, prepareOutputDir } from "../load_inputs.ts";
import { removeOnInterrupt } from "../cleanup.ts";
import { printJson, printText } from "../output.ts";
import { printVectorTable, runBundledVectors } from "../bundled_vectors.ts";
import { announceAudit } from "./announce.ts";
import { auditLog } from "./audit.ts";
import { checkFile } from "./check.ts";
import { runProver } from "./claims.ts";
import { generateKeys } from "./key.ts";
import {
  buildTrustRoot,
  createLocalTsa,
  decodeBase64,
  decodePublicKeyPem,
  drandChainHash,
  encodePem,
  type LocalTsa,
  parseDrandChainInfo,
  parseRfc3339,
  signCheckpoint,
} from "../../attest/mod.ts";
import { intFlag } from "../plan_inputs.ts";
import { writeNewFile } from "../write_new_file.ts";
import { addCommandHelp } from "../command_help.ts";
import { countNoun } from "../count_noun.ts";

const SCENARIO = fileURLToPath(new URL("../../../demo/scenario.json", import.meta.url));
/** A real drand quicknet round and its chain info (sources in demo/drand/README.md). */
const DEMO_BEACON = fileURLToPath(
  new URL("../../../demo/drand/quicknet-round-123.json", import.meta.url),
);
const DEMO_CHAIN = fileURLToPath(
  new URL("../../../demo/drand/quicknet-info.json", import.meta.url),
);
/**
 * When the simulated prover says it signed its checkpoint: 33 s before quicknet round 123 was
 * published (2023-08-23T15:15:33Z). The demo runs later than any round it can ship, so the
 * prover's signing time is set in the past; a real audit uses a round after a real checkpoint.
 */
const DEMO_CHECKPOINT_TIME = "2023-08-23T15:15:00Z";
/** When the inspector says it announced the audit: after the checkpoint, before the round. */
const DEMO_ANNOUNCE_TIME = "2023-08-23T15:15:10Z";
/** Start of the demo keys' and the demo TSA certificates' validity. */
const DEMO_VALID_FROM = "2023-01-01T00:00:00Z";
const DEMO_ORIGIN = "bitaudit.example/demo-prover/log";
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
  return addCommandHelp(new Command("demo"))
    .description(
      "end to end on bundled data: simulated prover -> committed log -> sampled audit -> signed attestation -> offline check; plus the measured tensor-core vectors",
    )
    .option(
      "--out <dir>",
      "keep claims.jsonl, blobs/, prover.pub, checkpoint.txt, inspector.pub, tsa.pem, announcement.dsse.json, announcement.tsr, trust-root.json, attestation.dsse.json, attestation.tsr, report.md and report.html here (default: a temporary folder)",
    )
    .option("--k <k>", "records to sample", String(DEMO_K))
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      // A bad --k is refused before the simulated prover runs (the audit checks it against the
      // population later; the bundled scenario holds 372 records).
      intFlag(opts.k, { flag: "--k", min: 1 });
      // Without `..` (see writeNewFile): what the demo reads back is what it wrote, however the
      // runtime resolves `lnk/..` (by the text, or under -A by the file system).
      const out = opts.out === undefined
        ? await Deno.makeTempDir({ prefix: "bitaudit-demo-" })
        : normalize(opts.out);
      // A temporary folder is the demo's own: removed if the run fails or is interrupted.
      const releaseTemp = opts.out === undefined ? removeOnInterrupt(out) : undefined;
      let finished = false;
      let done: ((ok: boolean) => Promise<void>) | undefined;
      try {
        const say = (s: string) => opts.json || printText(s);
        done = await prepareOutputDir(out, [
          "claims.jsonl",
          "blobs",
          "inspector.pub",
          "prover.pub",
          "checkpoint.txt",
          "tsa.pem",
          "announcement.dsse.json",
          "announcement.tsr",
          "trust-root.json",
          "attestation.dsse.json",
          "attestation.tsr",
          "report.md",
          "report.html",
        ]);
        say(`bitaudit demo -> ${out}`);
        say("");
        say(
          "1. prover: running demo/scenario.json through the emulator (A100 profile: projection GEMMs through the demo dispatch catalog, attention and FFN blocks, forward passes of tiny Qwen3, Qwen3-MoE, Llama 3, Mistral and Qwen2.5 checkpoints on one GPU and at TP 2, 4 and 8, on HF Transformers and vLLM, and sequences served by HF's and vLLM's continuous-batching engines: chunked prefill, decode steps, greedy tokens)",
        );
        const prover = await runProver(SCENARIO, { out, progress: !opts.json });
        const falsified = prover.output.falsified;
        say(
          `   ${
            countNoun(prover.output.records.length, "record")
          } committed, log root ${prover.root}`,
        );
        // The throw-away private keys never outlive the run, Ctrl-C included.
        const keyDir = await Deno.makeTempDir({ prefix: "bitaudit-key-" });
        const releaseKey = removeOnInterrupt(keyDir);
        try {
          const proverKeys = await generateKeys(`${keyDir}/prover`);
          const proverPem = await Deno.readTextFile(proverKeys.publicKey);
          await writeNewFile(`${out}/prover.pub`, proverPem);
          const cp = await signCheckpoint({
            origin: DEMO_ORIGIN,
            treeSize: prover.output.records.length,
            rootHash: hexToBytes(prover.root),
            extensions: [],
          }, {
            privateKey: (await loadSigningKey(proverKeys.privateKey)).privateKey,
            time: parseRfc3339(DEMO_CHECKPOINT_TIME) / 1000,
          });
          await writeNewFile(`${out}/checkpoint.txt`, cp);
          say(
            `   signed C2SP checkpoint ${DEMO_ORIGIN} at ${DEMO_CHECKPOINT_TIME} (checkpoint.txt)`,
          );
          say(
            "2. inspector: throw-away Ed25519 key; trust root with the prover key, drand quicknet and a local TSA",
          );
          const keys = await generateKeys(`${keyDir}/inspector`);
          const pem = await Deno.readTextFile(keys.publicKey);
          await writeNewFile(`${out}/inspector.pub`, pem);
          const pub = decodePublicKeyPem(pem);
          const chain = parseDrandChainInfo(await Deno.readTextFile(DEMO_CHAIN));
          // Its clock is the demo's own: valid from 2023, since the announcement is dated then.
          const tsa = await createLocalTsa({
            name: "bitaudit demo TSA (throw-away)",
            notBefore: parseRfc3339(DEMO_VALID_FROM),
            notAfter: Date.now() + 86_400_000,
          });
          await writeNewFile(`${out}/tsa.pem`, encodePem("CERTIFICATE", tsa.anchor));
          // Valid from 2023: the demo's checkpoint and announcement are dated before the round.
          const trustRoot = buildTrustRoot([pub], {
            start: DEMO_VALID_FROM,
            provers: {
              keys: [decodePublicKeyPem(proverPem)],
              start: DEMO_VALID_FROM,
              origin: DEMO_ORIGIN,
            },
            drand: [{ chainHash: drandChainHash(chain), beaconId: chain.beaconId }],
            tsa: [{ certificate: tsa.anchor, name: "tsa.pem" }],
          });
          await writeNewFile(`${out}/trust-root.json`, JSON.stringify(trustRoot, null, 2) + "\n");
          say(`   keyid ${keys.keyid}`);
          await announceAudit({
            checkpoint: `${out}/checkpoint.txt`,
            proverPub: `${out}/prover.pub`,
            chain: DEMO_CHAIN,
            round: "123",
            k: opts.k,
            keys: [keys.privateKey],
            out: `${out}/announcement.dsse.json`,
            time: DEMO_ANNOUNCE_TIME,
          });
          say(
            `   announced the audit of round 123 at ${DEMO_ANNOUNCE_TIME} (announcement.dsse.json)`,
          );
          await _stampSignature(tsa, {
            envelope: `${out}/announcement.dsse.json`,
            out: `${out}/announcement.tsr`,
            time: parseRfc3339(DEMO_ANNOUNCE_TIME),
          });
          say(
            `   local TSA (in process, CA pinned as tsa.pem): RFC 3161 token over the announcement's signature at ${DEMO_ANNOUNCE_TIME} (announcement.tsr)`,
          );
          say(
            "   the demo TSA's clock is the demo's own: its tokens exercise the checks but prove nothing against whoever runs it; a real deployment pins an independent TSA",
          );
          say(
            `3. audit: k = ${
              countNoun(Number(opts.k), "record")
            } drawn with drand ${chain.beaconId} round 123 (verified offline)`,
          );
          const audit = await auditLog({
            announcement: `${out}/announcement.dsse.json`,
            log: `${out}/claims.jsonl`,
            beacon: DEMO_BEACON,
            chain: DEMO_CHAIN,
            checkpoint: `${out}/checkpoint.txt`,
            proverPub: `${out}/prover.pub`,
            announcementTimestamp: `${out}/announcement.tsr`,
            k: opts.k,
            keys: [keys.privateKey],
            out,
            progress: !opts.json,
            // The cost line joins the transcript, indented as the step's other lines.
            sayCost: (line) => say(`   ${line}`),
          });
          await _stampSignature(tsa, {
            envelope: audit.attestation,
            out: `${out}/attestation.tsr`,
            time: Date.now(),
          });
          say(
            "   local TSA: RFC 3161 token over the attestation's signature, now (attestation.tsr)",
          );
          const r = audit.report;
          const failedIdx = new Set(
            r.results.filter((x) => x.status === "FAIL").map((x) => x.index),
          );
          const sampled = new Set(r.selected);
          const caught = falsified.filter((f) => failedIdx.has(f.seq));
          const missed = falsified.filter((f) => !sampled.has(f.seq));
          // Sampled falsifications whose recomputation matched bit for bit are numerically
          // indistinguishable from honest records at the fingerprint: reported, not hidden; those
          // in a run not modelled (NOT_VERIFIED) were not recomputed, and are told apart.
          const status = new Map(r.results.map((x) => [x.index, x.status]));
          const notVerified = falsified.filter((f) => status.get(f.seq) === "NOT_VERIFIED");
          const indistinguishable = falsified.filter((f) => status.get(f.seq) === "PASS");
          const wrongFail = [...failedIdx].filter((i) => !falsified.some((f) => f.seq === i));
          // Written as the signed figures are: never above the true value. A NOT_VERIFIED record
          // was compared with nothing and catches nothing: the sample that could catch is the
          // verified records, and the falsified records it could catch are those the verifier
          // did not refuse. The signed statement counts all k sampled; both are said.
          const verified = verifiedDetection(r.detection, r.results);
          const pCatch = sixDecimalsDown(lowerHypergeometric(r.population, {
            falseCount: falsified.length - notVerified.length,
            k: verified.verified,
          }));
          const pCatchSampled = sixDecimalsDown(lowerHypergeometric(r.population, {
            falseCount: falsified.length,
            k: r.selected.length,
          }));
          say(
            "4. third-party check of the attestation (offline, against the trust root and the log)",
          );
          const check = await checkFile({
            attestation: audit.attestation,
            trustRoot: `${out}/trust-root.json`,
            log: `${out}/claims.jsonl`,
            timestamp: `${out}/attestation.tsr`,
          });
          say(
            `   ${check.valid ? "VALID" : "INVALID"}: ${
              check.checks.filter((c) => c.ok).length
            }/${check.checks.length} checks`,
          );
          const detail = (name: string) => check.checks.find((c) => c.check === name)?.detail;
          say(
            `   announcement: ${
              detail("announcement")
            } (the TSA vouches the announcement existed before the round's randomness did)`,
          );
          say(
            `   timestamp: ${
              detail("timestamp")
            } (the inspector key was judged valid and unrevoked at the TSA's time, not the stated one)`,
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
            notVerified,
            indistinguishable,
            honestRecordsFailed: wrongFail,
            verified: verified.verified,
            detectionProbability: Number(pCatch),
            detectionProbabilityAllSampled: Number(pCatchSampled),
            detection: r.detection,
            verifiedDetection: verified.hypergeometric,
            attestationValid: check.valid,
            timestamps: {
              announcement: check.trust?.announcement ?? "none",
              attestation: detail("timestamp") ?? null,
            },
            byKind: _byKind(r.results, prover.output.records),
            vectors: { matched, total },
          };
          if (opts.json) printJson(summary);
          else {
            printText(`verdict: ${r.verdict}`);
            printText(
              `falsified records caught: ${caught.length} of ${falsified.length} (${missed.length} not in the sample, ${notVerified.length} sampled but NOT_VERIFIED, ${indistinguishable.length} sampled but bit-identical to an honest run)`,
            );
            for (const c of summary.caught) {
              printText(`  #${c.seq} ${c.kind}: ${collapseSpaces(c.reason)}`);
            }
            for (const [kind, k] of Object.entries(summary.byKind)) {
              printText(
                `sampled ${kind} records: ${k.PASS} PASS, ${k.FAIL} FAIL, ${k.NOT_VERIFIED} NOT_VERIFIED${
                  k.sfu.length > 0 ? `; SFU used: ${k.sfu.join(", ")}` : ""
                }`,
              );
            }
            for (
              const line of _detectionLines(r, {
                verified,
                falsified: falsified.length,
                notVerified: notVerified.length,
                pCatch,
                pCatchSampled,
              })
            ) {
              printText(line);
            }
            printText(
              `attestation: ${audit.attestation} (${
                check.valid ? "verified" : "NOT verified"
              }), report: ${audit.reportPath} and ${audit.htmlPath}`,
            );
          }
          const ok = check.valid && check.trust?.announcement === "timestamped" &&
            wrongFail.length === 0 && matched === total;
          Deno.exitCode = ok ? EXIT.OK : EXIT.FAIL;
          finished = true;
        } finally {
          await releaseKey(true);
        }
      } finally {
        await done?.(finished);
        await releaseTemp?.(!finished);
      }
    });
}

/**
 * The summary's detection lines: what the verified records catch first, then the signed figures,
 * said to count every sampled record (when some were NOT_VERIFIED, both).
 */
function _detectionLines(
  r: AuditReport,
  o: {
    /** The verified records' detection, as the summary's JSON gives it. */
    verified: VerifiedDetection;
    /** How many records the prover falsified, and how many of those sampled were NOT_VERIFIED. */
    falsified: number;
    notVerified: number;
    pCatch: string;
    pCatchSampled: string;
  },
): string[] {
  const k = r.selected.length;
  const v = o.verified;
  const unverified = k - v.verified;
  if (unverified === 0) {
    return [
      `P(catch >= 1 of ${o.falsified} falsified | k = ${k} of ${r.population}, all verified) = ${o.pCatch} (hypergeometric)`,
      ...r.detection.levels.map((l) =>
        `  misreporting rate ${l.pFalse}: detection ${l.hypergeometric} (binomial ${l.binomial})`
      ),
    ];
  }
  const checked = o.falsified - o.notVerified;
  return [
    `P(catch >= 1 of ${checked} falsified | the ${v.verified} verified of k = ${k} of ${r.population}) = ${o.pCatch} (hypergeometric; the ${unverified} NOT_VERIFIED could catch nothing, ${o.notVerified} falsified among them)`,
    `  counting all ${k} sampled and all ${o.falsified} falsified, as the signed statement counts: ${o.pCatchSampled}`,
    `detection by the ${v.verified} verified records, beside the signed statement's, which counts all ${k} sampled:`,
    ...r.detection.levels.map((l, i) =>
      `  misreporting rate ${l.pFalse}: detection ${
        v.hypergeometric[i] ?? "unknown"
      } (signed, counting all ${k}: ${l.hypergeometric}, binomial ${l.binomial})`
    ),
  ];
}

/** Stamps the raw bytes of the first signature of a DSSE envelope file and writes the response. */
async function _stampSignature(
  tsa: LocalTsa,
  o: { envelope: string; out: string; time: number },
): Promise<void> {
  const env = JSON.parse(await Deno.readTextFile(o.envelope)) as { signatures: { sig: string }[] };
  const sig = decodeBase64(env.signatures[0]!.sig, { alphabet: "any" });
  await writeNewFile(o.out, await tsa.stamp(sig, { time: o.time }));
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

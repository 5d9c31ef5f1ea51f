/**
 * Signs a merged audit and writes `attestation.dsse.json`, `report.md` and `report.html`: the last step of every
 * audit, whether its items were recomputed in this process, by shards or by a worker pool. The
 * statement binds only what the merge decided (no per-item timing), and the time is the signing
 * time (or `--time`), so the same plan and results signed with the same key and time give the
 * same bytes.
 *
 * @module
 */
import { type AssetStore, MANIFEST_PATH } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { type SigningKey, signVerdict, type TrustRoot, type WorkerKeys } from "../attest/mod.ts";
import type { KindCounts, MergedAudit } from "../verify/mod.ts";
import { writeBundle } from "./commands/bundle.ts";
import { reportHtml } from "./report_html.ts";
import { reportMarkdown } from "./report_markdown.ts";
import { verdictMeaning } from "../web/mod.ts";
import type { TrustInputs } from "./trust_inputs.ts";
import { writeNewFile } from "./write_new_file.ts";

/**
 * Signs (`signVerdict`) and writes the verdict of a merged audit.
 *
 * @param merged the merged audit (report, the workers' identity and asset digests)
 * @param options this install's asset `store` (the results' assets must be its own), signing
 *   `keys`, output folder `out` (already prepared), signing `time`
 *   (RFC 3339, default now to the second), verified `trust` inputs (drand round, checkpoint,
 *   announcement) when the audit had them, the accepted worker keys (`workers`: the verdict
 *   names the key that computed each result), `trustRoot` (`--trust-root`: the worker keys are
 *   judged by it as `check` judges them, before anything is signed), `bundle` to also write
 *   `attestation.sigstore.json`, `kinds` (sampled results per workload kind, for `report.html`)
 * @returns the paths written and the time signed
 * @throws {InputError} `OUTPUT_EXISTS` / `OUTPUT_WRITE`, `BAD_TIMESTAMP`, `WORKER_KEY_REFUSED`
 * @example
 * ```ts ignore
 * await writeVerdict(merged, { store, keys, out: "out", workers, kinds: [] });
 * ```
 */
export async function writeVerdict(
  merged: MergedAudit,
  options: {
    store: Pick<AssetStore, "manifest" | "manifestSha256">;
    keys: readonly SigningKey[];
    out: string;
    time?: string | undefined;
    trust?: TrustInputs | undefined;
    workers: WorkerKeys;
    trustRoot?: TrustRoot | undefined;
    bundle?: boolean | undefined;
    kinds: readonly KindCounts[];
  },
): Promise<{ attestation: string; reportPath: string; htmlPath: string; timeVerified: string }> {
  const { trust } = options;
  const { report, verifier } = merged;
  // The assets the results name are signed as what computed them: every one must be this
  // inspector's own (a worker of the same version holds the same files), never a worker's word.
  const own = options.store;
  _ownAssets(merged.assets, own);
  // With no result at all (every item missing) no worker named the manifest: use this one's.
  const manifestSha256 = merged.assets[MANIFEST_PATH] ?? own.manifestSha256;
  const signed = await signVerdict(report, {
    keys: options.keys,
    store: { manifestSha256, used: () => merged.assets },
    engine: verifier.engine,
    runtime: verifier.runtime,
    ...(options.time === undefined ? {} : { time: options.time }),
    ...(trust === undefined ? {} : { trust: _signTrust(trust) }),
    ...(options.trustRoot === undefined ? {} : { trustRoot: options.trustRoot }),
    workers: {
      byResult: merged.workers,
      keys: [...options.workers.values()],
      reverified: merged.reverified,
    },
  });
  const attestation = `${options.out}/attestation.dsse.json`;
  const reportPath = `${options.out}/report.md`;
  const htmlPath = `${options.out}/report.html`;
  const { keyids, timeVerified, assets } = signed;
  const engine = verifier.engine;
  // Said from the signed predicate, which names the worker key behind each result.
  const meaning = verdictMeaning(signed.statement.predicate!, { signers: keyids }); // signVerdict sets it
  const meta = { keyids, timeVerified, engine, assets, meaning, ...(trust ? { trust } : {}) };
  const html = await reportHtml(report, { ...meta, kinds: [...options.kinds] });
  await writeNewFile(attestation, signed.text);
  if (options.bundle) {
    await writeBundle(signed.envelope, {
      out: `${options.out}/attestation.sigstore.json`,
      timestamps: [],
    });
  }
  await writeNewFile(reportPath, reportMarkdown(report, meta));
  await writeNewFile(htmlPath, html);
  return { attestation, reportPath, htmlPath, timeVerified };
}

function _signTrust(trust: TrustInputs) {
  return {
    ...(trust.drand === undefined ? {} : { drand: trust.drand }),
    ...(trust.checkpoint === undefined ? {} : { checkpoint: trust.checkpoint }),
    ...(trust.announcement === undefined ? {} : { announcement: trust.announcement.envelope }),
    ...(trust.announcement?.timestamp === undefined
      ? {}
      : { announcementTimestamp: trust.announcement.timestamp }),
  };
}

/**
 * Refuses asset digests that differ from this inspector's own store (or name files it does not
 * hold): a worker's result may name only the assets the merging inspector's version holds.
 */
function _ownAssets(
  assets: Readonly<Record<string, string>>,
  own: Pick<AssetStore, "manifest" | "manifestSha256">,
): void {
  for (const [path, digest] of Object.entries(assets)) {
    const mine = path === MANIFEST_PATH ? own.manifestSha256 : own.manifest.assets[path]?.sha256;
    if (mine !== digest) {
      throw new InputError(
        "MERGE_ASSET_CONFLICT",
        `Cannot sign: a result names asset ${quoteForTerminal(path)} at ${digest.slice(0, 16)}…, ${
          mine === undefined
            ? "which this inspector does not hold"
            : `this inspector's is ${mine.slice(0, 16)}…`
        }`,
      );
    }
  }
}

/**
 * Records on a recipe stack for the hostile tests of a record's GEMM recipe and tensor limits: the
 * envelope of a record alone in its log on one A100, and a bf16 GEMM record whose synthetic
 * tensors are committed.
 */
import type { ClaimPredicate, GemmWorkload } from "../../src/claims/mod.ts";
import { synthBf16 } from "../../src/prover/mod.ts";
import { type Blobs, commit, store } from "./_recompute_fixture.ts";

/**
 * A record's fields but its workload and fingerprint: the first record of log `logId`, on one
 * A100 (its bundled profile's digest), with no parallelism.
 *
 * @param logId the log's id
 * @param o the software stack (no components) and the batch size
 * @returns the fields
 */
export function recipeEnvelope(
  logId: string,
  o: { readonly stack: string; readonly batch: number },
): Omit<ClaimPredicate, "workload" | "fingerprint"> {
  return {
    log: { logId, seq: 0, prev: "0".repeat(64) },
    hardware: {
      profile: "a100",
      profileSha256: store.manifest.assets["profiles/gpu/a100.json"]!.sha256,
      count: 1,
    },
    software: { stack: o.stack, components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: o.batch },
  };
}

/**
 * An m x n x k bf16 GEMM record (layout tn, bf16 out) on the `cutlass-3.5-default` stack with the
 * given recipe, in log `logId` with a batch of m; its weights and input are synthetic bf16 values
 * (seeded by `logId`) committed into `blobs`, its fingerprint `layers.0.q_proj.out` of shape
 * [m, n].
 *
 * @param recipe the record's `kernel.recipe`, as the record states it
 * @param o the blobs, the log's id, [m, n, k] and the fingerprint's digest (64 hex digits; a
 *   made-up one unless given)
 * @returns the record's predicate
 */
export function recipeGemmRecord(
  recipe: Record<string, unknown>,
  o: {
    readonly blobs: Blobs;
    readonly logId: string;
    readonly mnk: readonly [number, number, number];
    readonly fingerprint?: string | undefined;
  },
): ClaimPredicate {
  const [m, n, k] = o.mnk;
  const tensor = (label: string, count: number) => {
    const t = synthBf16(o.logId, { label, count, span: 4 });
    return commit(o.blobs, new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
  };
  const workload: GemmWorkload = {
    kind: "gemm",
    m,
    n,
    k,
    dtype: "bf16",
    out: "bf16",
    layout: "tn",
    kernel: { recipe },
    weights: { sha256: tensor("w", n * k), shape: [n, k] },
    input: { sha256: tensor("x", m * k), shape: [m, k] },
  };
  return {
    ...recipeEnvelope(o.logId, { stack: "cutlass-3.5-default", batch: m }),
    workload,
    fingerprint: {
      tensor: "layers.0.q_proj.out",
      dtype: "bf16",
      shape: [m, n],
      sha256: o.fingerprint ?? "cd".repeat(32),
    },
  } as ClaimPredicate;
}

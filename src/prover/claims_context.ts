/**
 * What every claim maker of the simulated prover shares: where its records go in the log, how
 * tensors are stored, and the record envelope (log position, hardware, software, parallelism)
 * that every record of a scenario carries the same way.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { ClaimPredicate } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { DispatchCatalog, Fa2Forward, KWalker, StackProfile } from "../kernels/mod.ts";
import type { BlockRuntime } from "../model/mod.ts";
import { DISPATCH_CATALOGS, loadAsset, modelRuntime, STACK_PROFILES } from "../resolve/mod.ts";
import type { Scenario } from "./scenario.ts";

/** Where a maker's records go in the log and how tensors are stored. */
export interface ClaimsContext {
  /** Asset store the profiles, catalogs, SFU tables and checkpoints are read from. */
  readonly store: AssetStore;
  /** K-walk runner of the GEMMs. */
  readonly walker: KWalker;
  /**
   * Runs the attention core (e.g. an `Fa2Pool`'s `forward`); default `flashAttentionForward` on
   * the calling thread. Same bits either way.
   */
  readonly attention?: Fa2Forward | undefined;
  /** The scenario's GPU profile and its digest. */
  readonly hardware: { readonly profile: GpuProfile; readonly sha256: string };
  /** Sequence number of the maker's first record. */
  readonly firstSeq: number;
  /** Digest of the record before it. */
  readonly prev: string;
  /** Stores bytes (a tensor or a file), returns their digest. */
  readonly put: (x: Uint16Array | Uint32Array | Uint8Array) => string;
  /** Flips one bit of a hex digest (the fingerprint falsification). */
  readonly flip: (hex: string, bit: number) => string;
  /** Called after each record. */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * The envelope fields of a scenario's record: log position, the scenario's GPUs, the stack that
 * ran it, and its parallelism (default one GPU).
 *
 * @param scenario the scenario (log id, GPU count)
 * @param o `hardware` (profile and digest), `seq`, `prev`, the `stack` id and its `components`
 * @returns the fields to spread into `makeClaimRecord`'s input
 * @example
 * ```ts ignore
 * makeClaimRecord({ ...claimEnvelope(scenario, { hardware, seq, prev, stack, components }), ... });
 * ```
 */
export function claimEnvelope(
  scenario: Pick<Scenario, "logId" | "hardware">,
  o: {
    readonly hardware: { readonly profile: GpuProfile; readonly sha256: string };
    readonly seq: number;
    readonly prev: string;
    readonly stack: string;
    readonly components: Readonly<Record<string, string>>;
    /** The claimed topology (default: one GPU). */
    readonly parallelism?: ClaimPredicate["parallelism"];
  },
): Pick<ClaimPredicate, "log" | "hardware" | "software" | "parallelism"> {
  return {
    log: { logId: scenario.logId, seq: o.seq, prev: o.prev },
    hardware: {
      profile: o.hardware.profile.id,
      profileSha256: o.hardware.sha256,
      count: scenario.hardware.count,
    },
    software: { stack: o.stack, components: o.components },
    parallelism: o.parallelism ?? { tp: 1, pp: 1, ep: 1, dp: 1 },
  };
}

/**
 * The runtime a model section (forward, serving) runs its records with: its stack profile, its
 * dispatch catalog's kernels, the context's K-walker and attention runner, the stack's SFU.
 *
 * @param ctx the maker's context
 * @param section the section's stack and catalog ids
 * @returns the stack, the loaded catalog (with its digest) and the runtime
 * @throws {AssetError} when an asset is missing or fails its digest
 * @example
 * ```ts ignore
 * const { stack, catalog, runtime } = await sectionRuntime(ctx, scenario.forward);
 * ```
 */
export async function sectionRuntime(
  ctx: ClaimsContext,
  section: { readonly stack: string; readonly catalog: string },
): Promise<{
  stack: StackProfile;
  catalog: { readonly value: DispatchCatalog; readonly sha256: string };
  runtime: BlockRuntime;
}> {
  const stack = (await loadAsset(ctx.store, { kind: STACK_PROFILES, id: section.stack })).value;
  const catalog = await loadAsset(ctx.store, { kind: DISPATCH_CATALOGS, id: section.catalog });
  const runtime = await modelRuntime(ctx.store, {
    profile: ctx.hardware.profile,
    stack,
    kernel: { catalog: catalog.value },
    walker: ctx.walker,
    attention: ctx.attention,
  });
  return { stack, catalog, runtime };
}

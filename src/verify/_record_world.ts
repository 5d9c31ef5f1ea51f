/**
 * The world a record claims to have run in, loaded for the per-record pipeline: its GPU profile
 * (by id, held to the digest the record states), its stack profile, and the checks of that world
 * every kind of record shares (`_checkClaimedWorld`). A record's own contradictions that need
 * neither (a GEMM's or a block's output description, rows, layer shape, committed tensors) are
 * checked before this is loaded: an unknown or differently hashed profile, or an unknown stack,
 * is NOT_VERIFIED and must hide no FAIL.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { ClaimPredicate } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import { type StackProfile, uncomparedComponents } from "../kernels/mod.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../resolve/mod.ts";
import { _checkClaimedWorld } from "./_claimed_parallel.ts";
import { _asset, _Stop } from "./_stop.ts";

/** A record's profile and stack, and why a match still cannot vouch for the world it states. */
export interface RecordWorld {
  /** The GPU profile the record names, its digest the one the record states. */
  readonly profile: GpuProfile;
  /** The stack profile the record names. */
  readonly stack: StackProfile;
  /** What `_checkClaimedWorld` leaves unvouched (applied after the comparison), or null. */
  readonly versionGap: string | null;
}

/**
 * Loads a record's profile and stack (passed `profile` and `stack` steps, and a `components`
 * step naming the releases the stack pins none of) and checks the world it claims.
 *
 * @param store hash-checked assets
 * @param o the record's predicate and the step recorder
 * @returns the profile, the stack and the version gap
 * @throws {_Stop} NOT_VERIFIED for an unknown profile or stack, or a profile whose digest is not
 *   the one the record states; FAIL as `_checkClaimedWorld`
 */
export async function _recordWorld(
  store: AssetStore,
  o: {
    readonly p: ClaimPredicate;
    readonly step: (name: string, detail: string) => void;
  },
): Promise<RecordWorld> {
  const { p, step } = o;
  const { profile, sha256 } = await _asset(
    () => loadGpuProfile(store, p.hardware.profile),
    "profile",
  );
  if (sha256 !== p.hardware.profileSha256) {
    throw new _Stop(
      "NOT_VERIFIED",
      `profile '${profile.id}' digest differs from the claimed ${
        p.hardware.profileSha256.slice(0, 16)
      }…`,
    );
  }
  step("profile", `${profile.id} sha256 ${sha256.slice(0, 16)}…`);
  const stack = await _asset(
    () => loadAsset(store, { kind: STACK_PROFILES, id: p.software.stack }),
    "stack",
  );
  step("stack", `${stack.value.id} (${stack.value.gemm.kernelSource} kernels)`);
  const versionGap = _checkClaimedWorld(p, stack.value, profile);
  // Releases the stack pins none of are the record's word alone: said, so that a PASS is not
  // read as vouching for them.
  const uncompared = uncomparedComponents(stack.value.components, p.software.components);
  if (uncompared.length > 0) {
    step(
      "components",
      `recorded, not compared (the stack pins no release): ${uncompared.join(", ")}`,
    );
  }
  return { profile, stack: stack.value, versionGap };
}

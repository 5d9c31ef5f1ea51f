/**
 * The simulated prover's records are honest unless the scenario's `falsify` names them: before a
 * record no falsification names is computed, what it will state of its world (GPU count, stack,
 * library versions, ranks and links), its attention's SM count and its GEMM kernel (a recipe or a
 * catalog, held to the kind its stack takes) are put to the verifier's own record-level checks
 * (`recordContradiction`), and a scenario whose honest record the audit would FAIL is refused, as
 * `claims append` refuses such a record. So is one naming a dispatch catalog captured on another
 * GPU than the record's (`catalogGpuMismatch`): the audit says NOT_VERIFIED of it, and
 * `claims append` refuses it.
 *
 * @module
 */
import type { ClaimPredicate, KernelRef } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { catalogGpuMismatch, recordContradiction } from "../verify/mod.ts";

/**
 * Refuses a record no falsification names whose stated world or kernel the audit FAILs, or whose
 * catalog was captured on another GPU.
 *
 * @param envelope the record's envelope (`claimEnvelope`: its hardware, software, parallelism)
 * @param o the record's sequence number, the scenario section it comes from (`scenario.forward`),
 *   its stack and GPU profiles, its GEMM kernel reference and, for a catalog, the catalog itself
 *   (its id and GPU), and its attention's SM count (absent: no attention)
 * @throws {InputError} `SCENARIO_INVALID` naming the record, the section and the verifier's reason
 *   (or the catalog's GPU)
 * @example
 * ```ts ignore
 * const section = "scenario.forward";
 * checkHonestRecord(envelope, { seq, section, stack, gpu, kernel, multiProcessorCount });
 * ```
 */
export function checkHonestRecord(
  envelope: Pick<ClaimPredicate, "hardware" | "software" | "parallelism">,
  o: {
    readonly seq: number;
    readonly section: string;
    readonly stack: StackProfile;
    readonly gpu: GpuProfile;
    readonly kernel: KernelRef;
    readonly catalog?: { readonly id: string; readonly gpu: string } | undefined;
    readonly multiProcessorCount?: number | undefined;
  },
): void {
  const why = recordContradiction(envelope, o);
  if (why !== null) {
    throw new InputError(
      "SCENARIO_INVALID",
      `Cannot make record ${o.seq} of ${o.section}: ${why} (the audit FAILs it, and 'falsify' ` +
        "names no falsification of it)",
    );
  }
  const foreign = o.catalog === undefined ? null : catalogGpuMismatch(o.catalog, o.gpu.id);
  if (foreign !== null) {
    throw new InputError(
      "SCENARIO_INVALID",
      `Cannot make record ${o.seq} of ${o.section}: ${foreign} (the audit says NOT_VERIFIED, and ` +
        "'claims append' refuses such a record)",
    );
  }
}

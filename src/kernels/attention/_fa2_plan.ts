/**
 * An FA2 launch split into a plan (every decision, as plain data that can be posted to a worker)
 * and the per-head computation, so that heads can run on several threads with the same bits.
 *
 * @module
 */
import { type Datapath, findDatapath } from "../../hardware/mod.ts";
import { bitsFromF32 } from "../../numerics/mod.ts";
import { _fa2Arith, type Fa2Mufu } from "./_fa2_arith.ts";
import { type _Seq, _sequences, _splitPlan } from "./_fa2_launch.ts";
import { _fa2QueryTile, type _LaunchCtx, _tileHeight } from "./_fa2_query_tile.ts";
import type { SyncKWalk } from "./_fa2_tile_walk.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { fa2SfuFunctions } from "./fa2_sfu_functions.ts";
import { fa2Tiles } from "./fa2_tiles.ts";
import type {
  AttentionInputs,
  FlashAttentionOptions,
  FlashAttentionResult,
} from "./flash_attention_forward.ts";

/** Every decision of a launch, as structured-cloneable data (no functions). */
export interface _Fa2Plan extends Omit<_LaunchCtx, "arith" | "kWalk"> {
  readonly seq: readonly _Seq[];
  readonly heads: number;
  readonly kvHeads: number;
  readonly d: number;
  readonly totalQ: number;
  readonly returnFp32: boolean;
}

/** Where the heads write: O (BF16), optionally O in FP32 and the LSE [heads, total_q]. */
export interface _Fa2Sinks {
  readonly out: Uint16Array;
  readonly outF32?: Uint32Array | undefined;
  readonly lse?: Uint32Array | undefined;
}

/** The thread-local part of a launch: the build's instructions and the K-walk. */
export interface _Fa2Runner {
  readonly arith: ReturnType<typeof _fa2Arith>;
  readonly kWalk: SyncKWalk;
}

/**
 * Checks the launch and fixes every decision (datapath, tiles, splits, scales, LSE).
 *
 * @param inputs Q, K, V
 * @param options the forward options
 * @returns the plan and the MUFU model with its LG2 resolved
 * @throws {RangeError|TypeError} as `flashAttentionForward` documents
 */
export function _planFa2(
  inputs: AttentionInputs,
  options: FlashAttentionOptions,
): { plan: _Fa2Plan; mufu: Fa2Mufu } {
  const { heads, kvHeads, headDim: d, build } = options;
  const dp: Datapath | undefined = findDatapath(options.profile, {
    family: "mma",
    input: "bf16",
    output: "fp32",
  });
  if (dp === undefined) {
    throw new TypeError("Cannot run FA2: the profile has no 'mma' bf16 -> fp32 datapath");
  }
  const seq = _sequences(inputs, options);
  const causal = options.causal && Math.max(...seq.map((s) => s.sq)) > 1;
  const tiles = fa2Tiles(options.profile.architecture, { headDim: d, causal });
  const { splits, seqlenK } = _splitPlan(options, seq);
  const m = options.mufu;
  const lg2 = options.lg2 ?? m.lg2;
  const lse = options.returnLse === true || options.lg2 !== undefined;
  if ((splits > 1 || lse) && lg2 === undefined) {
    throw new RangeError(
      `Cannot run FA2: ${splits > 1 ? `the ${splits}-split KV launch` : "the LSE"} needs ` +
        "MUFU.LG2 ('lg2' on the MUFU model or the 'lg2' option)",
    );
  }
  const scale = Math.fround(options.softmaxScale ?? d ** -0.5);
  return {
    plan: {
      dp,
      build,
      scaleLog2: bitsFromF32(scale * Math.LOG2E),
      softmaxScale: bitsFromF32(scale),
      causal,
      splits,
      seqlenK,
      tiles,
      lse,
      seq,
      heads,
      kvHeads,
      d,
      totalQ: inputs.q.length / (heads * d),
      returnFp32: options.returnFp32 === true,
    },
    mufu: { ex2: m.ex2, rcp: m.rcp, rsqrt: m.rsqrt, lg2 },
  };
}

/**
 * The thread-local instructions of a plan.
 *
 * @param build the FA2 build
 * @param mufu the MUFU model (LG2 resolved)
 * @param kWalk the K-walk
 * @returns the runner
 */
export function _fa2Runner(build: Fa2Build, mufu: Fa2Mufu, kWalk: SyncKWalk): _Fa2Runner {
  return { arith: _fa2Arith(build, mufu), kWalk };
}

/**
 * Output buffers of a plan.
 *
 * @param plan the plan
 * @param alloc allocates a buffer of n bytes (default a plain ArrayBuffer; a pool passes
 *   SharedArrayBuffers)
 * @returns the sinks
 */
export function _fa2Sinks(
  plan: _Fa2Plan,
  alloc: (bytes: number) => ArrayBufferLike = (n) => new ArrayBuffer(n),
): _Fa2Sinks {
  const n = plan.totalQ * plan.heads * plan.d;
  return {
    out: new Uint16Array(alloc(2 * n)),
    outF32: plan.returnFp32 ? new Uint32Array(alloc(4 * n)) : undefined,
    lse: plan.lse ? new Uint32Array(alloc(4 * plan.heads * plan.totalQ)) : undefined,
  };
}

/**
 * Computes query head h of every sequence into the sinks (disjoint from other heads' entries).
 *
 * @param plan the plan
 * @param runner the thread's instructions and K-walk
 * @param inputs Q, K, V
 * @param h the query head
 * @param sinks the output buffers
 */
export function _fa2Head(
  plan: _Fa2Plan,
  runner: _Fa2Runner,
  inputs: AttentionInputs,
  h: number,
  sinks: _Fa2Sinks,
): void {
  const { heads, kvHeads, d, totalQ } = plan;
  const ctx: _LaunchCtx = { ...plan, ...runner };
  const kvh = Math.floor(h / (heads / kvHeads));
  const row = (a: Uint16Array, t: number, hh: number, nh: number) =>
    a.subarray((t * nh + hh) * d, (t * nh + hh + 1) * d);
  const height = _tileHeight(ctx);
  for (const { q0, k0, sq, sk } of plan.seq) {
    const key = (j: number) => row(inputs.k, k0 + j, kvh, kvHeads);
    const value = (j: number) => row(inputs.v, k0 + j, kvh, kvHeads);
    for (let i0 = 0; i0 < sq; i0 += height) {
      const rows = Math.min(height, sq - i0);
      const q = new Uint16Array(rows * d);
      for (let r = 0; r < rows; r++) q.set(row(inputs.q, q0 + i0 + r, h, heads), r * d);
      const outs = _fa2QueryTile(ctx, { q, key, value, i0, rows, sq, sk });
      outs.forEach((r, i) => {
        const at = ((q0 + i0 + i) * heads + h) * d;
        sinks.out.set(r.out, at);
        sinks.outF32?.set(r.outF32, at);
        if (sinks.lse !== undefined && r.lse !== undefined) {
          sinks.lse[h * totalQ + q0 + i0 + i] = r.lse;
        }
      });
    }
  }
}

/**
 * The result of a launch whose heads have all been computed.
 *
 * @param plan the plan
 * @param sinks the filled buffers (copied off shared memory)
 * @returns the forward's result
 */
export function _fa2Result(plan: _Fa2Plan, sinks: _Fa2Sinks): FlashAttentionResult {
  const own = <T extends Uint16Array | Uint32Array>(a: T): T =>
    (a.buffer instanceof SharedArrayBuffer ? a.slice() : a) as T;
  return {
    out: own(sinks.out),
    ...(sinks.lse === undefined ? {} : { lse: own(sinks.lse) }),
    ...(sinks.outF32 === undefined ? {} : { outF32: own(sinks.outF32) }),
    splits: plan.splits,
    sfuFunctionsUsed: fa2SfuFunctions(plan.build, { splits: plan.splits, lse: plan.lse }),
  };
}

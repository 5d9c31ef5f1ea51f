/**
 * An FA2 launch split into a plan (every decision, as plain data that can be posted to a worker)
 * and the per-head computation, so that heads can run on several threads with the same bits.
 * Query heads never mix: each writes its own entries of the output buffers, so any order of
 * heads, on any number of threads, gives the bits of `flashAttentionForward`.
 *
 * @module
 */
import { type Datapath, findDatapath } from "../../hardware/mod.ts";
import { bitsFromF32 } from "../../numerics/mod.ts";
import { _fa2Arith, type Fa2Arith, type Fa2Mufu } from "./_fa2_arith.ts";
import { _launchShape, _sequences, _splitCount, type Fa2Sequence } from "./_fa2_launch.ts";
import { _fa2QueryTile, type _LaunchCtx, _tileHeight, type Fa2Launch } from "./_fa2_query_tile.ts";
import type { _TileWalkInput, Fa2KvTile, SyncKWalk } from "./_fa2_tile_walk.ts";
import { _fa2TileWalkMany } from "./_fa2_tile_walk_many.ts";
import { _newRowState, type _RowState } from "./_fa2_softmax_step.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { fa2KeptTileKey } from "./fa2_kv_cache.ts";
import { fa2MaskingSteps } from "./fa2_masking_steps.ts";
import { fa2SfuFunctions } from "./fa2_sfu_functions.ts";
import { fa2CombineBlockM, fa2SplitTiles } from "./fa2_split_tiles.ts";
import { FA2_SPLIT_RANGES } from "./fa2_split_range.ts";
import { fa2Tiles } from "./fa2_tiles.ts";
import type { Fa2TileSoftmax } from "./fa2_tile_softmax.ts";
import type {
  AttentionInputs,
  FlashAttentionOptions,
  FlashAttentionResult,
} from "./fa2_options.ts";

/**
 * Every decision of a launch (datapath, build, tiles, splits, scales, sequences), as
 * structured-cloneable data (no functions): it can be posted to a worker as is.
 */
export interface Fa2Plan extends Fa2Launch {
  /** The sequences of the (varlen) batch. */
  readonly seq: readonly Fa2Sequence[];
  /** Query heads. */
  readonly heads: number;
  /** KV heads. */
  readonly kvHeads: number;
  /** Head dimension. */
  readonly d: number;
  /** Query tokens of the whole batch. */
  readonly totalQ: number;
  /** Whether O is also kept in FP32. */
  readonly returnFp32: boolean;
  /** The `Fa2KvCache` whose kept tiles the launch reads and fills (its id), or null. */
  readonly kvCache: number | null;
  /**
   * Element offset of the caller's K view in its buffer: kept tiles are found by where the
   * caller's keys lie, also on threads that read a copy of K placed elsewhere (a pool's).
   */
  readonly kOrigin: number;
}

/** Where the heads write: O (BF16), optionally O in FP32 and the LSE [heads, total_q]. */
export interface Fa2Sinks {
  /** O [total_q, heads, d], BF16 patterns. */
  readonly out: Uint16Array;
  /** O before its BF16 rounding (with `returnFp32`). */
  readonly outF32?: Uint32Array | undefined;
  /** LSE [heads, total_q] (when the plan needs it). */
  readonly lse?: Uint32Array | undefined;
}

/** The thread-local part of a launch: the build's instructions and the K-walk. */
export interface Fa2Runner {
  /** The build's FP32 instructions around one MUFU model. */
  readonly arith: Fa2Arith;
  /** The K-walk of the tile products. */
  readonly kWalk: SyncKWalk;
  /** The tile softmax when not the TypeScript step (see `FlashAttentionOptions.tileSoftmax`). */
  readonly tileSoftmax?: Fa2TileSoftmax | undefined;
  /**
   * KV tiles built so far by this thread, per `${sequence}/${kvHead}`: the query heads of one KV
   * head read the same K and transposed V tiles (one runner per launch: the cache lives as long
   * as the launch's inputs; `fa2KvGroup` drops a KV head's tiles once its query heads are done).
   */
  readonly kvTiles: Map<string, Map<string, Fa2KvTile>>;
  /** This thread's tiles of the launch's `Fa2KvCache` (kept across launches), if it names one. */
  readonly kept?: Map<string, Fa2KvTile> | undefined;
}

/**
 * Checks the launch and fixes every decision (datapath, tiles, splits, scales, LSE).
 *
 * @param inputs Q, K, V
 * @param options the forward options
 * @returns the plan and the MUFU model with its LG2 resolved
 * @throws {RangeError|TypeError} as `flashAttentionForward` documents
 * @example
 * ```ts
 * import { planFa2 } from "./fa2_plan.ts";
 * import { FA2_DAO_FASTMATH } from "./fa2_build.ts";
 * import { createSfu, parseGpuProfile } from "../../hardware/mod.ts";
 * const json = JSON.parse(Deno.readTextFileSync(new URL("../../../profiles/gpu/a100.json", import.meta.url)));
 * const x = new Uint16Array(2 * 128);
 * const { plan } = planFa2({ q: x, k: x, v: x }, {
 *   heads: 2, kvHeads: 1, headDim: 128, causal: false, build: FA2_DAO_FASTMATH,
 *   profile: parseGpuProfile(json), mufu: createSfu({ mode: "ieee" }), multiProcessorCount: 108,
 * });
 * if (plan.heads !== 2 || plan.totalQ !== 1 || plan.splits !== 1) throw new Error();
 * if (structuredClone(plan).tiles.blockN !== plan.tiles.blockN) throw new Error(); // plain data
 * ```
 */
export function planFa2(
  inputs: AttentionInputs,
  options: FlashAttentionOptions,
): { plan: Fa2Plan; mufu: Fa2Mufu } {
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
  // mha_varlen_fwd and mha_fwd drop the causal flag when the longest query has one token.
  const shape = _launchShape(options, seq);
  const causal = options.causal && shape.maxQ > 1;
  const tiles = fa2Tiles(options.profile.architecture, { headDim: d, causal });
  const splits = _splitCount(options, shape);
  const splitKernel = splits > 1 || options.pagedKv === true;
  const splitRange = options.splitRange ?? "launch";
  if (!FA2_SPLIT_RANGES.includes(splitRange)) {
    throw new RangeError(
      `Cannot run FA2: splitRange '${splitRange}' is not one of ${FA2_SPLIT_RANGES.join(", ")}`,
    );
  }
  const splitTiles = fa2SplitTiles(d);
  // Is_even_MN reads the launch's seqlen_q and seqlen_k (mha_fwd: every sequence's lengths).
  const maskingSteps = fa2MaskingSteps(splitKernel ? splitTiles : tiles, {
    causal,
    varlen: options.cuSeqlensQ !== undefined,
    seqlenQ: shape.maxQ,
    seqlenK: shape.maxK,
    headDim: d,
  });
  const m = options.mufu;
  const lg2 = options.lg2 ?? m.lg2;
  const lse = options.returnLse === true || options.lg2 !== undefined;
  if ((splits > 1 || lse) && lg2 === undefined) {
    throw new RangeError(
      `Cannot run FA2: ${splits > 1 ? `the ${splits}-split KV launch` : "the LSE"} needs ` +
        "MUFU.LG2 ('lg2' on the MUFU model or the 'lg2' option)",
    );
  }
  // `float softmax_scale` (HF passes `head_dim**-0.5`, a double, rounded to float); then
  // `set_params_fprop`: `scale_softmax_log2 = softmax_scale * M_LOG2E`, float times double in
  // double, stored as float (RNE; Float32Array stores round to nearest even). For d = 64, 96,
  // 128, 256 neither rounding is near a tie, so `d ** -0.5` vs `1 / sqrt(d)` and a double vs an
  // FP32 product give the same patterns (tested).
  const scale = Math.fround(options.softmaxScale ?? d ** -0.5);
  return {
    plan: {
      dp,
      build,
      scaleLog2: bitsFromF32(scale * Math.LOG2E),
      softmaxScale: bitsFromF32(scale),
      causal,
      splits,
      splitKernel,
      seqlenK: shape.maxK,
      splitRange,
      tiles,
      splitTiles,
      combineBlockM: fa2CombineBlockM(d),
      lse,
      maskingSteps,
      seq,
      heads,
      kvHeads,
      d,
      totalQ: inputs.q.length / (heads * d),
      returnFp32: options.returnFp32 === true,
      kvCache: options.kvCache?.id ?? null,
      kOrigin: inputs.k.byteOffset / 2,
    },
    mufu: { ex2: m.ex2, rcp: m.rcp, rsqrt: m.rsqrt, lg2 },
  };
}

/**
 * The thread-local instructions of a plan: each thread builds its own around its MUFU model
 * and K-walk (functions, never posted).
 *
 * @param build the FA2 build (`plan.build`)
 * @param options `mufu`: the MUFU model with LG2 resolved (`planFa2`'s `mufu`, or the SFU a
 *   worker rebuilt from its description); `kWalk`: the K-walk of the tile products
 * @returns the runner
 * @throws {RangeError} as `planFa2` for a build without a combine `logf`
 * @example
 * ```ts
 * import { fa2Runner } from "./fa2_plan.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * import { createSfu, kWalkReference } from "../../hardware/mod.ts";
 * const r = fa2Runner(FA2_PYTORCH_BUNDLED, { mufu: createSfu({ mode: "ieee" }), kWalk: kWalkReference });
 * if (r.arith.recip(0x40000000) !== 0x3f000000) throw new Error(); // IEEE 1/2
 * ```
 */
export function fa2Runner(
  build: Fa2Build,
  options: {
    readonly mufu: Fa2Mufu;
    readonly kWalk: SyncKWalk;
    readonly tileSoftmax?: Fa2TileSoftmax | undefined;
    readonly kept?: Map<string, Fa2KvTile> | undefined;
  },
): Fa2Runner {
  return {
    arith: _fa2Arith(build, options.mufu),
    kWalk: options.kWalk,
    tileSoftmax: options.tileSoftmax,
    kvTiles: new Map(),
    kept: options.kept,
  };
}

/**
 * Output buffers of a plan, zero-filled.
 *
 * @param plan the plan
 * @param alloc hands out n zero-filled bytes (default a fresh Uint8Array; a runner on several
 *   threads passes ranges of shared memory)
 * @returns the sinks
 * @example
 * ```ts ignore
 * const sinks = fa2Sinks(plan); // out: totalQ * heads * d BF16 patterns
 * ```
 */
export function fa2Sinks(
  plan: Fa2Plan,
  alloc: (bytes: number) => Uint8Array = (n) => new Uint8Array(n),
): Fa2Sinks {
  const n = plan.totalQ * plan.heads * plan.d;
  const u32 = (count: number) => {
    const room = alloc(4 * count);
    return new Uint32Array(room.buffer, room.byteOffset, count);
  };
  const room = alloc(2 * n);
  return {
    out: new Uint16Array(room.buffer, room.byteOffset, n),
    outF32: plan.returnFp32 ? u32(n) : undefined,
    lse: plan.lse ? u32(plan.heads * plan.totalQ) : undefined,
  };
}

/**
 * Computes query head h of every sequence into the sinks (disjoint from other heads' entries,
 * so heads may run in any order on any thread).
 *
 * @param plan the plan
 * @param work `runner`: the thread's instructions and K-walk; `inputs`: Q, K, V; `h`: the query
 *   head (0 <= h < plan.heads); `sinks`: the output buffers
 * @example
 * ```ts ignore
 * for (let h = 0; h < plan.heads; h++) fa2Head(plan, { runner, inputs, h, sinks });
 * ```
 */
export function fa2Head(
  plan: Fa2Plan,
  work: {
    readonly runner: Fa2Runner;
    readonly inputs: AttentionInputs;
    readonly h: number;
    readonly sinks: Fa2Sinks;
  },
): void {
  const kvh = Math.floor(work.h / (plan.heads / plan.kvHeads));
  _fa2Heads(plan, work, { kvh, h0: work.h, count: 1 });
}

/**
 * Computes every query head of KV head `kvh` (heads kvh * g .. kvh * g + g - 1, g = heads /
 * kvHeads) of every sequence into the sinks, the heads' rows of each m-block stacked in one tile
 * (as the GQA swap packs them on the GPU): the same bits as {@link fa2Head} for each of them,
 * with one tile product per KV tile instead of one per query head. KV heads write disjoint
 * entries, so they may run in any order on any thread.
 *
 * @param plan the plan
 * @param work `runner`, `inputs` and `sinks` as for {@link fa2Head}; `kvh`: the KV head
 *   (0 <= kvh < plan.kvHeads)
 * @example
 * ```ts ignore
 * for (let kvh = 0; kvh < plan.kvHeads; kvh++) fa2KvGroup(plan, { runner, inputs, kvh, sinks });
 * ```
 */
export function fa2KvGroup(
  plan: Fa2Plan,
  work: {
    readonly runner: Fa2Runner;
    readonly inputs: AttentionInputs;
    readonly kvh: number;
    readonly sinks: Fa2Sinks;
  },
): void {
  const g = plan.heads / plan.kvHeads;
  _fa2Heads(plan, work, { kvh: work.kvh, h0: work.kvh * g, count: g });
  // Every query head of this KV head is done: its launch-local tiles are read no more (a long
  // prefill's tiles of one KV head and their packed panels are hundreds of MB).
  plan.seq.forEach((_, s) => work.runner.kvTiles.delete(`${s}/${work.kvh}`));
}

/**
 * {@link fa2KvGroup} for a batch of launches over one KV cache (a served sequence's decode steps
 * of one layer, each launch its own plan, inputs and sinks): every launch's tile walks are
 * recorded, run together (`_fa2TileWalkMany`: each shared KV tile's products once for the rows of
 * every launch that visits it), then each launch finishes from its walks' states. The same bits
 * as one `fa2KvGroup` per launch. The plans must share the build, datapath, heads, head
 * dimension and scale (one layer's launches do).
 *
 * @param plans the launches' plans
 * @param work `runner` (one per thread: each launch gets its own launch-local tiles),
 *   `inputs` and `sinks` per launch, `kvh`: the KV head
 * @example
 * ```ts ignore
 * for (let kvh = 0; kvh < kvHeads; kvh++) fa2KvGroupBatch(plans, { runner, inputs, kvh, sinks });
 * ```
 */
export function fa2KvGroupBatch(
  plans: readonly Fa2Plan[],
  work: {
    readonly runner: Fa2Runner;
    readonly inputs: readonly AttentionInputs[];
    readonly kvh: number;
    readonly sinks: readonly Fa2Sinks[];
  },
): void {
  const recorded: _TileWalkInput[] = [];
  const runners = plans.map(() => ({ ...work.runner, kvTiles: new Map() }));
  const each = (walker: (input: _TileWalkInput) => _RowState[]) =>
    plans.forEach((plan, i) => {
      const g = plan.heads / plan.kvHeads;
      _fa2Heads(
        plan,
        { runner: runners[i]!, inputs: work.inputs[i]!, sinks: work.sinks[i]! },
        { kvh: work.kvh, h0: work.kvh * g, count: g },
        walker,
      );
    });
  // Record: placeholder states (the outputs written now are overwritten below).
  each((input) => {
    recorded.push(input);
    return input.visible.map(() => _newRowState(input.d));
  });
  const states = _fa2TileWalkMany(recorded, plans[0]?.build.kvWalk === "descending");
  let next = 0;
  each(() => states[next++]!);
}

/** Query heads h0 .. h0 + count - 1 of KV head kvh, stacked in one tile per m-block. */
function _fa2Heads(
  plan: Fa2Plan,
  work: { readonly runner: Fa2Runner; readonly inputs: AttentionInputs; readonly sinks: Fa2Sinks },
  group: { readonly kvh: number; readonly h0: number; readonly count: number },
  walker?: (input: _TileWalkInput) => _RowState[],
): void {
  const { runner, inputs, sinks } = work;
  const { kvh, h0, count } = group;
  const { heads, kvHeads, d, totalQ } = plan;
  const ctx: _LaunchCtx = { ...plan, ...runner, walker };
  const row = (a: Uint16Array, t: number, hh: number, nh: number) =>
    a.subarray((t * nh + hh) * d, (t * nh + hh + 1) * d);
  const height = _tileHeight(ctx);
  plan.seq.forEach(({ q0, k0, sq, sk }, s) => {
    const key = (j: number) => row(inputs.k, k0 + j, kvh, kvHeads);
    const value = (j: number) => row(inputs.v, k0 + j, kvh, kvHeads);
    const kvRows = {
      k: inputs.k,
      v: inputs.v,
      first: (k0 * kvHeads + kvh) * d,
      stride: kvHeads * d,
    };
    const id = `${s}/${kvh}`;
    let tiles = runner.kvTiles.get(id);
    if (tiles === undefined) runner.kvTiles.set(id, tiles = new Map());
    // Kept tiles are found by where the sequence's keys lie in the caller's K buffer.
    const first = plan.kOrigin + k0 * kvHeads * d;
    const kept = plan.kvCache === null || runner.kept === undefined ? undefined : {
      tiles: runner.kept,
      key: (blockN: number, block: number) =>
        fa2KeptTileKey({ first, kvHeads, d, kvh, blockN, block }),
    };
    for (let i0 = 0; i0 < sq; i0 += height) {
      const rows = Math.min(height, sq - i0);
      const q = new Uint16Array(count * rows * d);
      for (let j = 0; j < count; j++) {
        for (let r = 0; r < rows; r++) {
          q.set(row(inputs.q, q0 + i0 + r, h0 + j, heads), (j * rows + r) * d);
        }
      }
      const outs = _fa2QueryTile(ctx, {
        q,
        key,
        value,
        kvRows,
        ...(kept === undefined ? {} : { kept }),
        i0,
        rows,
        sq,
        sk,
        tiles,
        stack: count,
      });
      outs.forEach((res, idx) => {
        const h = h0 + Math.floor(idx / rows);
        const i = idx % rows;
        const at = ((q0 + i0 + i) * heads + h) * d;
        sinks.out.set(res.out, at);
        sinks.outF32?.set(res.outF32, at);
        if (sinks.lse !== undefined && res.lse !== undefined) {
          sinks.lse[h * totalQ + q0 + i0 + i] = res.lse;
        }
      });
    }
  });
}

/**
 * The result of a launch whose heads have all been computed (the buffers are handed out as
 * they are: a runner on shared memory passes copies).
 *
 * @param plan the plan
 * @param sinks the filled buffers
 * @returns the forward's result
 * @example
 * ```ts ignore
 * const result = fa2Result(plan, sinks);
 * ```
 */
export function fa2Result(plan: Fa2Plan, sinks: Fa2Sinks): FlashAttentionResult {
  return {
    out: sinks.out,
    ...(sinks.lse === undefined ? {} : { lse: sinks.lse }),
    ...(sinks.outF32 === undefined ? {} : { outF32: sinks.outF32 }),
    splits: plan.splits,
    sfuFunctionsUsed: fa2SfuFunctions(plan.build, { splits: plan.splits, lse: plan.lse }),
  };
}

/**
 * Worker script of the FA2 pool: binds an engine to the posted GEMM kernel module once, then, for
 * each launch, rebuilds the SFU from its plain-data description and computes the query heads it
 * claims from the launch's shared counter, writing into the shared output buffers.
 *
 * @module
 */
import { createSfu } from "../hardware/mod.ts";
import { type Fa2KvTile, type Fa2Plan, fa2Runner } from "../kernels/mod.ts";
import { formatByName } from "../numerics/mod.ts";
import { engineFromModule } from "./gemm_engine.ts";
import { fa2Units, type Fa2WorkerJob } from "./fa2_units.ts";
import { serveWorkerJobs } from "./worker_group.ts";

/** Kept KV tiles of the launches' `Fa2KvCache`s by id, the most recently used last. */
const kept = new Map<number, Map<string, Fa2KvTile>>();
/** Caches whose tiles a worker keeps (the oldest dropped first): a few layers' sequences. */
const KEPT_CACHES = 4;

/** This worker's tiles of cache `id`, made most recently used (null: no cache). */
function keptTiles(id: number | null): Map<string, Fa2KvTile> | undefined {
  if (id === null) return undefined;
  const tiles = kept.get(id) ?? new Map<string, Fa2KvTile>();
  kept.delete(id);
  kept.set(id, tiles);
  for (const old of kept.keys()) {
    if (kept.size <= KEPT_CACHES) break;
    kept.delete(old);
  }
  return tiles;
}

serveWorkerJobs(engineFromModule, (engine, job: Fa2WorkerJob) => {
  try {
    const plan = _interned(job.plan);
    const batch = job.batch === null
      ? null
      : { ...job.batch, plans: job.batch.plans.map(_interned) };
    const mufu = createSfu(job.sfu);
    const runner = fa2Runner(plan.build, {
      mufu,
      kWalk: engine.kWalkAuto,
      tileSoftmax: job.wasmSoftmax ? engine.fa2TileSoftmax(plan.build, mufu) : undefined,
      // A batch reads its tiles within the job: nothing kept past it (a layer's cache of a long
      // sequence is hundreds of MB); single launches keep theirs for the next launch.
      kept: batch !== null ? new Map() : keptTiles(plan.kvCache),
    });
    fa2Units(plan, { ...job, batch, runner });
  } catch (err) {
    Atomics.store(job.counter, 0, job.plan.heads); // stop the other threads claiming
    throw err;
  }
});

/** Structured cloning copies the format descriptors; the datapath needs the interned ones. */
function _interned(p: Fa2Plan): Fa2Plan {
  const dp = p.dp;
  return {
    ...p,
    dp: {
      ...dp,
      input: formatByName(dp.input.name),
      output: formatByName(dp.output.name),
      resultFormat: formatByName(dp.resultFormat.name),
    },
  };
}

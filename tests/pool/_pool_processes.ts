/**
 * The processes a pool test runs against its plan: a `bitaudit worker` on the fixture's log and
 * `audit serve` of the plan, each with network access to the test's nats-server only, and the
 * worker's stop (shared by the pool tests).
 */
import type { AuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import type { NatsServer } from "./_nats_server.ts";
import { POOL_TIME } from "./_plan.ts";
import { spawnBitaudit } from "./_spawn.ts";

/** A bitaudit process a pool test spawned, its output read as it comes. */
export type PoolProcess = ReturnType<typeof spawnBitaudit>;

/**
 * Spawns `bitaudit worker` on the fixture's log, signing with the fixture's worker key (or `key`),
 * on one thread, then `extra`; it may read the repository and the fixture's folder and reach the
 * server only.
 *
 * @param nats the server
 * @param f the fixture
 * @param o `key`, another private key file to sign with; `extra`, more options (`--max-idle 5`)
 * @returns the worker's process
 */
export function spawnWorker(
  nats: NatsServer,
  f: AuditFixture,
  o: { key?: string; extra?: readonly string[] } = {},
): PoolProcess {
  const key = o.key ?? f.worker.key;
  return spawnBitaudit(
    [
      "worker",
      "--nats",
      nats.url,
      "--log",
      f.log,
      "--key",
      key,
      "--threads",
      "1",
      ...o.extra ?? [],
    ],
    [`--allow-read=${REPO_ROOT},${f.dir}`, `--allow-net=${nats.hostPort}`],
  );
}

/**
 * Spawns `audit serve` of a plan: signed with the fixture's key, its results with the fixture's
 * worker key, written to `<fixture>/<out>` at the pool tests' time, then `extra`, then `--json`;
 * it may read the repository and the fixture's folder, write `out` only and reach the server only.
 *
 * @param nats the server
 * @param o the fixture, the plan's path, the output folder's name in the fixture's folder and
 *   more options (e.g. `--timeout 120`)
 * @returns the serve's process
 */
export function spawnServe(
  nats: NatsServer,
  o: { f: AuditFixture; plan: string; out: string; extra?: readonly string[] },
): PoolProcess {
  const { f, plan } = o;
  return spawnBitaudit([
    "audit",
    "serve",
    ...["--plan", plan, "--nats", nats.url, "--key", f.key, "--worker-pub", f.worker.pub],
    ...["--out", `${f.dir}/${o.out}`, "--time", POOL_TIME, ...(o.extra ?? []), "--json"],
  ], [
    `--allow-read=${REPO_ROOT},${f.dir}`,
    `--allow-write=${f.dir}/${o.out}`,
    `--allow-net=${nats.hostPort}`,
  ]);
}

/**
 * Kills a worker (unless none was spawned or it has ended) and waits for it to end: the
 * `finally` of a pool test.
 *
 * @param worker the worker, or undefined when the test failed before spawning it
 */
export async function stopWorker(worker: PoolProcess | undefined): Promise<void> {
  if (worker === undefined) return;
  try {
    Deno.kill(worker.pid, "SIGKILL");
  } catch { /* already ended */ }
  await worker.done();
}

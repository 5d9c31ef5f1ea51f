import assert from "node:assert/strict";
import { arenaClass, jobArena } from "../../src/engine/job_arena.ts";

Deno.test("arenaClass() rounds to powers of two up to 64 KiB, then to eighths, never below the request", () => {
  assert.equal(arenaClass(0), 64);
  assert.equal(arenaClass(4), 64);
  assert.equal(arenaClass(65), 128);
  assert.equal(arenaClass(4096), 4096);
  assert.equal(arenaClass(65_536), 65_536);
  assert.equal(arenaClass(65_537), 73_728); // 9 x 8 KiB
  for (let bytes = 1; bytes < 2 ** 31; bytes = Math.ceil(bytes * 1.37) + 11) {
    const c = arenaClass(bytes);
    assert.ok(c >= bytes, `${bytes} -> ${c}`);
    if (bytes > 65_536) assert.ok(c <= bytes * 1.125, `${bytes} -> ${c}`);
  }
});

Deno.test("jobArena() reuses an ended lease's buffers zero-filled and keeps leases apart", () => {
  const arena = jobArena();
  const one = arena.lease();
  const a = one.alloc(1000);
  const b = one.alloc(1000);
  assert.notEqual(a, b);
  assert.ok(a.byteLength >= 1000);
  new Uint8Array(a).fill(0xaa);
  new Uint8Array(b).fill(0xbb);
  assert.equal(arena.leasedBytes, 2 * a.byteLength);
  const two = arena.lease();
  const c = two.alloc(1000); // one's buffers are still out
  assert.ok(c !== a && c !== b);
  one.end();
  one.end(); // twice: ignored
  assert.equal(arena.idleBytes, 2 * a.byteLength);
  const d = two.alloc(900); // same class: reused, its asked-for bytes zeroed
  assert.ok(d === a || d === b);
  assert.ok(new Uint8Array(d, 0, 900).every((x) => x === 0));
  assert.throws(() => one.alloc(8), /lease has ended/);
  assert.throws(() => two.alloc(-1), RangeError);
  assert.throws(() => two.alloc(1.5), RangeError);
  two.end();
  assert.equal(arena.leasedBytes, 0);
});

Deno.test("jobArena() keeps idle buffers up to the largest lease, giving up the oldest first", () => {
  const arena = jobArena({ minIdle: 0 });
  const big = arena.lease();
  const x = big.alloc(4096);
  const y = big.alloc(4096);
  big.end(); // largest lease 8 KiB: both kept
  assert.equal(arena.idleBytes, 8192);
  const small = arena.lease();
  const z = small.alloc(1024);
  small.end(); // 9 KiB idle > 8 KiB: the oldest (x) is given up
  assert.equal(arena.idleBytes, 4096 + 1024);
  const again = arena.lease();
  assert.equal(again.alloc(4096), y);
  assert.notEqual(again.alloc(4096), x);
  assert.equal(again.alloc(1024), z);
  again.end();
});

Deno.test("jobArena() stays bounded over many launches of growing shapes", () => {
  const arena = jobArena({ minIdle: 0 });
  let made = 0;
  const seen = new Set<SharedArrayBuffer>();
  for (let step = 0; step < 400; step++) {
    const lease = arena.lease();
    for (const bytes of [2 * (5400 + step) * 1024, 4 * 8 * 2048, 4]) {
      const buffer = lease.alloc(bytes);
      if (!seen.has(buffer)) made++;
      seen.add(buffer);
    }
    lease.end();
  }
  // K/V copies growing by one key a launch share a handful of classes.
  assert.ok(made <= 12, `${made} buffers made`);
  assert.ok(arena.idleBytes <= 2 * 2 * 5800 * 1024 + 65536 + 64);
});

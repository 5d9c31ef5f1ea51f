import assert from "node:assert/strict";
import { arenaClass, int32View, jobArena } from "../../src/engine/job_arena.ts";

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

Deno.test("jobArena() hands out ranges of one growable shared buffer, reused zero-filled once a lease ends", () => {
  const arena = jobArena();
  const one = arena.lease();
  const a = one.alloc(1000);
  const b = one.alloc(1000);
  assert.ok(a.buffer instanceof SharedArrayBuffer && (a.buffer as SharedArrayBuffer).growable);
  assert.equal(a.buffer, b.buffer); // the one buffer every thread sees
  assert.equal(a.length, 1000);
  assert.ok(a.byteOffset % 64 === 0 && b.byteOffset % 64 === 0);
  assert.ok(Math.abs(a.byteOffset - b.byteOffset) >= 1024); // disjoint: 1000 -> class 1024
  a.fill(0xaa);
  b.fill(0xbb);
  assert.equal(arena.leasedBytes, 2048);
  const two = arena.lease();
  const c = two.alloc(1000); // one's ranges are still out
  assert.ok(
    c.byteOffset >= Math.max(a.byteOffset, b.byteOffset) + 1024 ||
      c.byteOffset + 1024 <= Math.min(a.byteOffset, b.byteOffset),
  );
  one.end();
  one.end(); // twice: ignored
  assert.equal(arena.leasedBytes, 1024);
  const d = two.alloc(900); // one's range again, its bytes zeroed
  assert.ok(d.byteOffset === a.byteOffset || d.byteOffset === b.byteOffset);
  assert.ok(d.every((x) => x === 0));
  assert.throws(() => one.alloc(8), /lease has ended/);
  assert.throws(() => two.alloc(-1), RangeError);
  assert.throws(() => two.alloc(1.5), RangeError);
  two.end();
  assert.equal(arena.leasedBytes, 0);
  const counter = int32View(arena.lease().alloc(4), 1);
  assert.equal(counter.buffer, a.buffer);
  assert.equal(Atomics.add(counter, 0, 5), 0);
});

Deno.test("jobArena() merges freed neighbours: a larger request fits where smaller ones were", () => {
  const arena = jobArena();
  const first = arena.lease();
  const parts = [first.alloc(4096), first.alloc(4096), first.alloc(8192)];
  const reserved = arena.reservedBytes;
  first.end();
  const second = arena.lease();
  const whole = second.alloc(16_384); // the three ranges, merged
  assert.equal(whole.byteOffset, Math.min(...parts.map((p) => p.byteOffset)));
  assert.equal(arena.reservedBytes, reserved);
  second.end();
});

Deno.test("jobArena() stays at its high-water mark over many launches of growing shapes", () => {
  const arena = jobArena();
  let largest = 0;
  for (let step = 0; step < 400; step++) {
    const lease = arena.lease();
    let held = 0;
    for (const bytes of [2 * (5400 + step) * 1024, 4 * 8 * 2048, 4]) {
      lease.alloc(bytes);
      held += arenaClass(bytes);
    }
    largest = Math.max(largest, held);
    lease.end();
  }
  // K/V copies growing by one key a launch: the buffer holds about one launch, not 400.
  assert.ok(arena.reservedBytes <= 2 * largest + 2 ** 20, `${arena.reservedBytes} bytes`);
});

Deno.test("jobArena() refuses to grow past its limit with a one-line error and stays usable", () => {
  const arena = jobArena({ maxBytes: 2 ** 20 });
  const lease = arena.lease();
  lease.alloc(2 ** 19);
  assert.throws(() => lease.alloc(2 ** 20), /Cannot allocate 1048576 bytes of pool memory/);
  lease.end();
  const again = arena.lease();
  assert.equal(again.alloc(2 ** 20).length, 2 ** 20); // the whole arena, once free
  again.end();
});

Deno.test("jobArena() never hands out overlapping live ranges (random leases)", () => {
  const arena = jobArena();
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
  const live: { lease: ReturnType<typeof arena.lease>; views: Uint8Array[]; tag: number }[] = [];
  let tag = 0;
  for (let step = 0; step < 600; step++) {
    if (live.length > 0 && rand(3) === 0) {
      const [gone] = live.splice(rand(live.length), 1);
      for (const v of gone!.views) {
        assert.ok(v.every((x) => x === gone!.tag), "a range was overwritten");
      }
      gone!.lease.end();
      continue;
    }
    const lease = arena.lease();
    tag = (tag % 255) + 1;
    const views: Uint8Array[] = [];
    for (let i = rand(4); i >= 0; i--) {
      const v = lease.alloc(rand(3) === 0 ? rand(300_000) : rand(5000));
      assert.ok(v.every((x) => x === 0), "not zero-filled");
      v.fill(tag);
      views.push(v);
    }
    live.push({ lease, views, tag });
  }
  for (const l of live) {
    for (const v of l.views) assert.ok(v.every((x) => x === l.tag), "a range was overwritten");
    l.lease.end();
  }
  assert.equal(arena.leasedBytes, 0);
});

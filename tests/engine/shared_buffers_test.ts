import assert from "node:assert/strict";
import { sharedBuffers } from "../../src/engine/mod.ts";

Deno.test("sharedBuffers() reuses released buffers by size and ignores foreign or repeated releases", () => {
  const pool = sharedBuffers();
  const a = pool.alloc(1024);
  const b = pool.alloc(2048);
  assert.ok(a instanceof SharedArrayBuffer && a.byteLength === 1024);
  assert.equal(pool.inUse, 3072);
  pool.release(a);
  pool.release(a); // twice: ignored
  pool.release(new SharedArrayBuffer(1024)); // not ours: ignored
  pool.release(new ArrayBuffer(1024)); // not shared: ignored
  assert.equal(pool.inUse, 2048);
  assert.equal(pool.alloc(2048) === b, false); // b is still out
  assert.equal(pool.alloc(1024), a); // a, handed back, is handed out again
  assert.notEqual(pool.alloc(1024), a); // and only once
  assert.equal(pool.inUse, 2048 + 2048 + 1024 + 1024);
});

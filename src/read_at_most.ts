/**
 * Reading a whole file with a size limit that holds whatever the file system says its size is:
 * `stat` can say 0 for a file that never ends (procfs, FUSE, network files) or a file can grow
 * after it, so the bytes are counted as they are read and reading stops one past the limit.
 *
 * @module
 */

/** Size of each read. */
const CHUNK = 1 << 16;

/**
 * Reads a file, giving up as soon as it holds more than `maxBytes`.
 *
 * @param path the file
 * @param maxBytes largest accepted size
 * @returns its bytes, or null when it is larger (nothing more than `maxBytes + 1` was read)
 * @throws the file system's error when it cannot be opened or read
 * @example
 * ```ts ignore
 * const bytes = await readAtMost("claims.jsonl", 1 << 28);
 * ```
 */
export async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array | null> {
  using file = await Deno.open(path, { read: true });
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const room = Math.min(CHUNK, maxBytes + 1 - total);
    const buf = new Uint8Array(room);
    const n = await file.read(buf);
    if (n === null) break;
    parts.push(n === room ? buf : buf.subarray(0, n));
    total += n;
    if (total > maxBytes) return null;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Waiting for a child process to reach the point a test interrupts it at: the child prints
 * "ready" there.
 */

/**
 * Reads a child's standard output until it has printed "ready" or ended, and releases the reader.
 *
 * @param child a child spawned with `stdout: "piped"`
 * @returns what it printed so far
 */
export async function untilReady(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return out;
}

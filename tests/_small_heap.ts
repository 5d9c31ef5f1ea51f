/**
 * Runs a snippet in a fresh Deno process whose V8 heap is capped, for the tests that show a parse
 * stays within memory a naive one would exceed: a run past the cap dies of heap exhaustion.
 */
import assert from "node:assert/strict";

/**
 * Evaluates `code` under `--max-old-space-size=<heapMiB>` and returns what it printed.
 *
 * @param code the module code (it may `await import(...)` the module under test by URL)
 * @param heapMiB the old-space cap in MiB
 * @returns stdout, trimmed
 * @throws {AssertionError} when the process does not exit 0 (its stderr's start in the message)
 */
export async function printedInSmallHeap(code: string, heapMiB = 64): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", `--v8-flags=--max-old-space-size=${heapMiB}`, code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `exit ${out.code}: ${err.slice(0, 300)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * The claim records docs/prover.md quotes (JSONC blocks with comments) against a demo log: each
 * must be the log's line at its sequence number, field for field.
 */
import assert from "node:assert/strict";

const PROVER_MD = new URL("../../docs/prover.md", import.meta.url);

/** Drops `// ...` comments that follow a token (never `://` inside a URL). */
function _stripComments(text: string): string {
  return text.split("\n").map((line) => line.replace(/(^|\s)\/\/[^\n]*$/, "")).join("\n");
}

/**
 * Asserts that every full record prover.md quotes equals the demo log's record at its `seq`.
 *
 * @param logPath the demo's claims.jsonl
 * @returns the sequence numbers compared
 */
export async function assertDocRecordsMatch(logPath: string): Promise<number[]> {
  const doc = await Deno.readTextFile(PROVER_MD);
  const lines = (await Deno.readTextFile(logPath)).split("\n").filter((l) => l !== "");
  const seen: number[] = [];
  for (const m of doc.matchAll(/```jsonc\n([\s\S]*?)```/g)) {
    const quoted = JSON.parse(_stripComments(m[1]!));
    const seq = quoted?.predicate?.log?.seq;
    if (typeof seq !== "number") continue; // a workload excerpt, not a whole record
    assert.deepEqual(quoted, JSON.parse(lines[seq]!), `docs/prover.md's record ${seq}`);
    seen.push(seq);
  }
  return seen;
}

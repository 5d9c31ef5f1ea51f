/** `ncclEnvFinding()`: a record's stated NCCL environment against its recorded NCCL all-reduce. */
import assert from "node:assert/strict";
import { type ClaimedAllReduce, ncclEnvFinding } from "../../src/kernels/mod.ts";

const RING = {
  kind: "nccl-ring",
  protocol: "ll128",
  chunkBytes: 1024,
  rings: [[0, 1, 2, 3]],
} as const satisfies ClaimedAllReduce;
const DISPATCH = { kind: "vllm-dispatch", nccl: RING } as const satisfies ClaimedAllReduce;

Deno.test("ncclEnvFinding() reads NCCL's list syntax, without case, per collective", () => {
  const agree: [string, string][][] = [
    [["NCCL_ALGO", "Ring"], ["NCCL_PROTO", "LL128"]],
    [["NCCL_ALGO", "ring,tree"], ["NCCL_PROTO", "^simple"]],
    [["nccl_algo", " RING "]],
    [["NCCL_ALGO", "broadcast:tree;allreduce:ring"]],
    [["NCCL_ALGO", "broadcast:tree"]], // nothing said of the all-reduce
    [["NCCL_MIN_NCHANNELS", "1"], ["NCCL_MAX_NCHANNELS", "1"]],
    [["NCCL_DEBUG", "INFO"]],
    [],
  ];
  for (const stated of agree) {
    assert.equal(ncclEnvFinding(stated, RING), null, JSON.stringify(stated));
    assert.equal(ncclEnvFinding(stated, DISPATCH), null, JSON.stringify(stated));
  }
  const contradicting: [string, string][][] = [
    [["NCCL_ALGO", "Tree"]],
    [["NCCL_ALGO", "^ring"]],
    [["NCCL_ALGO", "allreduce:tree;broadcast:ring"]],
    [["NCCL_PROTO", "Simple,LL"]],
    [["NCCL_PROTO", "^LL128"]],
    [["NCCL_MIN_NCHANNELS", "2"]],
    [["NCCL_MIN_CTAS", "8"]],
  ];
  for (const stated of contradicting) {
    assert.equal(ncclEnvFinding(stated, RING)?.kind, "contradiction", JSON.stringify(stated));
    assert.equal(ncclEnvFinding(stated, DISPATCH)?.kind, "contradiction", JSON.stringify(stated));
  }
  // More channels allowed, none required: the one-channel replay is not pinned.
  assert.equal(ncclEnvFinding([["NCCL_MAX_NCHANNELS", "4"]], RING)?.kind, "unpinned");
  assert.equal(
    ncclEnvFinding([["NCCL_MAX_NCHANNELS", "4"], ["NCCL_MAX_NCHANNELS", "1"]], RING),
    null,
    "the smallest maximum counts",
  );
  // No NCCL in the record's all-reduce: nothing to compare.
  for (const a of [undefined, { kind: "vllm-custom-1stage" }, { kind: "vllm-dispatch" }] as const) {
    assert.equal(ncclEnvFinding([["NCCL_ALGO", "Tree"]], a as ClaimedAllReduce | undefined), null);
  }
});

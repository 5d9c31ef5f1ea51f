/** `ncclEnvFinding()`: a record's stated NCCL environment against its recorded NCCL all-reduce. */
import assert from "node:assert/strict";
import { type ClaimedAllReduce, ncclEnvFinding } from "../../src/kernels/mod.ts";

/** Two ranks: whatever NCCL chose adds two values, so nothing unstated leaves it unpinned. */
const RING = {
  kind: "nccl-ring",
  protocol: "simple",
  chunkBytes: 2097152,
  rings: [[0, 1]],
} as const satisfies ClaimedAllReduce;
const RING4 = { ...RING, rings: [[0, 1, 2, 3]] } as const satisfies ClaimedAllReduce;
const TREE4 = {
  kind: "nccl-tree",
  protocol: "simple",
  trees: [{ down: [[1], [2], [3], []] }],
} as const satisfies ClaimedAllReduce;
const PIN_RING: [string, string][] = [
  ["NCCL_ALGO", "Ring"],
  ["NCCL_PROTO", "Simple"],
  ["NCCL_MAX_NCHANNELS", "1"],
];
const DISPATCH = { kind: "vllm-dispatch", nccl: RING } as const satisfies ClaimedAllReduce;

Deno.test("ncclEnvFinding() reads NCCL's list syntax, without case, per collective", () => {
  const agree: [string, string][][] = [
    [["NCCL_ALGO", "Ring"], ["NCCL_PROTO", "Simple"]],
    [["NCCL_ALGO", "ring,pat"], ["NCCL_PROTO", "^ll128,ll"]], // PAT runs no all-reduce
    [["NCCL_ALGO", " RING "]],
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
    [["NCCL_PROTO", "LL128,LL"]],
    [["NCCL_PROTO", "^Simple"]],
    [["NCCL_MIN_NCHANNELS", "2"]],
    [["NCCL_MIN_CTAS", "8"]],
  ];
  for (const stated of contradicting) {
    assert.equal(ncclEnvFinding(stated, RING)?.kind, "contradiction", JSON.stringify(stated));
    assert.equal(ncclEnvFinding(stated, DISPATCH)?.kind, "contradiction", JSON.stringify(stated));
  }
  // More channels allowed, none required: the one-channel replay is not pinned.
  assert.equal(ncclEnvFinding([["NCCL_MAX_NCHANNELS", "4"]], RING)?.kind, "unpinned");
  // Stated twice with different values (two components, in no order): which one NCCL read is
  // not known, whichever comes last in the record (review h87); the same value twice is one.
  for (
    const stated of [
      [["NCCL_MAX_NCHANNELS", "4"], ["NCCL_MAX_NCHANNELS", "1"]],
      [["NCCL_MAX_NCHANNELS", "1"], ["NCCL_MAX_NCHANNELS", "32"]],
      [["NCCL_ALGO", "Tree"], ["NCCL_ALGO", "Ring"]],
    ] as [string, string][][]
  ) {
    const f = ncclEnvFinding(stated, RING);
    assert.equal(f?.kind, "unpinned", JSON.stringify(stated));
    assert.match(f.reason, /states NCCL_\w+ with different values/);
  }
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "Ring"], ["NCCL_ALGO", "Ring"]], RING), null);
  // The first entry without a collective applies to every collective, the all-reduce's own
  // entry over it.
  assert.equal(
    ncclEnvFinding([["NCCL_ALGO", "^ring;broadcast:ring"]], RING)?.kind,
    "contradiction",
  );
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "tree;allreduce:ring"]], RING), null);
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "ring;allreduce:tree"]], RING)?.kind, "contradiction");
  assert.equal(
    ncclEnvFinding([["NCCL_PROTO", "LL128,LL;broadcast:Simple"]], RING)?.kind,
    "contradiction",
  );
  // Numbers as NCCL reads them (strtoll, base 0): 0x4 and 010 are 4 and 8.
  for (const v of ["0x4", "010", "+2"]) {
    assert.equal(ncclEnvFinding([["NCCL_MIN_NCHANNELS", v]], RING)?.kind, "contradiction", v);
  }
  assert.equal(ncclEnvFinding([["NCCL_MIN_NCHANNELS", "01"]], RING), null);
  // What cannot be read is not vouched for, never a contradiction.
  for (
    const stated of [
      [["NCCL_MAX_NCHANNELS", "four"]],
      [["NCCL_ALGO", "ring:tree:x"]],
      [["NCCL_ALGO", "broadcast:tree;ring"]],
      [["NCCL_PROTO", "LL 128?"]],
    ] as [string, string][][]
  ) {
    assert.equal(ncclEnvFinding(stated, RING)?.kind, "unpinned", JSON.stringify(stated));
  }
  // No NCCL in the record's all-reduce: nothing to compare.
  for (const a of [undefined, { kind: "vllm-custom-1stage" }, { kind: "vllm-dispatch" }] as const) {
    assert.equal(ncclEnvFinding([["NCCL_ALGO", "Tree"]], a as ClaimedAllReduce | undefined), null);
  }
});

Deno.test("ncclEnvFinding() needs the algorithm, the channel count and a ring's protocol stated above two ranks (review h87)", () => {
  assert.equal(ncclEnvFinding(PIN_RING, RING4), null);
  assert.equal(ncclEnvFinding(PIN_RING, { kind: "vllm-dispatch", nccl: RING4 }), null);
  for (const [i, [name]] of PIN_RING.entries()) {
    const stated = PIN_RING.filter((_, j) => j !== i);
    for (const recorded of [RING4, { kind: "vllm-dispatch", nccl: RING4 }] as const) {
      const f = ncclEnvFinding(stated, recorded);
      assert.equal(f?.kind, "unpinned", name);
      assert.match(f.reason, new RegExp(`states no ${name} .* with 4 ranks NCCL's tuner picks`));
    }
  }
  // Nothing stated: unpinned above two ranks, nothing to pin at two.
  assert.equal(ncclEnvFinding([], RING4)?.kind, "unpinned");
  assert.equal(ncclEnvFinding([["NCCL_DEBUG", "INFO"]], TREE4)?.kind, "unpinned");
  assert.equal(ncclEnvFinding([], RING), null);
  // A list that says nothing of the all-reduce states nothing of it; MAX_CTAS stands for
  // MAX_NCHANNELS, as NCCL reads it.
  assert.equal(
    ncclEnvFinding([["NCCL_ALGO", "broadcast:ring"], ...PIN_RING.slice(1)], RING4)?.kind,
    "unpinned",
  );
  assert.equal(
    ncclEnvFinding([...PIN_RING.slice(0, 2), ["NCCL_MAX_CTAS", "1"]], RING4),
    null,
  );
  // NCCL reads names exactly (getenv): another case is no setting, neither pin nor
  // contradiction (review h98).
  const lower = PIN_RING.map(([n, v]) => [n.toLowerCase(), v] as [string, string]);
  assert.match(ncclEnvFinding(lower, RING4)?.reason ?? "", /states no NCCL_ALGO/);
  assert.equal(ncclEnvFinding([["nccl_algo", "Tree"], ...PIN_RING], RING4), null);
  // A channel count below 1 pins nothing: -2 is NCCL_MAX_NCHANNELS's own unset, and NCCL
  // ignores a MAX_CTAS of 0 or below.
  for (
    const [name, v] of [["NCCL_MAX_NCHANNELS", "-2"], ["NCCL_MAX_NCHANNELS", "0"], [
      "NCCL_MAX_CTAS",
      "-1",
    ]]
  ) {
    const stated: [string, string][] = [...PIN_RING.slice(0, 2), [name!, v!]];
    const f = ncclEnvFinding(stated, RING4);
    assert.equal(f?.kind, "unpinned", `${name}=${v}`);
    assert.match(f.reason, /does not pin one channel/);
  }
  // A tree's chain sums in one order whatever the protocol: NCCL_PROTO need not be stated.
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "Tree"], ["NCCL_MAX_NCHANNELS", "1"]], TREE4), null);
  // A contradiction still wins over what is unstated.
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "Tree"]], RING4)?.kind, "contradiction");
});

Deno.test("ncclEnvFinding() leaves unpinned a list that allows another algorithm or protocol beside the recorded one", () => {
  // NCCL's tuner picks among the allowed ones per message size (review h60 F1).
  const free: [string, string][][] = [
    [["NCCL_ALGO", "Ring,Tree"]],
    [["NCCL_ALGO", "^tree"]], // ring, CollNet, NVLS, NVLSTree left
    [["NCCL_ALGO", "tree;allreduce:ring,nvls"]],
    [["NCCL_PROTO", "LL,Simple,LL128"]],
    [["NCCL_PROTO", "^LL"]], // Simple and LL128 left
    [["NCCL_PROTO", "allreduce:^ll128"]],
  ];
  for (const stated of free) {
    for (const recorded of [RING, DISPATCH]) {
      const f = ncclEnvFinding(stated, recorded);
      assert.equal(f?.kind, "unpinned", JSON.stringify(stated));
      assert.match(f.reason, new RegExp(stated[0]![0]), JSON.stringify(stated));
    }
  }
  // Pinned by a list that leaves the recorded choice alone, however written.
  for (
    const stated of [
      [["NCCL_ALGO", "ring,ring"]],
      [["NCCL_ALGO", "^tree,collnetdirect,collnetchain,nvls,nvlstree"]],
      [["NCCL_PROTO", "^ll,ll128"]],
      [["NCCL_PROTO", "ll,ll128;allreduce:Simple"]],
    ] as [string, string][][]
  ) {
    assert.equal(ncclEnvFinding(stated, RING), null, JSON.stringify(stated));
  }
  // A contradiction on one variable still wins over a free list on the other.
  assert.equal(
    ncclEnvFinding([["NCCL_PROTO", "LL,Simple,LL128"], ["NCCL_ALGO", "Tree"]], RING)?.kind,
    "contradiction",
  );
  // A name NCCL does not know makes NCCL refuse the list: not vouched for.
  assert.equal(ncclEnvFinding([["NCCL_ALGO", "Ring,Foo"]], RING)?.kind, "unpinned");
});

Deno.test("ncclEnvFinding() holds a recorded all-reduce to what NCCL 2.27 builds: a Simple ring's 2 MiB chunk, a chain for a tree on one machine (review h87)", () => {
  const pinned: [string, string][] = [["NCCL_PROTO", "Simple"], ["NCCL_MAX_NCHANNELS", "1"]];
  const treePinned: [string, string][] = [["NCCL_ALGO", "Tree"], ...pinned];
  for (const chunkBytes of [512, 1024, 1 << 20, 4 << 20]) {
    const ring = { ...RING, chunkBytes };
    const f = ncclEnvFinding(pinned, ring);
    assert.equal(f?.kind, "contradiction", String(chunkBytes));
    assert.match(f.reason, /chunk of \d+ bytes is not NCCL's: a Simple ring's chunk is 2097152/);
    assert.equal(
      ncclEnvFinding(pinned, { kind: "vllm-dispatch", nccl: ring })?.kind,
      "contradiction",
    );
  }
  // A stated buffer size changes the chunk (refused elsewhere as not pinned by the stack).
  assert.equal(ncclEnvFinding([["NCCL_BUFFSIZE", "1048576"]], { ...RING, chunkBytes: 1024 }), null);
  // LL and LL128 chunk sizes are not derived: not vouched for, whatever the chunk.
  for (const protocol of ["ll", "ll128"] as const) {
    assert.equal(ncclEnvFinding([], { ...RING, protocol, chunkBytes: 32768 })?.kind, "unpinned");
  }
  const tree = (down: number[][]) =>
    ({ kind: "nccl-tree", protocol: "simple", trees: [{ down }] }) as const;
  assert.equal(ncclEnvFinding(treePinned, tree([[1], [2], [3], []])), null);
  assert.equal(ncclEnvFinding(treePinned, tree([[2], [], [1]])), null);
  for (const down of [[[1, 2, 3], [], [], []], [[1], [2, 3], [], []]]) {
    const f = ncclEnvFinding(treePinned, tree(down));
    assert.equal(f?.kind, "contradiction", JSON.stringify(down));
    assert.match(f.reason, /on one machine NCCL's tree all-reduce is its intra-node chain/);
  }
});

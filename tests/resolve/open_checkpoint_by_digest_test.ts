import assert from "node:assert/strict";
import {
  type BlobStore,
  type FileByteSource,
  openBlobStore,
  sha256Hex,
} from "../../src/assets/mod.ts";
import { digestOfFiles } from "../../src/model/mod.ts";
import {
  type CheckpointByDigest,
  type CheckpointCommitment,
  type CheckpointFailure,
  openCheckpointByDigest,
} from "../../src/resolve/mod.ts";
import {
  type MemDir,
  rewrite,
  synthDir,
  TINY_DENSE,
  TINY_MOE,
} from "../model/checkpoint/_checkpoint_fixture.ts";

/** A blob directory holding a checkpoint's files, the commitment to them, and its store. */
interface Stored {
  readonly root: string;
  readonly blobs: BlobStore;
  readonly commitment: CheckpointCommitment;
  /** Blob path of a file of the checkpoint. */
  path(name: string): string;
}

/** Writes each file of `dir` as a blob named by its SHA-256 and commits to them as `type`. */
async function stored(dir: MemDir, type = "qwen3"): Promise<Stored> {
  const root = await Deno.makeTempDir({ prefix: "bitaudit-ckpt-digest-" });
  const digests = new Map<string, string>();
  for (const [name, bytes] of dir) {
    const d = sha256Hex(bytes);
    digests.set(name, d);
    await Deno.writeFile(`${root}/${d}`, bytes);
  }
  const files: Record<string, string> = {};
  for (const [name, d] of digests) if (name.endsWith(".safetensors")) files[name] = d;
  return {
    root,
    blobs: openBlobStore(root),
    commitment: {
      type,
      checkpointSha256: digestOfFiles(files),
      configSha256: digests.get("config.json")!,
      files,
    },
    path: (name) => `${root}/${digests.get(name)!}`,
  };
}

/** Runs `fn` on a stored checkpoint and removes its blobs afterwards. */
async function withStored(
  dir: MemDir | Promise<MemDir>,
  fn: (s: Stored) => Promise<void>,
  type?: string,
): Promise<void> {
  const s = await stored(await dir, type);
  try {
    await fn(s);
  } finally {
    await Deno.remove(s.root, { recursive: true });
  }
}

/** The failure of an outcome (asserting there is one). */
function failure(r: CheckpointByDigest): CheckpointFailure {
  assert.ok(!r.ok, "expected a failure");
  return r.failure;
}

/** A blob store over `blobs` that counts its reads and records which opened files are closed. */
function tracked(blobs: BlobStore): {
  store: BlobStore;
  reads: () => number;
  open: () => number;
} {
  let reads = 0;
  let open = 0;
  const store: BlobStore = {
    dir: blobs.dir,
    get: (d, o) => {
      reads++;
      return blobs.get(d, o);
    },
    open: async (d, o) => {
      reads++;
      const f = await blobs.open!(d, o);
      if (f === null) return null;
      open++;
      let closed = false;
      const close = () => {
        if (!closed) open--;
        closed = true;
        f.close();
      };
      const wrapped: FileByteSource = {
        size: f.size,
        read: f.read,
        readInto: f.readInto,
        close,
        [Symbol.dispose]: close,
      };
      return wrapped;
    },
  };
  return { store, reads: () => reads, open: () => open };
}

Deno.test("openCheckpointByDigest() opens a committed checkpoint onto shared memory", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const t = tracked(s.blobs);
    const r = await openCheckpointByDigest(t.store, s.commitment);
    assert.ok(r.ok);
    const { ckpt, releaseTensor } = r.opened;
    assert.equal(ckpt.config.modelType, "qwen3");
    assert.equal(ckpt.configSha256, s.commitment.configSha256);
    assert.deepEqual(ckpt.files, ["model.safetensors"]);
    const norm = await ckpt.tensor("model.norm.weight");
    assert.ok(norm.buffer instanceof SharedArrayBuffer, "tensors on shared memory");
    releaseTensor(norm);
    assert.equal(t.open(), 1, "the weight file is opened, not read whole");
    r.opened.close();
    r.opened.close();
    assert.equal(t.open(), 0);
  });
});

Deno.test("openCheckpointByDigest() reads the weights whole from a store that cannot open", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const getOnly: BlobStore = { dir: s.blobs.dir, get: (d, o) => s.blobs.get(d, o) };
    const r = await openCheckpointByDigest(getOnly, s.commitment);
    assert.ok(r.ok);
    assert.equal((await r.opened.ckpt.tensor("model.norm.weight")).length, 256);
    r.opened.close();
  });
});

Deno.test("openCheckpointByDigest() returns checkpoint-digest-mismatch before reading a blob", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const t = tracked(s.blobs);
    const r = await openCheckpointByDigest(t.store, {
      ...s.commitment,
      checkpointSha256: "0".repeat(64),
    });
    assert.deepEqual(failure(r), { kind: "checkpoint-digest-mismatch" });
    assert.equal(t.reads(), 0);
  });
});

Deno.test("openCheckpointByDigest() returns missing-committed-file naming the config or the weight", async () => {
  await withStored(synthDir(TINY_DENSE, { shards: 2 }), async (s) => {
    const config = s.commitment.configSha256;
    await Deno.rename(s.path("config.json"), `${s.root}/moved`);
    assert.deepEqual(failure(await openCheckpointByDigest(s.blobs, s.commitment)), {
      kind: "missing-committed-file",
      file: { name: "config.json", digest: config },
    });
    await Deno.rename(`${s.root}/moved`, s.path("config.json"));
    const second = "model-00002-of-00002.safetensors";
    await Deno.remove(s.path(second));
    const t = tracked(s.blobs);
    assert.deepEqual(failure(await openCheckpointByDigest(t.store, s.commitment)), {
      kind: "missing-committed-file",
      file: { name: second, digest: s.commitment.files[second]! },
    });
    assert.equal(t.open(), 0, "the first shard, opened, is closed again");
  });
});

Deno.test("openCheckpointByDigest() returns digest-mismatch for a blob holding other bytes", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const bytes = await Deno.readFile(s.path("model.safetensors"));
    bytes[bytes.length - 1]! ^= 1;
    await Deno.writeFile(s.path("model.safetensors"), bytes);
    const f = failure(await openCheckpointByDigest(s.blobs, s.commitment));
    assert.deepEqual(f, {
      kind: "digest-mismatch",
      file: { name: "model.safetensors", digest: s.commitment.files["model.safetensors"]! },
    });
  });
});

Deno.test("openCheckpointByDigest() returns oversized-committed-file for a config over 1 MiB", async () => {
  const dir = synthDir(TINY_DENSE);
  // A valid config padded past BLOB_MAX_BYTES.config: refused by its size, not by its parser.
  dir.set(
    "config.json",
    new TextEncoder().encode(JSON.stringify(TINY_DENSE) + " ".repeat(1 << 20)),
  );
  await withStored(dir, async (s) => {
    const f = failure(await openCheckpointByDigest(s.blobs, s.commitment));
    assert.deepEqual(f, {
      kind: "oversized-committed-file",
      file: { name: "config.json", digest: s.commitment.configSha256 },
    });
  });
});

Deno.test("openCheckpointByDigest() returns unreadable-committed-file for a blob that is no file", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    await Deno.remove(s.path("model.safetensors"));
    await Deno.mkdir(s.path("model.safetensors"));
    const f = failure(await openCheckpointByDigest(s.blobs, s.commitment));
    assert.equal(f.kind, "unreadable-committed-file");
  });
});

Deno.test("openCheckpointByDigest() returns type-contradiction for a config of another model type, and unsupported-config for another class in architectures", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const t = tracked(s.blobs);
    const f = failure(await openCheckpointByDigest(t.store, s.commitment));
    assert.deepEqual(f, { kind: "type-contradiction", recordType: "llama", configType: "qwen3" });
    assert.equal(t.open(), 0, "the opened weight file is closed again");
  }, "llama");
  const foreign = synthDir(TINY_DENSE);
  foreign.set(
    "config.json",
    new TextEncoder().encode(JSON.stringify({ ...TINY_DENSE, architectures: ["GPT2Model"] })),
  );
  // Another class in `architectures` beside the record's model type: HF's AutoModelForCausalLM
  // builds the model of `model_type`, vLLM the class listed, so which ran is not known: not
  // modelled, no evidence against the record.
  await withStored(foreign, async (s) => {
    const f = failure(await openCheckpointByDigest(s.blobs, s.commitment));
    assert.equal(f.kind, "unsupported-config");
    assert.ok("message" in f && /architectures .*GPT2Model/.test(f.message), JSON.stringify(f));
  });
});

Deno.test("openCheckpointByDigest() returns unsupported-config for a feature this version does not model", async () => {
  const dir = synthDir(TINY_DENSE);
  dir.set(
    "config.json",
    new TextEncoder().encode(JSON.stringify({ ...TINY_DENSE, output_attentions: true })),
  );
  await withStored(dir, async (s) => {
    const t = tracked(s.blobs);
    const f = failure(await openCheckpointByDigest(t.store, s.commitment));
    assert.ok(
      f.kind === "unsupported-config" && /output_attentions/.test(f.message),
      JSON.stringify(f),
    );
    assert.ok(!("config" in f), "a feature not modelled: no config to ask the stack about");
    assert.equal(t.open(), 0);
  });
});

Deno.test("openCheckpointByDigest(): a config of values HF builds a model of that are not modelled comes back with the config read with them, for the stack's refusals", async () => {
  const dir = synthDir(TINY_MOE);
  const config = { ...TINY_MOE, num_experts: -1 };
  dir.set("config.json", new TextEncoder().encode(JSON.stringify(config)));
  await withStored(dir, async (s) => {
    const t = tracked(s.blobs);
    const f = failure(await openCheckpointByDigest(t.store, s.commitment));
    assert.ok(f.kind === "unsupported-config", JSON.stringify(f));
    assert.match(f.message, /num_experts -1 \(HF builds every layer dense\) is not modelled/);
    assert.equal(f.config?.unmodelled, f.message.replace(/^Cannot use config: /, ""));
    assert.equal(f.config?.moe?.experts, -1);
    assert.equal(t.open(), 0, "no weight file is opened");
  }, "qwen3_moe");
  // A record naming another model type than such a config's contradicts it.
  await withStored(dir, async (s) => {
    const f = failure(await openCheckpointByDigest(s.blobs, s.commitment));
    assert.deepEqual(f, {
      kind: "type-contradiction",
      recordType: "qwen3",
      configType: "qwen3_moe",
    });
  }, "qwen3");
});

/** A blob store over `blobs` that records, by digest, the furthest byte read of each opened file. */
function readExtent(blobs: BlobStore): { store: BlobStore; extent: Map<string, number> } {
  const extent = new Map<string, number>();
  const saw = (d: string, end: number) => extent.set(d, Math.max(extent.get(d) ?? 0, end));
  const store: BlobStore = {
    dir: blobs.dir,
    get: (d, o) => blobs.get(d, o),
    open: async (d, o) => {
      const f = await blobs.open!(d, o);
      if (f === null) return null;
      return {
        size: f.size,
        read: (offset, length) => {
          saw(d, offset + length);
          return f.read(offset, length);
        },
        readInto: (offset, into) => {
          saw(d, offset + into.length);
          return f.readInto(offset, into);
        },
        close: f.close,
        [Symbol.dispose]: f.close,
      };
    },
  };
  return { store, extent };
}

/** Safetensors bytes whose 8-byte prefix says `n` and whose header text is `header`. */
function safetensorsOf(n: number, header: string, data = 2): Uint8Array {
  const text = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + text.length + data);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), true);
  out.set(text, 8);
  return out;
}

Deno.test("openCheckpointByDigest(): a config of values HF builds a model of that are not modelled comes back with its weight files' metadata, read from their headers alone (no tensor byte, every file closed)", async () => {
  const dir = synthDir(TINY_MOE, { shards: 2 });
  // What the modelled config's checkpoint says of the same files.
  let modelled: unknown;
  await withStored(dir, async (s) => {
    const r = await openCheckpointByDigest(s.blobs, s.commitment);
    assert.ok(r.ok, JSON.stringify(r));
    modelled = r.opened.ckpt.weightFormats;
    r.opened.close();
  }, "qwen3_moe");
  dir.set(
    "config.json",
    new TextEncoder().encode(JSON.stringify({ ...TINY_MOE, num_experts: -1 })),
  );
  await withStored(dir, async (s) => {
    const t = tracked(s.blobs);
    const read = readExtent(t.store);
    const f = failure(await openCheckpointByDigest(read.store, s.commitment));
    assert.ok(f.kind === "unsupported-config", JSON.stringify(f));
    assert.equal(f.config?.moe?.experts, -1);
    assert.deepEqual(f.weightFormats, modelled);
    assert.equal(Object.keys(f.weightFormats ?? {}).length, 2);
    for (const [name, digest] of Object.entries(s.commitment.files)) {
      const bytes = dir.get(name)!;
      const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
      assert.ok((read.extent.get(digest) ?? 0) <= 8 + n, `${name}: a tensor byte was read`);
    }
    assert.equal(t.open(), 0, "every weight file is closed");
  }, "qwen3_moe");
});

Deno.test("openCheckpointByDigest(): under a config not modelled, a weight header the format refuses is invalid-checkpoint, as under a modelled config; one past this reader's own bounds gives no metadata", async () => {
  const unmodelled = new TextEncoder().encode(JSON.stringify({ ...TINY_MOE, num_experts: -1 }));
  const file = "model.safetensors";
  /** The failure over the modelled config and over the config not modelled, with `bytes`. */
  const both = async (bytes: Uint8Array) => {
    const dir = synthDir(TINY_MOE);
    dir.set(file, bytes);
    const got: CheckpointFailure[] = [];
    for (const config of [dir.get("config.json")!, unmodelled]) {
      await withStored(new Map([...dir, ["config.json", config]]), async (s) => {
        const t = tracked(s.blobs);
        got.push(failure(await openCheckpointByDigest(t.store, s.commitment)));
        assert.equal(t.open(), 0);
      }, "qwen3_moe");
    }
    return got;
  };
  // Not JSON; a length past the format's own limit (the reference reader's MAX_HEADER_SIZE).
  for (const bytes of [safetensorsOf(8, "not json"), safetensorsOf(100_000_001, "")]) {
    const [modelled, refused] = await both(bytes);
    assert.equal(modelled!.kind, "invalid-checkpoint", JSON.stringify(modelled));
    assert.deepEqual(refused, modelled);
  }
  // More JSON values (one shape of 2^21 + 2^20 dimensions) than the reader's default bound of
  // 2^17 tensors allows, in a header the format would read: the metadata is not known.
  const shape = new Array((1 << 21) + (1 << 20)).fill(1).join(",");
  const wide = `{"w":{"dtype":"BF16","shape":[${shape}],"data_offsets":[0,2]}}`;
  const [modelled, refused] = await both(safetensorsOf(wide.length, wide));
  assert.equal(modelled!.kind, "invalid-checkpoint");
  assert.ok(refused?.kind === "unsupported-config", JSON.stringify(refused));
  assert.equal(refused.config?.moe?.experts, -1);
  assert.ok(!("weightFormats" in refused), "no metadata");
});

Deno.test("openCheckpointByDigest() opens weights the loaders read in a way not modelled, the reason in ckpt.unmodelled, so that the record is held to their config and headers", async () => {
  const dir = synthDir(TINY_DENSE);
  const file = "model.safetensors";
  const bytes = dir.get(file)!;
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  // A tensor entry field the format does not define (its reference reader ignores it), in place
  // of as many spaces of the header's padding or, without any, after it.
  const header = new TextDecoder().decode(bytes.subarray(8, 8 + n)).trimEnd()
    .replace('"dtype":', '"note":"x","dtype":');
  const text = header + " ".repeat((8 - header.length % 8) % 8);
  const edited = new Uint8Array(8 + text.length + bytes.length - 8 - n);
  new DataView(edited.buffer).setBigUint64(0, BigInt(text.length), true);
  edited.set(new TextEncoder().encode(text), 8);
  edited.set(bytes.subarray(8 + n), 8 + text.length);
  await withStored(new Map([...dir, [file, edited]]), async (s) => {
    const t = tracked(s.blobs);
    const r = await openCheckpointByDigest(t.store, s.commitment);
    assert.ok(r.ok, JSON.stringify(r));
    const { ckpt } = r.opened;
    assert.match(ckpt.unmodelled ?? "", /^Cannot open checkpoint: .*has a field 'note' the format/);
    assert.equal(ckpt.config.hidden, TINY_DENSE.hidden_size);
    assert.deepEqual(Object.keys(ckpt.weightFormats), [file]);
    await assert.rejects(ckpt.tensor("model.norm.weight"), /field 'note'/);
    r.opened.close();
    assert.equal(t.open(), 0);
  });
});

Deno.test("openCheckpointByDigest() returns invalid-checkpoint with the reader's code", async () => {
  const dir = rewrite(
    synthDir(TINY_DENSE),
    "model.safetensors",
    (ts) =>
      ts.map((x) =>
        x.name === "model.norm.weight" ? { ...x, shape: [1], data: new Uint16Array(1) } : x
      ),
  );
  await withStored(dir, async (s) => {
    const t = tracked(s.blobs);
    const f = failure(await openCheckpointByDigest(t.store, s.commitment));
    assert.ok(f.kind === "invalid-checkpoint", f.kind);
    assert.equal(f.code, "CHECKPOINT_SHAPE");
    assert.equal(t.open(), 0, "the opened weight file is closed again");
  });
});

Deno.test("openCheckpointByDigest() keeps the tensors missing for the caller to hold to its stack", async () => {
  const dir = rewrite(
    synthDir(TINY_DENSE),
    "model.safetensors",
    (ts) => ts.filter((x) => x.name !== "model.norm.weight"),
  );
  await withStored(dir, async (s) => {
    const t = tracked(s.blobs);
    const r = await openCheckpointByDigest(t.store, s.commitment);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.opened.ckpt.missingTensors, ["model.norm.weight"]);
    await assert.rejects(
      r.opened.ckpt.tensor("model.norm.weight"),
      /no tensor 'model\.norm\.weight'/,
    );
    r.opened.close();
    assert.equal(t.open(), 0);
  });
});

Deno.test("openCheckpointByDigest() refuses two weight files committed to one blob before reading any", async () => {
  await withStored(synthDir(TINY_DENSE), async (s) => {
    const t = tracked(s.blobs);
    const blob = s.commitment.files["model.safetensors"]!;
    const files = { "a.safetensors": blob, "b.safetensors": blob };
    const f = failure(
      await openCheckpointByDigest(t.store, {
        ...s.commitment,
        checkpointSha256: digestOfFiles(files),
        files,
      }),
    );
    assert.ok(f.kind === "invalid-checkpoint", f.kind);
    assert.equal(f.code, "CHECKPOINT_DUPLICATE_TENSOR");
    assert.match(f.message, /'a\.safetensors' and 'b\.safetensors' are the same blob/);
    assert.equal(t.reads(), 0, "no file is fetched, no header parsed");
  });
});

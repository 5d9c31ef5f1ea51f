/**
 * An independent float64 forward pass of a Qwen3 / Qwen3-MoE checkpoint, written from the model
 * definition (HF `modeling_qwen3.py` / `modeling_qwen3_moe.py` semantics), with no emulation:
 * every activation stays in float64, weights are the checkpoint's BF16 values, each sequence is
 * computed alone (the batch does not exist mathematically). It checks wiring (RoPE variant, GQA
 * head mapping, norm placement, routing), which bit-level self-consistency cannot.
 *
 * Deliberate mistakes can be switched on to show that the agreement test would catch them.
 *
 * @module
 */
import { type DecoderCheckpoint, isMoeLayer, layerPrefix } from "../../../src/model/mod.ts";

/** Wiring mistakes the tests inject to prove the tolerance catches them. */
export interface ReferenceMistakes {
  /** RoPE on interleaved pairs (GPT-J style) instead of rotate-half. */
  readonly ropeInterleaved?: boolean;
  /** Query head h reads KV head h mod kvHeads instead of floor(h / group). */
  readonly gqaModulo?: boolean;
  /** Skip the per-head q/k RMSNorm. */
  readonly noQkNorm?: boolean;
  /** Do not renormalise the top-k routing weights. */
  readonly noTopkRenorm?: boolean;
}

const _u32 = new Uint32Array(1);
const _f32 = new Float32Array(_u32.buffer);
const bf = (b: number) => {
  _u32[0] = (b << 16) >>> 0;
  return _f32[0]!;
};
const f64 = (a: Uint16Array) => Float64Array.from(a, bf);

function rms(x: Float64Array, w: Float64Array, eps: number): Float64Array {
  const n = w.length;
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length / n; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[r * n + i]! ** 2;
    const inv = 1 / Math.sqrt(s / n + eps);
    for (let i = 0; i < n; i++) out[r * n + i] = x[r * n + i]! * inv * w[i]!;
  }
  return out;
}

/** y [m, n] = x [m, k] W^T, W [n, k]. */
function linear(x: Float64Array, w: Float64Array, n: number): Float64Array {
  const k = w.length / n;
  const m = x.length / k;
  const y = new Float64Array(m * n);
  for (let r = 0; r < m; r++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += x[r * k + i]! * w[j * k + i]!;
      y[r * n + j] = s;
    }
  }
  return y;
}

const silu = (v: number) => v / (1 + Math.exp(-v));

/**
 * Runs the float64 forward of each sequence.
 *
 * @param ckpt an opened checkpoint
 * @param sequences token ids
 * @param mistakes optional wiring mistakes
 * @returns the final-norm hidden state per sequence, [len, hidden] each
 */
export async function referenceForward(
  ckpt: DecoderCheckpoint,
  sequences: readonly (readonly number[])[],
  mistakes: ReferenceMistakes = {},
): Promise<Float64Array[]> {
  const c = ckpt.config;
  const { hidden: h, heads, kvHeads, headDim: d } = c;
  const eps = Number(c.rmsNormEps);
  const theta = Number(c.ropeTheta);
  const xs = await Promise.all(
    sequences.map(async (s) => f64(await ckpt.rows("model.embed_tokens.weight", s))),
  );
  for (let layer = 0; layer < c.layers; layer++) {
    const t = async (n: string) => f64(await ckpt.tensor(`${layerPrefix(layer)}${n}`));
    const w = {
      inNorm: await t("input_layernorm.weight"),
      q: await t("self_attn.q_proj.weight"),
      k: await t("self_attn.k_proj.weight"),
      v: await t("self_attn.v_proj.weight"),
      o: await t("self_attn.o_proj.weight"),
      qn: await t("self_attn.q_norm.weight"),
      kn: await t("self_attn.k_norm.weight"),
      postNorm: await t("post_attention_layernorm.weight"),
    };
    const moe = isMoeLayer(c, layer);
    const mlp = moe ? { router: await t("mlp.gate.weight") } : {
      gate: await t("mlp.gate_proj.weight"),
      up: await t("mlp.up_proj.weight"),
      down: await t("mlp.down_proj.weight"),
    };
    const experts = new Map<number, Float64Array[]>();
    const expert = async (e: number) => {
      if (!experts.has(e)) {
        const p = `mlp.experts.${e}.`;
        experts.set(e, [
          await t(`${p}gate_proj.weight`),
          await t(`${p}up_proj.weight`),
          await t(`${p}down_proj.weight`),
        ]);
      }
      return experts.get(e)!;
    };
    for (let s = 0; s < xs.length; s++) {
      const x = xs[s]!;
      const len = x.length / h;
      const hn = rms(x, w.inNorm, eps);
      let q = linear(hn, w.q, heads * d);
      let k = linear(hn, w.k, kvHeads * d);
      const v = linear(hn, w.v, kvHeads * d);
      if (!mistakes.noQkNorm) {
        q = rms(q, w.qn, eps);
        k = rms(k, w.kn, eps);
      }
      _rope(q, { d, theta, len, interleaved: mistakes.ropeInterleaved === true });
      _rope(k, { d, theta, len, interleaved: mistakes.ropeInterleaved === true });
      const attn = new Float64Array(len * heads * d);
      const group = heads / kvHeads;
      for (let hh = 0; hh < heads; hh++) {
        const kvh = mistakes.gqaModulo ? hh % kvHeads : Math.floor(hh / group);
        for (let i = 0; i < len; i++) {
          const scores = new Float64Array(i + 1);
          let max = -Infinity;
          for (let j = 0; j <= i; j++) {
            let sc = 0;
            for (let e = 0; e < d; e++) {
              sc += q[(i * heads + hh) * d + e]! * k[(j * kvHeads + kvh) * d + e]!;
            }
            scores[j] = sc / Math.sqrt(d);
            max = Math.max(max, scores[j]!);
          }
          let sum = 0;
          for (let j = 0; j <= i; j++) sum += scores[j] = Math.exp(scores[j]! - max);
          for (let j = 0; j <= i; j++) {
            const p = scores[j]! / sum;
            for (let e = 0; e < d; e++) {
              const at = (i * heads + hh) * d + e;
              attn[at] = attn[at]! + p * v[(j * kvHeads + kvh) * d + e]!;
            }
          }
        }
      }
      const o = linear(attn, w.o, h);
      for (let i = 0; i < x.length; i++) x[i] = x[i]! + o[i]!;
      const h2 = rms(x, w.postNorm, eps);
      let y: Float64Array;
      if ("router" in mlp) {
        y = await _moe(h2, { c, router: mlp.router, expert, mistakes });
      } else {
        const g = linear(h2, mlp.gate, c.intermediate);
        const u = linear(h2, mlp.up, c.intermediate);
        y = linear(g.map((gv, i) => silu(gv) * u[i]!), mlp.down, h);
      }
      for (let i = 0; i < x.length; i++) x[i] = x[i]! + y[i]!;
    }
  }
  const fin = f64(await ckpt.tensor("model.norm.weight"));
  return xs.map((x) => rms(x, fin, eps));
}

function _rope(
  x: Float64Array,
  o: { d: number; theta: number; len: number; interleaved: boolean },
): void {
  const { d, theta, len } = o;
  const half = d / 2;
  const per = x.length / len;
  for (let p = 0; p < len; p++) {
    for (let base = p * per; base < (p + 1) * per; base += d) {
      for (let i = 0; i < half; i++) {
        const ang = p * theta ** (-(2 * i) / d);
        const [a, b] = o.interleaved
          ? [base + 2 * i, base + 2 * i + 1]
          : [base + i, base + i + half];
        const x1 = x[a]!, x2 = x[b]!;
        x[a] = x1 * Math.cos(ang) - x2 * Math.sin(ang);
        x[b] = x2 * Math.cos(ang) + x1 * Math.sin(ang);
      }
    }
  }
}

async function _moe(
  h2: Float64Array,
  o: {
    c: DecoderCheckpoint["config"];
    router: Float64Array;
    expert: (e: number) => Promise<Float64Array[]>;
    mistakes: ReferenceMistakes;
  },
): Promise<Float64Array> {
  const { c } = o;
  const m = c.moe!;
  const h = c.hidden;
  const len = h2.length / h;
  const logits = linear(h2, o.router, m.experts);
  const y = new Float64Array(h2.length);
  for (let t = 0; t < len; t++) {
    const row = logits.subarray(t * m.experts, (t + 1) * m.experts);
    const max = Math.max(...row);
    const ex = Array.from(row, (l) => Math.exp(l - max));
    const z = ex.reduce((a, b) => a + b, 0);
    const top = ex.map((e, i) => [e / z, i] as const).sort((a, b) => b[0] - a[0]).slice(0, m.topK);
    const norm = m.normTopkProb && !o.mistakes.noTopkRenorm ? top.reduce((a, [p]) => a + p, 0) : 1;
    const xt = h2.subarray(t * h, (t + 1) * h);
    for (const [p, e] of top) {
      const [g, u, dn] = await o.expert(e);
      const gv = linear(xt, g!, m.intermediate);
      const uv = linear(xt, u!, m.intermediate);
      const out = linear(gv.map((v, i) => silu(v) * uv[i]!), dn!, h);
      for (let i = 0; i < h; i++) y[t * h + i] = y[t * h + i]! + (p / norm) * out[i]!;
    }
  }
  return y;
}

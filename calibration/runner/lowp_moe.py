"""Low-precision grouped expert GEMMs for the prefill/MoE/MLA section (sec_prefill_moe_mla.py).

Three forms, each over rows sorted by expert with `offs` = cumulative row ends per expert (int32,
as moe.py), weights stored (E, N, K) like stacked nn.Linear weights:

- fp8 rowwise: `torch._scaled_grouped_mm` (CUTLASS, sm90), e4m3 activations with one float32 scale
  per row (per token) and e4m3 weights with one scale per output channel (per expert and column).
- fp8 block-scaled (DeepSeek-V3's checkpoint format: weights in 128 x 128 blocks, activations in
  1 x 128 groups, float32 scales): `fp8_block_grouped_mm`, a Triton kernel written here.
- MXFP4 weights, bf16 activations (W4A16, what Hopper engines run for gpt-oss): weights packed two
  e2m1 values a byte (element 2j in the low nibble, 2j+1 in the high one) with one e8m0 scale
  (uint8, 2^(s-127)) per 32 values along K; `mxfp4_grouped_mm`, a Triton kernel written here that
  dequantizes each weight tile in registers and multiplies in bf16 on the tensor cores.

Both Triton kernels take a tile plan (`block_plan`): one entry per BM-row tile of one expert,
computed on the GPU with no host synchronisation (so it could be captured in a CUDA graph). The
references (`ref_*`) dequantize to float32 and loop over experts; the section compares each kernel
with them before timing.
"""

import torch
import triton
import triton.language as tl

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0
FP8_BLOCK = 128   # DeepSeek-V3: weight scales per 128 x 128 block, activation scales per 1 x 128
MX_BLOCK = 32     # OCP MX: one e8m0 scale per 32 values

# e2m1 code (sign bit 3, exponent bits 2-1, mantissa bit 0) -> value
E2M1_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
               -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def has_scaled_grouped_mm():
    return hasattr(torch, "_scaled_grouped_mm")


# ---------------------------------------------------------------------------------------------
# Routing layouts and tile plans


def random_routing(tokens, num_experts, top_k, device="cuda"):
    """Distinct top-k experts per token, uniform at random -> (offs int32, counts int64, touched).

    offs are the cumulative row ends of the rows sorted by expert (rows = tokens * top_k)."""
    idx = torch.rand((tokens, num_experts), device=device).topk(top_k, dim=-1).indices
    counts = torch.bincount(idx.reshape(-1), minlength=num_experts)
    offs = torch.cumsum(counts, 0).to(torch.int32)
    touched = int((counts > 0).sum().item())
    return offs, counts, touched


def block_plan(offs, rows, bm):
    """Tiles of BM rows, none spanning two experts -> (tile_expert int32, tile_row0 int32, slots).

    slots bounds the number of tiles (sum over experts of ceil(rows_e / bm) <= rows/bm + E and
    <= rows); entries past the real tiles carry expert = E, which the kernels skip."""
    e_count = offs.numel()
    ends = offs.to(torch.int64)
    starts = torch.cat([ends.new_zeros(1), ends[:-1]])
    nblk = (ends - starts + bm - 1) // bm
    cum = torch.cumsum(nblk, 0)
    slots = max(1, min(rows // bm + e_count, rows))
    b = torch.arange(slots, device=offs.device, dtype=torch.int64)
    e = torch.searchsorted(cum, b, right=True)
    ec = e.clamp(max=e_count - 1)
    row0 = starts[ec] + (b - (cum[ec] - nblk[ec])) * bm
    return e.to(torch.int32), row0.to(torch.int32), slots


# ---------------------------------------------------------------------------------------------
# Quantisation helpers (setup, not timed)


def quant_fp8_rowwise(x):
    """(R, K) -> (e4m3 (R, K), float32 scale (R,)): one scale per row, amax mapped to 448."""
    s = x.float().abs().amax(dim=-1).clamp(min=1e-12) / FP8_MAX
    q = (x.float() / s[:, None]).clamp(-FP8_MAX, FP8_MAX).to(FP8)
    return q, s.contiguous()


def quant_fp8_group(x, g=FP8_BLOCK):
    """(R, K) -> (e4m3 (R, K), float32 scales (R, ceil(K/g))): one scale per 1 x g group."""
    r, k = x.shape
    kp = (k + g - 1) // g * g
    xf = torch.nn.functional.pad(x.float(), (0, kp - k)).view(r, kp // g, g)
    s = xf.abs().amax(dim=-1).clamp(min=1e-12) / FP8_MAX
    q = (xf / s[..., None]).clamp(-FP8_MAX, FP8_MAX).view(r, kp)[:, :k].to(FP8).contiguous()
    return q, s.contiguous()


def random_fp8_weights(e, n, k, chunk=16):
    """Random e4m3 weights (E, N, K), made in chunks of experts to bound the bf16 temporary."""
    w = torch.empty((e, n, k), dtype=FP8, device="cuda")
    for i in range(0, e, chunk):
        j = min(e, i + chunk)
        w[i:j] = torch.empty((j - i, n, k), dtype=torch.bfloat16, device="cuda").normal_(0, 1).to(FP8)
    return w


def random_mxfp4_weights(e, n, k):
    """Random packed MXFP4 weights: (uint8 (E, N, K/2), uint8 e8m0 scales (E, N, K/32))."""
    wq = torch.randint(0, 256, (e, n, k // 2), dtype=torch.uint8, device="cuda")
    ws = torch.randint(120, 125, (e, n, k // MX_BLOCK), dtype=torch.uint8, device="cuda")
    return wq, ws


def dequant_mxfp4(wq, ws):
    """(..., N, K/2) packed + (..., N, K/32) e8m0 -> float32 (..., N, K)."""
    lut = torch.tensor(E2M1_VALUES, dtype=torch.float32, device=wq.device)
    lo = (wq & 0xF).long()
    hi = (wq >> 4).long()
    codes = torch.stack([lo, hi], dim=-1).reshape(*wq.shape[:-1], wq.shape[-1] * 2)
    scale = torch.exp2(ws.float() - 127.0).repeat_interleave(MX_BLOCK, dim=-1)
    return lut[codes] * scale


def dequant_fp8_block(w8, ws, g=FP8_BLOCK):
    """e4m3 (N, K) + float32 (ceil(N/g), ceil(K/g)) -> float32 (N, K)."""
    n, k = w8.shape
    s = ws.repeat_interleave(g, dim=0)[:n].repeat_interleave(g, dim=1)[:, :k]
    return w8.float() * s


# ---------------------------------------------------------------------------------------------
# References: float32 loops over experts


def ref_loop(a_f32, w_of_expert, offs):
    """a (R, K) float32; w_of_expert(e) -> float32 (N, K); returns float32 (R, N)."""
    ends = offs.tolist()
    out = None
    start = 0
    for e, end in enumerate(ends):
        if end > start:
            w = w_of_expert(e)
            if out is None:
                out = torch.zeros((a_f32.shape[0], w.shape[0]), dtype=torch.float32,
                                  device=a_f32.device)
            out[start:end] = a_f32[start:end] @ w.t()
        start = end
    return out


def rel_err(got, ref):
    """‖got − ref‖ / ‖ref‖ (float32); NaN (an unwritten, poisoned element) fails any bound."""
    return float((got.float() - ref).norm() / ref.norm())


# ---------------------------------------------------------------------------------------------
# fp8 rowwise: torch._scaled_grouped_mm


def scaled_grouped_mm(a8, a_scale, w8, w_scale, offs):
    """a8 e4m3 (R, K), a_scale (R,), w8 e4m3 (E, N, K), w_scale (E, N) -> bf16 (R, N)."""
    return torch._scaled_grouped_mm(a8, w8.transpose(1, 2), a_scale, w_scale, offs=offs,
                                    out_dtype=torch.bfloat16, use_fast_accum=True)


# ---------------------------------------------------------------------------------------------
# fp8 block-scaled grouped GEMM (Triton)


@triton.jit
def _tile_of(texp_ptr, N, BN: tl.constexpr):
    """This program's tile of a block_plan: (expert, plan slot, column block). An expert of E or
    more marks an unused slot: the kernel returns before reading anything else of it."""
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BN)
    pid_m = pid // num_n
    return tl.load(texp_ptr + pid_m), pid_m, pid % num_n


@triton.jit
def _tile_rows(trow_ptr, offs_ptr, e, pid_m, pid_n, N, BT: tl.constexpr, BN: tl.constexpr):
    """A used slot's rows and columns: (BT row indices from the slot's first row, BN column
    indices, rows within the expert's, columns within N)."""
    row0 = tl.load(trow_ptr + pid_m)
    row_end = tl.load(offs_ptr + e)
    rt = row0 + tl.arange(0, BT)
    rn = pid_n * BN + tl.arange(0, BN)
    return rt, rn, rt < row_end, rn < N


@triton.jit
def _store_tile(out_ptr, acc, rt, rn, t_mask, n_mask, stride_om, SWAP: tl.constexpr):
    """The float32 tile as bf16 into out (R, N): acc (BT, BN), or (BN, BT) when SWAP."""
    if SWAP:
        o_ptrs = out_ptr + rt[None, :].to(tl.int64) * stride_om + rn[:, None]
        tl.store(o_ptrs, acc.to(tl.bfloat16), mask=t_mask[None, :] & n_mask[:, None])
    else:
        o_ptrs = out_ptr + rt[:, None].to(tl.int64) * stride_om + rn[None, :]
        tl.store(o_ptrs, acc.to(tl.bfloat16), mask=t_mask[:, None] & n_mask[None, :])


def _grouped_out(a, w, plan, out, bn):
    """The shapes, plan and launch grid every grouped kernel here shares: a (R, K) rows sorted by
    expert, w (E, N, ...) -> (k, e, n, tile_expert, tile_row0, out bf16 (R, N), grid)."""
    r, k = a.shape
    e, n, _ = w.shape
    texp, trow, slots = plan
    if out is None:
        out = torch.empty((r, n), dtype=torch.bfloat16, device=a.device)
    return k, e, n, texp, trow, out, (slots * triton.cdiv(n, bn),)


@triton.jit
def _fp8_block_grouped_kernel(a_ptr, as_ptr, w_ptr, ws_ptr, out_ptr, offs_ptr, texp_ptr, trow_ptr,
                              N, K, num_e,
                              stride_am, stride_asm, stride_we, stride_wn,
                              stride_wse, stride_wsn, stride_om,
                              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                              SB: tl.constexpr):
    e, pid_m, pid_n = _tile_of(texp_ptr, N, BN)
    if e >= num_e:
        return
    rm, rn, m_mask, n_mask = _tile_rows(trow_ptr, offs_ptr, e, pid_m, pid_n, N, BM, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + rk[None, :]
    w_base = w_ptr + e.to(tl.int64) * stride_we
    w_ptrs = w_base + rn[:, None].to(tl.int64) * stride_wn + rk[None, :]
    as_ptrs = as_ptr + rm.to(tl.int64) * stride_asm
    ws_ptrs = ws_ptr + e.to(tl.int64) * stride_wse + (rn // SB) * stride_wsn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BK)):
        k_mask = (kb * BK + rk) < K
        a = tl.load(a_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0.0)
        w = tl.load(w_ptrs, mask=n_mask[:, None] & k_mask[None, :], other=0.0)
        sa = tl.load(as_ptrs + kb, mask=m_mask, other=0.0)
        sw = tl.load(ws_ptrs + kb, mask=n_mask, other=0.0)
        acc += tl.dot(a, tl.trans(w)) * sa[:, None] * sw[None, :]
        a_ptrs += BK
        w_ptrs += BK
    _store_tile(out_ptr, acc, rm, rn, m_mask, n_mask, stride_om, False)


def fp8_tile_m(rows, touched):
    """BM by rows per touched expert: 64-row tiles for thin groups, else 128."""
    return 64 if rows < 96 * max(1, touched) else 128


def fp8_block_grouped_mm(a8, a_scale, w8, w_scale, offs, plan, bm, out=None):
    """a8 e4m3 (R, K), a_scale (R, ceil(K/128)), w8 e4m3 (E, N, K), w_scale (E, ceil(N/128),
    ceil(K/128)) float32, plan = block_plan(offs, R, bm) -> bf16 (R, N)."""
    bn, bk = 128, FP8_BLOCK
    k, e, n, texp, trow, out, grid = _grouped_out(a8, w8, plan, out, bn)
    _fp8_block_grouped_kernel[grid](
        a8, a_scale, w8, w_scale, out, offs, texp, trow, n, k, e,
        a8.stride(0), a_scale.stride(0), w8.stride(0), w8.stride(1),
        w_scale.stride(0), w_scale.stride(1), out.stride(0),
        BM=bm, BN=bn, BK=bk, SB=FP8_BLOCK, num_warps=8 if bm == 128 else 4, num_stages=3)
    return out


# ---------------------------------------------------------------------------------------------
# MXFP4 weights x bf16 activations grouped GEMM (Triton)


@triton.jit
def _e2m1_to_bf16(c):
    """uint8 e2m1 codes (low nibble) -> bf16 values, by building the bf16 bit pattern."""
    c16 = c.to(tl.uint16)
    ex = (c16 >> 1) & 3
    mt = c16 & 1
    sgn = (c16 & 8) << 12
    normal = ((ex + 126) << 7) | (mt << 6)
    sub = tl.where(mt == 1, 126 << 7, 0).to(tl.uint16)
    bits = sgn | tl.where(ex > 0, normal, sub)
    return bits.to(tl.bfloat16, bitcast=True)


@triton.jit
def _mx_tile(q, s, BN: tl.constexpr, BK: tl.constexpr, MXB: tl.constexpr, DQ: tl.constexpr):
    """Packed uint8 (BN, BK/2) + e8m0 uint8 (BN, BK/MXB) -> scaled bf16 (BN, BK).

    DQ 0: the bit pattern built field by field (_e2m1_to_bf16). DQ 1: the 3 magnitude bits at
    bf16 bits 8..6 give 2^-126 times the value (codes 0, 1 as subnormals) and the 2^126 is
    folded into the scale (2^(s-1)); valid for s in 1..253. DQ 2: the same bits plus an exponent
    bias for codes 2..7 and a select for codes 0 and 1 (no subnormals)."""
    c = tl.reshape(tl.join(q & 0xF, q >> 4), (BN, BK)).to(tl.uint16)
    if DQ == 0:
        w = _e2m1_to_bf16(c)
        scale = (s.to(tl.uint16) << 7).to(tl.bfloat16, bitcast=True)
    elif DQ == 1:
        w = (((c & 7) << 6) | ((c & 8) << 12)).to(tl.bfloat16, bitcast=True)
        scale = ((s.to(tl.uint16) - 1) << 7).to(tl.bfloat16, bitcast=True)
    else:
        em = c & 7
        mag = tl.where(em >= 2, (em << 6) + 16128, tl.where(em == 1, 16128, 0)).to(tl.uint16)
        w = (mag | ((c & 8) << 12)).to(tl.bfloat16, bitcast=True)
        scale = (s.to(tl.uint16) << 7).to(tl.bfloat16, bitcast=True)
    return tl.reshape(tl.reshape(w, (BN, BK // MXB, MXB)) * scale[:, :, None], (BN, BK))


@triton.jit
def _mxfp4_grouped_kernel(a_ptr, wq_ptr, ws_ptr, out_ptr, offs_ptr, texp_ptr, trow_ptr,
                          N, K, num_e,
                          stride_am, stride_we, stride_wn, stride_se, stride_sn, stride_om,
                          BT: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          MXB: tl.constexpr, DQ: tl.constexpr, SWAP: tl.constexpr):
    """One BT-row token tile x BN columns of one expert. SWAP 0: out = A . W^T (tokens as the
    MMA's M); SWAP 1: out^T = W . A^T, so the dequantized weight tile is the MMA's first operand
    (it can stay in registers) and the tokens are the MMA's N, so thin expert groups take 16- or
    32-row token tiles. The dequantization form is chosen by DQ (_mx_tile)."""
    e, pid_m, pid_n = _tile_of(texp_ptr, N, BN)
    if e >= num_e:
        return
    rt, rn, t_mask, n_mask = _tile_rows(trow_ptr, offs_ptr, e, pid_m, pid_n, N, BT, BN)
    rk = tl.arange(0, BK)
    rkh = tl.arange(0, BK // 2)
    rs = tl.arange(0, BK // MXB)
    a_ptrs = a_ptr + rt[:, None].to(tl.int64) * stride_am + rk[None, :]
    w_ptrs = (wq_ptr + e.to(tl.int64) * stride_we + rn[:, None].to(tl.int64) * stride_wn
              + rkh[None, :])
    s_ptrs = (ws_ptr + e.to(tl.int64) * stride_se + rn[:, None].to(tl.int64) * stride_sn
              + rs[None, :])
    if SWAP:
        acc = tl.zeros((BN, BT), dtype=tl.float32)
    else:
        acc = tl.zeros((BT, BN), dtype=tl.float32)
    for _kb in range(0, K // BK):
        a = tl.load(a_ptrs, mask=t_mask[:, None], other=0.0)
        q = tl.load(w_ptrs, mask=n_mask[:, None], other=0)
        s = tl.load(s_ptrs, mask=n_mask[:, None], other=127)
        w = _mx_tile(q, s, BN, BK, MXB, DQ)
        if SWAP:
            acc += tl.dot(w, tl.trans(a))
        else:
            acc += tl.dot(a, tl.trans(w))
        a_ptrs += BK
        w_ptrs += BK // 2
        s_ptrs += BK // MXB
    _store_tile(out_ptr, acc, rt, rn, t_mask, n_mask, stride_om, SWAP)


MXFP4_BK = 64   # divides gpt-oss's 2880 (2880 / 128 does not)


def _mxfp4_launch(a, wq, ws, offs, plan, tile, out, dq, swap, num_warps):
    assert a.shape[1] % MXFP4_BK == 0
    k, e, n, texp, trow, out, grid = _grouped_out(a, wq, plan, out, 128)
    _mxfp4_grouped_kernel[grid](
        a, wq, ws, out, offs, texp, trow, n, k, e,
        a.stride(0), wq.stride(0), wq.stride(1), ws.stride(0), ws.stride(1), out.stride(0),
        BT=tile, BN=128, BK=MXFP4_BK, MXB=MX_BLOCK, DQ=dq, SWAP=swap, num_warps=num_warps,
        num_stages=4)
    return out


def mxfp4_grouped_mm(a, wq, ws, offs, plan, bm, out=None, dq=0):
    """a bf16 (R, K), wq uint8 (E, N, K/2), ws uint8 e8m0 (E, N, K/32), plan = block_plan(offs,
    R, bm) -> bf16 (R, N). K must be a multiple of MXFP4_BK."""
    return _mxfp4_launch(a, wq, ws, offs, plan, bm, out, dq, swap=False,
                         num_warps=8 if bm == 128 else 4)


def mxfp4_swap_tile_t(rows, touched):
    """Token tile of the swapped kernel by rows per touched expert."""
    per = rows / max(1, touched)
    for bt in (16, 32, 64):
        if per <= bt:
            return bt
    return 128


def mxfp4_grouped_mm_swap(a, wq, ws, offs, plan, bt, out=None, dq=0):
    """As mxfp4_grouped_mm, operands swapped (tokens as the MMA's N, in BT-row tiles: thin expert
    groups take 16- or 32-row tiles); plan = block_plan(offs, R, bt)."""
    return _mxfp4_launch(a, wq, ws, offs, plan, bt, out, dq, swap=True,
                         num_warps=4 if bt <= 64 else 8)


# ---------------------------------------------------------------------------------------------
# MXFP4 in a split packing (the layout this kernel repacks weights into, as engines repack
# checkpoints for their own kernels): in each 64-value block of K, byte j holds value j in its
# low nibble and value 32 + j in its high one, so each nibble plane is one 32-value scale group
# and the kernel needs no interleave (no join/reshape shuffles): two MMAs a block, one per plane.
# Codes decoded as in _mx_tile's form 2 (no subnormals).

MXFP4_SPLIT_BK = 64


def pack_mxfp4_split(wq):
    """Interleaved packing (value 2j low, 2j+1 high) -> split packing, same values."""
    lo = wq & 0xF
    hi = wq >> 4
    codes = torch.stack([lo, hi], dim=-1).reshape(*wq.shape[:-1], wq.shape[-1] * 2)
    blk = codes.reshape(*wq.shape[:-1], -1, 2, MXFP4_SPLIT_BK // 2)
    return (blk[..., 0, :] | (blk[..., 1, :] << 4)).reshape(wq.shape).contiguous()


@triton.jit
def _e2m1_plane(c, scale):
    """uint8 codes (low nibble) x bf16 scale (broadcast) -> bf16 values, no subnormals."""
    c16 = c.to(tl.uint16)
    em = c16 & 7
    mag = tl.where(em >= 2, (em << 6) + 16128, tl.where(em == 1, 16128, 0)).to(tl.uint16)
    return (mag | ((c16 & 8) << 12)).to(tl.bfloat16, bitcast=True) * scale


@triton.jit
def _mxfp4_split_kernel(a_ptr, wq_ptr, ws_ptr, out_ptr, offs_ptr, texp_ptr, trow_ptr,
                        N, K, num_e,
                        stride_am, stride_we, stride_wn, stride_se, stride_sn, stride_om,
                        BT: tl.constexpr, BN: tl.constexpr, SWAP: tl.constexpr):
    e, pid_m, pid_n = _tile_of(texp_ptr, N, BN)
    if e >= num_e:
        return
    rt, rn, t_mask, n_mask = _tile_rows(trow_ptr, offs_ptr, e, pid_m, pid_n, N, BT, BN)
    rh = tl.arange(0, 32)
    a_ptrs = a_ptr + rt[:, None].to(tl.int64) * stride_am + rh[None, :]
    w_ptrs = (wq_ptr + e.to(tl.int64) * stride_we + rn[:, None].to(tl.int64) * stride_wn
              + rh[None, :])
    s_ptrs = ws_ptr + e.to(tl.int64) * stride_se + rn.to(tl.int64) * stride_sn
    if SWAP:
        acc = tl.zeros((BN, BT), dtype=tl.float32)
    else:
        acc = tl.zeros((BT, BN), dtype=tl.float32)
    for _kb in range(0, K // 64):
        a_lo = tl.load(a_ptrs, mask=t_mask[:, None], other=0.0)
        a_hi = tl.load(a_ptrs + 32, mask=t_mask[:, None], other=0.0)
        q = tl.load(w_ptrs, mask=n_mask[:, None], other=0)
        s_lo = (tl.load(s_ptrs, mask=n_mask, other=127).to(tl.uint16) << 7).to(
            tl.bfloat16, bitcast=True)
        s_hi = (tl.load(s_ptrs + 1, mask=n_mask, other=127).to(tl.uint16) << 7).to(
            tl.bfloat16, bitcast=True)
        w_lo = _e2m1_plane(q & 0xF, s_lo[:, None])
        w_hi = _e2m1_plane(q >> 4, s_hi[:, None])
        if SWAP:
            acc += tl.dot(w_lo, tl.trans(a_lo))
            acc += tl.dot(w_hi, tl.trans(a_hi))
        else:
            acc += tl.dot(a_lo, tl.trans(w_lo))
            acc += tl.dot(a_hi, tl.trans(w_hi))
        a_ptrs += 64
        w_ptrs += 32
        s_ptrs += 2
    _store_tile(out_ptr, acc, rt, rn, t_mask, n_mask, stride_om, SWAP)


def mxfp4_split_grouped_mm(a, wq_split, ws, offs, plan, tile, out=None, swap=False):
    """As mxfp4_grouped_mm with weights in the split packing (pack_mxfp4_split); swap: operands
    swapped (tokens as the MMA's N). plan = block_plan(offs, R, tile)."""
    assert a.shape[1] % MXFP4_SPLIT_BK == 0
    bn = 128
    k, e, n, texp, trow, out, grid = _grouped_out(a, wq_split, plan, out, bn)
    _mxfp4_split_kernel[grid](
        a, wq_split, ws, out, offs, texp, trow, n, k, e,
        a.stride(0), wq_split.stride(0), wq_split.stride(1), ws.stride(0), ws.stride(1),
        out.stride(0), BT=tile, BN=bn, SWAP=swap,
        num_warps=8 if tile == 128 else 4, num_stages=4)
    return out

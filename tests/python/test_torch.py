"""xpose.transpose on PyTorch tensors: CUDA tensors on the GPU (skipped without
one), CPU tensors on the CPU backend. Checked bit for bit against
x.transpose(-1, -2).contiguous()."""

import pytest

import xpose
from _cases import BATCHED, DTYPES, SHAPES


def rand(torch, shape, name, device="cuda", seed=0):
    """Random bit patterns (NaNs included) of dtype `name`; bools are 0/1."""
    g = torch.Generator(device=device).manual_seed(seed)
    dt = getattr(torch, name)
    if name == "bool":
        return torch.randint(0, 2, shape, generator=g, device=device).bool()
    es = torch.empty((), dtype=dt).element_size()
    if 0 in shape:
        return torch.empty(shape, dtype=dt, device=device)
    raw = torch.randint(-128, 128, tuple(shape[:-1]) + (shape[-1] * es,), dtype=torch.int8,
                        generator=g, device=device)
    return raw.view(dt)


def expected(x):
    return x.transpose(-1, -2).contiguous()


def assert_bits_equal(torch, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype and got.device == want.device
    # flatten(): a "contiguous" tensor may keep any stride on an extent-1 axis, which
    # view(uint8) rejects; the flat view has unit stride.
    assert torch.equal(got.contiguous().flatten().view(torch.uint8), want.contiguous().flatten().view(torch.uint8))


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + BATCHED, ids=str)
def test_cuda_dtypes_and_shapes(torch_cuda, name, shape):
    torch = torch_cuda
    x = rand(torch, shape, name)
    before = x.clone()
    y = xpose.transpose(x)
    torch.cuda.synchronize()
    assert isinstance(y, torch.Tensor) and y.is_cuda and y.is_contiguous()
    assert_bits_equal(torch, y, expected(x))
    assert_bits_equal(torch, x, before)


def test_cuda_large(torch_cuda):
    torch = torch_cuda
    x = rand(torch, (4099, 8191), "float32", seed=5)
    assert_bits_equal(torch, xpose.transpose(x), expected(x))


VIEWS = {
    "row_step": lambda b: b[::2],
    "col_slice": lambda b: b[:, 3:41],
    "offset_block": lambda b: b[5:, 7:],
    "single_col": lambda b: b[:, 4:5],
    "t_view": lambda b: b.t(),
    "t_slice": lambda b: b.t()[2:30, 1:35],
    "col_step": lambda b: b[:, ::3],
    "expand_rows": lambda b: b[0].expand(9, b.shape[1]),
    "expand_cols": lambda b: b[:, :1].expand(b.shape[0], 7),
}


@pytest.mark.parametrize("name", ["int8", "float16", "float32", "complex128"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_cuda_strided_views(torch_cuda, view, name):
    torch = torch_cuda
    x = VIEWS[view](rand(torch, (40, 50), name))
    assert_bits_equal(torch, xpose.transpose(x), expected(x))


BATCH_VIEWS = {
    "batch_step": lambda b: b[::2],
    "batch_slices": lambda b: b[1:, 2:9, 3:],
    "batch_expand": lambda b: b[0].expand(4, *b.shape[1:]),
    "mT": lambda b: b.mT,
    "mT_slice": lambda b: b.mT[::2, 1:, :-1],
    "batch_last": lambda b: b.permute(1, 2, 0),
}


@pytest.mark.parametrize("view", list(BATCH_VIEWS))
def test_cuda_strided_batches(torch_cuda, view):
    torch = torch_cuda
    x = BATCH_VIEWS[view](rand(torch, (6, 20, 30), "float64"))
    assert_bits_equal(torch, xpose.transpose(x), expected(x))


def test_cuda_out(torch_cuda):
    torch = torch_cuda
    x = rand(torch, (3, 70, 90), "bfloat16")
    out = torch.full((3, 90, 70), float("nan"), dtype=torch.bfloat16, device="cuda")
    assert xpose.transpose(x, out) is out
    assert_bits_equal(torch, out, expected(x))
    big = torch.zeros((90, 80), dtype=torch.float32, device="cuda")
    x2 = rand(torch, (70, 90), "float32")
    xpose.transpose(x2, out=big[:, :70])
    assert_bits_equal(torch, big[:, :70], expected(x2))
    assert not big[:, 70:].any()


def test_cuda_requires_grad_and_conj(torch_cuda):
    torch = torch_cuda
    x = torch.randn(30, 40, device="cuda", requires_grad=True)
    assert torch.equal(xpose.transpose(x), x.detach().t().contiguous())
    z = torch.randn(30, 40, dtype=torch.complex64, device="cuda").conj()
    assert torch.equal(xpose.transpose(z), z.resolve_conj().t().contiguous())


# --- streams -------------------------------------------------------------------

def test_cuda_current_stream_ordering(torch_cuda):
    """Default: ordered on torch.cuda.current_stream(). A long sleep queued first on a
    side stream delays the fill of x; a transpose on any other stream would read stale x."""
    torch = torch_cuda
    src = rand(torch, (2048, 3000), "float32", seed=7)
    x = torch.zeros_like(src)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)
        x.copy_(src)
        y = xpose.transpose(x)
        z = y.clone()
    s.synchronize()
    assert_bits_equal(torch, z, expected(src))


@pytest.mark.parametrize("kind", ["object", "int"])
def test_cuda_explicit_stream(torch_cuda, kind):
    torch = torch_cuda
    src = rand(torch, (1500, 2500), "float16", seed=8)
    x = torch.zeros_like(src)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    out = torch.empty((2500, 1500), dtype=torch.float16, device="cuda")
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)
        x.copy_(src)
    # The current stream is the default one; the work goes to s as asked.
    xpose.transpose(x, out, stream=s if kind == "object" else s.cuda_stream)
    s.synchronize()
    assert_bits_equal(torch, out, expected(src))


def test_cuda_other_device(torch_cuda):
    torch = torch_cuda
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    x = rand(torch, (100, 200), "float32", device="cuda:1")
    before = torch.cuda.current_device()
    y = xpose.transpose(x)
    assert y.device == x.device and torch.cuda.current_device() == before
    assert_bits_equal(torch, y, expected(x))


# --- bad input -----------------------------------------------------------------

def test_cuda_bad_inputs(torch_cuda):
    torch = torch_cuda
    x = torch.zeros((3, 4), device="cuda")
    with pytest.raises(ValueError, match="dtype"):
        xpose.transpose(x, torch.empty((4, 3), dtype=torch.float64, device="cuda"))
    with pytest.raises(ValueError, match="out"):
        xpose.transpose(x, torch.empty((3, 4), device="cuda"))
    with pytest.raises(ValueError, match="cpu|device"):
        xpose.transpose(x, torch.empty((4, 3)))
    with pytest.raises(ValueError, match="overlapping_output"):
        xpose.transpose(x, torch.empty((1, 1), device="cuda").expand(4, 3))
    xt = torch.arange(12.0, device="cuda").reshape(3, 4)
    out_t = torch.empty((3, 4), device="cuda").t()  # any strides the core can address
    assert_bits_equal(torch, xpose.transpose(xt, out_t), xt.t().contiguous())
    sq = torch.zeros((8, 8), device="cuda")
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(sq, sq)
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(torch.zeros(5, device="cuda"))
    assert torch.equal(xpose.transpose(torch.arange(16.0, device="cuda").reshape(2, 2, 2, 2)),
                       torch.arange(16.0, device="cuda").reshape(2, 2, 2, 2).mT)
    import numpy as np

    with pytest.raises(TypeError, match="out"):
        xpose.transpose(x, np.empty((4, 3), np.float32))
    with pytest.raises(TypeError, match="stream"):
        xpose.transpose(x, stream="default")


# --- CPU tensors (no GPU needed) -------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_cpu_tensors(name):
    torch = pytest.importorskip("torch")
    for shape in [(1, 1), (31, 33), (3, 17, 33), (257, 300)]:
        x = rand(torch, shape, name, device="cpu")
        y = xpose.transpose(x)
        assert y.device.type == "cpu"
        assert_bits_equal(torch, y, expected(x))
    x = rand(torch, (40, 50), name, device="cpu")
    assert_bits_equal(torch, xpose.transpose(x.t()), x)
    assert_bits_equal(torch, xpose.transpose(x[:, ::3]), expected(x[:, ::3]))


def test_cpu_lazy_conj_neg_and_out_views():
    # A lazily conjugated tensor reaches the core with conjugate set (no resolve_conj
    # copy); lazy negation is resolved; an out that is a lazy view is refused.
    torch = pytest.importorskip("torch")
    z = torch.randn(30, 40, dtype=torch.complex64)
    want = z.conj().resolve_conj().t().contiguous()
    assert torch.equal(xpose.transpose(z.conj()).view(torch.uint8), want.view(torch.uint8))
    assert torch.equal(xpose.permute(z.conj(), (1, 0), conjugate=True).view(torch.uint8),
                       z.t().contiguous().view(torch.uint8))
    assert torch.equal(xpose.transpose(z.conj()[:, ::2]), z.conj()[:, ::2].resolve_conj().t().contiguous())
    n = torch._neg_view(z)
    assert torch.equal(xpose.transpose(n), n.resolve_neg().t().contiguous())
    with pytest.raises(ValueError, match="lazily"):
        xpose.transpose(z, torch.empty(40, 30, dtype=torch.complex64).conj())
    x = torch.arange(12.0).reshape(3, 4)
    out = torch.full((4, 3), 7.0)
    with pytest.raises(ValueError, match="overlapping_output"):
        xpose.transpose(x, torch.zeros(1, 1).expand(4, 3))
    assert torch.equal(xpose.transpose(x, torch.empty(3, 4).t()), x.t().contiguous())
    assert xpose.transpose(x, out) is out and torch.equal(out, x.t())
    assert torch.equal(xpose.transpose(x.expand(2, 3, 4)), x.t().expand(2, 4, 3))  # stride-0 batch


def test_meta_tensor_traces_shape():
    # The registered op's fake implementation serves meta tensors: shapes, no data.
    torch = pytest.importorskip("torch")
    y = xpose.permute(torch.empty(3, 4, 5, device="meta"), (2, 0, 1))
    assert y.device.type == "meta" and y.shape == (5, 3, 4) and y.is_contiguous()

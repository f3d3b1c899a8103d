"""xpose.dist over torch.distributed: NCCL on 2 GPUs (skips below 2) and gloo on the CPU
(3 processes), spawned by torch.multiprocessing; each rank checks its block bit-exactly
and that disagreeing sizes raise ValueError on every rank."""

import os
import socket

import pytest

torch = pytest.importorskip("torch")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _uneven(n, P):
    w = [0 if (P >= 3 and r == 1) else r % 3 + 1 for r in range(P)]
    v = [n * w[r] // sum(w) for r in range(P)]
    v[-1] += n - sum(v)
    return v


def _rank(me, P, backend, port):
    import torch.distributed as dist

    import xpose.dist

    os.environ["NCCL_NVLS_ENABLE"] = "0"
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=me, world_size=P)
    dev = torch.device("cuda", me) if backend == "nccl" else torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(dev)
    try:
        for batch, R, C, dtype in [(1, 300, 257, torch.float32), (3, 64, 90, torch.bfloat16), (2, 31, 17, torch.uint8)]:
            gen = torch.Generator().manual_seed(R * 31 + C)
            g = torch.randint(0, 256, (batch, R, C * (torch.finfo(dtype).bits // 8 if dtype.is_floating_point else 1)),
                              dtype=torch.uint8, generator=gen).view(dtype)
            rows, outs = _uneven(R, P), list(reversed(_uneven(C, P)))
            r0, c0 = sum(rows[:me]), sum(outs[:me])
            x = g[:, r0 : r0 + rows[me]].contiguous().to(dev)
            got = xpose.dist.transpose(x if batch > 1 else x[0], outs[me])
            want = g.transpose(1, 2)[:, c0 : c0 + outs[me]].contiguous()
            want = want if batch > 1 else want[0]
            assert got.shape == want.shape
            # flatten(): an empty block's .contiguous() keeps its strides, which view() rejects.
            assert torch.equal(got.cpu().flatten().view(torch.uint8), want.flatten().view(torch.uint8)), (batch, R, C, dtype)
        bad = torch.zeros((2, 5 + (me == P - 1)), device=dev)
        with pytest.raises(ValueError):
            xpose.dist.transpose(bad)
    finally:
        dist.destroy_process_group()


def _spawn(P, backend):
    import torch.multiprocessing as mp

    mp.spawn(_rank, args=(P, backend, _free_port()), nprocs=P, join=True)


def test_dist_torch_gloo_cpu():
    if not torch.distributed.is_available():
        pytest.skip("torch.distributed is not available")
    _spawn(3, "gloo")


def test_dist_torch_nccl_2gpu():
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        pytest.skip("needs 2 CUDA GPUs")
    import xpose

    if xpose.device_count() < 2:
        pytest.skip("xpose built without CUDA or sees fewer than 2 GPUs")
    _spawn(2, "nccl")

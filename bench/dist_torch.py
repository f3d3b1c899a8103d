"""PyTorch baseline for the distributed transpose, same run:

  torchrun --nproc_per_node 2 bench/dist_torch.py [--sizes 8192,16384,32768,65536] [--dtype float32]

An N x N matrix distributed by rows over P GPUs, transposed into the same distribution:
  * torch:      permute pack -> all_to_all_single -> permute unpack (what users write today)
  * xpose.dist: xpose pack/self/unpack around the same all_to_all_single
  * a2a full:   all_to_all_single alone on the rank's whole block (self block included)
  * a2a xchg:   all_to_all_single alone on the off-diagonal blocks only (the bytes that move)
Times: CUDA events, median over reps of the slowest rank. Ratios: t(a2a) / t(whole).
Both whole transposes are checked bit-exactly against each other and against the input.
"""

import argparse
import os
import statistics

import torch
import torch.distributed as dist


def timed(fn, reps, iters):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    fn()
    for _ in range(reps):
        dist.barrier()
        torch.cuda.synchronize()
        start.record()
        for _ in range(iters):
            fn()
        stop.record()
        stop.synchronize()
        t = torch.tensor([start.elapsed_time(stop) / iters], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(t.item())
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="8192,16384,32768,65536")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--iters", type=int, default=5)
    args = ap.parse_args()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    dist.init_process_group("nccl")
    P, me = dist.get_world_size(), dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", me)))
    import xpose.dist

    dtype = getattr(torch, args.dtype)
    es = torch.empty((), dtype=dtype).element_size()
    if me == 0:
        print(f"dist_torch: P={P} {torch.cuda.get_device_name()} torch {torch.__version__} "
              f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))} dtype={args.dtype}")
    for N in [int(s) for s in args.sizes.split(",")]:
        if N % P:
            continue
        r = N // P
        x = torch.randint(0, 256, (r, N * es), dtype=torch.uint8, device="cuda").view(dtype)
        send_full = torch.empty(P * r * r, dtype=dtype, device="cuda")
        recv_full = torch.empty_like(send_full)
        xsplits = [0 if q == me else r * r for q in range(P)]
        send_x = torch.empty((P - 1) * r * r, dtype=dtype, device="cuda")
        recv_x = torch.empty_like(send_x)

        def torch_whole():
            send = x.reshape(r, P, r).permute(1, 2, 0).contiguous()
            recv = torch.empty_like(send)
            dist.all_to_all_single(recv, send)
            return recv.permute(1, 0, 2).reshape(r, N)

        def xpose_whole():
            return xpose.dist.transpose(x)

        def a2a_full():
            dist.all_to_all_single(recv_full, send_full)

        def a2a_xchg():
            dist.all_to_all_single(recv_x, send_x, output_split_sizes=xsplits, input_split_sizes=xsplits)

        a, b = torch_whole(), xpose_whole()
        ok = torch.equal(a.view(torch.uint8), b.view(torch.uint8))
        # Against the input: the self block of the result is the transposed self block.
        ok = ok and torch.equal(b[:, me * r : (me + 1) * r].view(torch.uint8),
                                x[:, me * r : (me + 1) * r].t().contiguous().view(torch.uint8))
        flag = torch.tensor([0 if ok else 1], device="cuda")
        dist.all_reduce(flag)
        del a, b
        if flag.item():
            if me == 0:
                print(f"N={N}: WRONG result, not timed")
            continue
        t_torch = timed(torch_whole, args.reps, args.iters)
        t_xpose = timed(xpose_whole, args.reps, args.iters)
        t_full = timed(a2a_full, args.reps, args.iters)
        t_xchg = timed(a2a_xchg, args.reps, args.iters)
        if me == 0:
            xb = (P - 1) * r * r * es
            print(f"N={N:6d} torch {t_torch:8.3f} ms  xpose.dist {t_xpose:8.3f} ms  a2a full {t_full:8.3f} ms  "
                  f"a2a xchg {t_xchg:8.3f} ms  | ratio vs a2a full: torch {t_full / t_torch:.2f} xpose "
                  f"{t_full / t_xpose:.2f}  vs a2a xchg: torch {t_xchg / t_torch:.2f} xpose {t_xchg / t_xpose:.2f}  "
                  f"a2a xchg {xb / t_xchg / 1e6:.0f} GB/s/rank")
        del x, send_full, recv_full, send_x, recv_x
        torch.cuda.empty_cache()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

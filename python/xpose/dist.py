"""xpose.dist: a matrix distributed by row blocks over P ranks, transposed into row blocks
of the result, over the framework's own collective.

* torch tensors (CUDA or CPU): ``torch.distributed`` (NCCL backend for CUDA tensors),
  ``all_to_all_single``.
* NumPy arrays: ``mpi4py`` (``MPI.COMM_WORLD`` unless ``comm`` is given), ``Alltoallv``.

Each rank passes its own row block ``x`` of shape ``(rows, cols)`` or
``(batch, rows, cols)``; blocks may have any sizes. It gets back its row block of the
transposed matrix, ``(out_rows, global_rows)`` / ``(batch, out_rows, global_rows)``,
where ``out_rows`` is given per rank or, by default, the even split of ``cols`` (``cols //
P``, the first ``cols % P`` ranks one more). The pack (each destination's columns
transposed into the send buffer) and the self block are ``xpose.transpose`` calls with
strided inputs/outputs; the unpack is a pitched copy into the output rows.

Every call first gathers each rank's sizes and the outcome of its own argument checks
(one small collective), so a rank whose sizes disagree makes every rank raise the same
``ValueError``, and a rank whose arguments are wrong (a list for ``x``, ``out_rows="3"``,
an unsupported dtype) makes every rank raise that rank's exception, instead of hanging.
The buffers are allocated and the local transposes run before a second small
collective, so a failure there (a ``MemoryError`` on a huge broadcast block) is also
raised on every rank before the exchange. Exceptions keep their type (``TypeError``,
``ValueError``, ``OverflowError``, ``MemoryError``, ``IndexError``; anything else
becomes ``RuntimeError``) and carry the same message, naming the first failing rank,
on every rank. Not agreed (no collective can be reached): a ``comm`` that is not a
communicator, and an ``x`` of another framework than the other ranks' (the framework
picks the collective: torch tensors ``torch.distributed``, anything else mpi4py).
"""

import operator
from typing import Any, List, Optional, Sequence, Tuple

from ._api import transpose as _transpose

__all__ = ["transpose", "even_split"]


def even_split(n: int, nranks: int, rank: int) -> int:
    """Rows of rank ``rank`` when ``n`` rows are split evenly over ``nranks`` ranks."""
    return n // nranks + (1 if rank < n % nranks else 0)


def _agree(infos: Sequence[Tuple]) -> Tuple[List[int], List[int]]:
    """Checks every rank's (rows, out_rows, cols, batch, dtype, nranks) the same way on
    every rank; returns the row offsets and output-row offsets (P + 1 each)."""
    P = len(infos)
    _raise_agreed([info[-1] for info in infos])
    _, _, cols0, batch0, dtype0, _, _ = infos[0]
    for r, (_, _, cols, batch, dtype, nranks, _) in enumerate(infos):
        if (cols, batch, dtype) != (cols0, batch0, dtype0):
            raise ValueError(
                f"xpose.dist: rank {r} has a ({batch}, *, {cols}) block of {dtype}, "
                f"rank 0 a ({batch0}, *, {cols0}) block of {dtype0}"
            )
        if nranks is not None and nranks != P:
            raise ValueError(f"xpose.dist: rank {r} expects {nranks} ranks, the group has {P}")
    outs = [even_split(cols0, P, r) if o is None else o for r, (_, o, *_rest) in enumerate(infos)]
    if sum(outs) != cols0:
        raise ValueError(f"xpose.dist: the ranks' out_rows add up to {sum(outs)}, not cols = {cols0}")
    row_off, col_off = [0], [0]
    for r in range(P):
        row_off.append(row_off[-1] + infos[r][0])
        col_off.append(col_off[-1] + outs[r])
    return row_off, col_off


_AGREED_TYPES = {e.__name__: e for e in (MemoryError, OverflowError, IndexError, TypeError, ValueError)}


def _error(e: BaseException) -> Tuple[str, str]:
    """What a rank tells the others about its exception (plain strings: picklable)."""
    kind = next((n for n, t in _AGREED_TYPES.items() if isinstance(e, t)), "RuntimeError")  # NumPy's MemoryError subclass too
    return (kind, f"{type(e).__name__}: {e}")


def _raise_agreed(errors: Sequence[Optional[Tuple[str, str]]]) -> None:
    """Raises the first failing rank's exception, identically on every rank."""
    for r, err in enumerate(errors):
        if err:
            kind, msg = err
            raise _AGREED_TYPES.get(kind, RuntimeError)(f"xpose.dist: rank {r}: {msg}")


def _count(name: str, v: Any) -> Optional[int]:
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError(f"{name} must be an integer or None, got bool")
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"{name} must be an integer or None, got {type(v).__name__}") from None
    if n < 0:
        raise ValueError(f"{name} must be >= 0, got {n}")
    return n


def _local_info(x: Any, out_rows: Any, nranks: Any, array_type: Any = None) -> Tuple:
    """This rank's (rows, out_rows, cols, batch, dtype, nranks, error): every check that
    needs no other rank, its failure carried as `error` instead of raised."""
    try:
        if array_type is not None and not isinstance(x, array_type):
            raise TypeError(f"x must be a {array_type.__module__}.{array_type.__name__}, got {type(x).__module__}.{type(x).__name__}")
        out_rows = _count("out_rows", out_rows)
        nranks = _count("nranks", nranks)
        if x.ndim not in (2, 3):
            raise ValueError(f"x must be 2-D or 3-D, got {x.ndim}-D")
        shape = tuple(int(n) for n in x.shape)
        if len(shape) == 2:
            shape = (1,) + shape
        itemsize = x.element_size() if hasattr(x, "element_size") else x.dtype.itemsize
        if itemsize not in (1, 2, 4, 8, 16) or getattr(x.dtype, "hasobject", False):
            raise TypeError(f"dtype {x.dtype} is not supported (elements of 1, 2, 4, 8 or 16 bytes)")
        if out_rows is not None and out_rows > shape[2]:
            raise ValueError(f"out_rows ({out_rows}) exceeds cols ({shape[2]})")
        return (shape[1], out_rows, shape[2], shape[0], str(x.dtype), nranks, None)
    except Exception as e:  # carried to every rank by the agreement
        return (0, None, 0, 1, "", None, _error(e))


def _plan(infos: Sequence[Tuple], me: int):
    row_off, col_off = _agree(infos)
    P = len(infos)
    rows, cols, batch = infos[me][0], infos[me][2], infos[me][3]
    R = row_off[-1]
    n_me = col_off[me + 1] - col_off[me]
    # Send: per peer q, (batch, n_q, rows); receive: per peer p, (batch, n_me, r_p).
    send_counts = [0 if q == me else batch * (col_off[q + 1] - col_off[q]) * rows for q in range(P)]
    recv_counts = [0 if p == me else batch * n_me * (row_off[p + 1] - row_off[p]) for p in range(P)]
    return row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts


def _displs(counts: Sequence[int]) -> List[int]:
    d = [0]
    for c in counts[:-1]:
        d.append(d[-1] + c)
    return d


def _pack(x3, send, plan, me, P):
    """Pack every peer's columns into `send` (xpose)."""
    row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts = plan
    sd = _displs(send_counts)
    for q in range(P):
        n_q = col_off[q + 1] - col_off[q]
        if q == me or send_counts[q] == 0:
            continue
        _transpose(x3[:, :, col_off[q] : col_off[q + 1]], out=send[sd[q] : sd[q] + send_counts[q]].reshape(batch, n_q, rows))


def _self(x3, out3, plan, me):
    """Self block straight from `x3` to `out3` (xpose)."""
    row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts = plan
    if rows and n_me:
        _transpose(x3[:, :, col_off[me] : col_off[me + 1]], out=out3[:, :, row_off[me] : row_off[me + 1]])


def _unpack(out3, recv, plan, me, P):
    row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts = plan
    rd = _displs(recv_counts)
    for p in range(P):
        if p == me or recv_counts[p] == 0:
            continue
        r_p = row_off[p + 1] - row_off[p]
        out3[:, :, row_off[p] : row_off[p + 1]] = recv[rd[p] : rd[p] + recv_counts[p]].reshape(batch, n_me, r_p)


def _transpose_torch(x, out_rows, nranks, group, comm=None):
    import torch
    import torch.distributed as dist

    P, me = dist.get_world_size(group), dist.get_rank(group)
    infos: List[Any] = [None] * P
    info = _local_info(x, out_rows, nranks, torch.Tensor)
    if comm is not None and info[-1] is None:
        info = info[:-1] + (_error(TypeError("comm= is for NumPy arrays over mpi4py; torch tensors use group=")),)
    dist.all_gather_object(infos, info, group=group)
    plan = _plan(infos, me)
    row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts = plan
    err = None
    try:  # allocation and pack: agreed on before the exchange
        x3 = x.detach().reshape(batch, rows, cols) if x.ndim == 2 else x.detach()
        out3 = torch.empty((batch, n_me, R), dtype=x.dtype, device=x.device)
        send = torch.empty(sum(send_counts), dtype=x.dtype, device=x.device)
        recv = torch.empty(sum(recv_counts), dtype=x.dtype, device=x.device)
        _pack(x3, send, plan, me, P)
    except Exception as e:
        err = _error(e)
    errors: List[Any] = [None] * P
    dist.all_gather_object(errors, err, group=group)
    _raise_agreed(errors)
    work = None
    if P > 1:
        # Issued before the self block, which touches neither buffer, so the two overlap.
        work = dist.all_to_all_single(
            recv, send, output_split_sizes=recv_counts, input_split_sizes=send_counts, group=group, async_op=True
        )
    _self(x3, out3, plan, me)
    if work is not None:
        work.wait()
        _unpack(out3, recv, plan, me, P)
    return out3 if x.ndim == 3 else out3[0]


def _transpose_numpy(x, out_rows, nranks, comm, group=None):
    import numpy as np

    from mpi4py import MPI

    if comm is None:
        comm = MPI.COMM_WORLD

    P, me = comm.Get_size(), comm.Get_rank()
    info = _local_info(x, out_rows, nranks, np.ndarray)
    if group is not None and info[-1] is None:
        info = info[:-1] + (_error(TypeError("group= is for torch tensors; NumPy arrays use comm= (mpi4py)")),)
    infos = comm.allgather(info)
    plan = _plan(infos, me)
    row_off, col_off, R, n_me, rows, cols, batch, send_counts, recv_counts = plan
    err = None
    try:  # allocation, pack and self block: agreed on before the exchange
        x3 = x[np.newaxis] if x.ndim == 2 else x
        out3 = np.empty((batch, n_me, R), dtype=x.dtype)
        send = np.empty(sum(send_counts), dtype=x.dtype)
        recv = np.empty(sum(recv_counts), dtype=x.dtype)
        _pack(x3, send, plan, me, P)
        _self(x3, out3, plan, me)
    except Exception as e:
        err = _error(e)
    _raise_agreed(comm.allgather(err))
    if P > 1:
        es = x.dtype.itemsize
        sb = [c * es for c in send_counts]
        rb = [c * es for c in recv_counts]
        comm.Alltoallv([send.view(np.uint8), sb, _displs(sb), MPI.BYTE], [recv.view(np.uint8), rb, _displs(rb), MPI.BYTE])
        _unpack(out3, recv, plan, me, P)
    return out3 if x.ndim == 3 else out3[0]


def transpose(
    x: Any,
    out_rows: Optional[int] = None,
    *,
    nranks: Optional[int] = None,
    group: Any = None,
    comm: Any = None,
) -> Any:
    """Distributed transpose of this rank's row block ``x``; collective over the ranks.

    Parameters
    ----------
    x:
        This rank's rows, ``(rows, cols)`` or ``(batch, rows, cols)``: a torch tensor
        (``torch.distributed`` must be initialised; CUDA tensors need the NCCL backend)
        or a NumPy array (over mpi4py).
    out_rows:
        Rows of the result this rank receives (its slice of the columns); default the
        even split of ``cols``.
    nranks:
        Optional check: the number of ranks the caller expects in the group/communicator.
    group:
        torch.distributed process group (default: the world).
    comm:
        mpi4py communicator for NumPy arrays (default: ``MPI.COMM_WORLD``).

    Returns
    -------
    This rank's block of the transposed matrix, ``(out_rows, global_rows)`` or
    ``(batch, out_rows, global_rows)``, C-contiguous, same framework/dtype/device.

    Raises ``ValueError`` on every rank when any rank's sizes disagree, and any rank's
    argument error (``TypeError``, ``ValueError``, ...) or allocation failure
    (``MemoryError``) on every rank, with the same type and message, before anything is
    exchanged.
    """
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return _transpose_torch(x, out_rows, nranks, group, comm)
    # Anything but a torch tensor goes over mpi4py, where a wrong type is an agreed error.
    return _transpose_numpy(x, out_rows, nranks, comm, group)

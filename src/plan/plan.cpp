// make_plan: validate once, normalise (drop unit dims, order dims by stride, fuse
// dims adjacent on both sides), classify into an algorithm. Pointer-free: the
// pointer checks run at execute (check_plan_pointers).
#include <algorithm>
#include <cstdint>

#include "../core/core.hpp"
#include "../internal.hpp"

namespace xpose {
namespace {

using sc = status_code;

// One dimension seen from the output: extent, output stride, input stride, and the
// input axis it came from (the tie-break of the input order).
struct dim {
  index_t n, os, is;
  int axis;
};

status check_axes(int rank, const int* axes, int naxes) {
  if (axes == nullptr) return {};
  if (naxes != rank)
    return status::make(sc::bad_axes, "axes has %d entries for a rank-%d layout", naxes, rank);
  unsigned seen = 0;
  for (int k = 0; k < naxes; ++k) {
    if (axes[k] < 0 || axes[k] >= rank)
      return status::make(sc::bad_axes, "axes[%d] = %d is out of range for rank %d", k, axes[k], rank);
    if (seen & (1u << axes[k]))
      return status::make(sc::bad_axes, "axes[%d] = %d repeats an axis", k, axes[k]);
    seen |= 1u << axes[k];
  }
  return {};
}

int axis_at(const int* axes, int rank, int k) { return axes ? axes[k] : rank - 1 - k; }

// Canonical form: dims sorted by output stride (outermost first), unit dims
// dropped, neighbours fused when contiguous on both sides; the input order is by
// input stride, broadcast (stride 0) dims outermost, ties by original axis.
int normalise(const layout& in, const layout& out, const int* axes, dim* d) {
  int r = 0;
  for (int k = 0; k < out.rank; ++k) {
    const int a = axis_at(axes, in.rank, k);
    if (out.extents[k] != 1) d[r++] = {out.extents[k], out.strides[k], in.strides[a], a};
  }
  std::stable_sort(d, d + r, [](const dim& x, const dim& y) { return x.os > y.os; });
  int m = 0;
  for (int k = 0; k < r; ++k) {
    // Products in 64 bits with overflow checked: an extent times a stride near 2^62
    // wraps (a wrapped product never equals a real stride, so no fuse).
    index_t nos = 0, nis = 0;
    if (m > 0 && !__builtin_mul_overflow(d[k].n, d[k].os, &nos) && !__builtin_mul_overflow(d[k].n, d[k].is, &nis) &&
        d[m - 1].os == nos && d[m - 1].is == nis) {
      d[m - 1] = {d[m - 1].n * d[k].n, d[k].os, d[k].is, d[m - 1].axis};
      continue;
    }
    d[m++] = d[k];
  }
  if (m == 0) d[m++] = {1, 1, 1, 0};  // one element: a rank-1 copy
  return m;
}

algorithm classify(const plan& p) {
  const int r = p.out.rank;
  if (p.count == 0) return algorithm::empty;
  if (r == 0 || (r == 1 && p.in.strides[0] == 1 && p.out.strides[0] == 1 && !p.conjugate)) return algorithm::copy;
  if (p.axes[r - 1] == r - 1) return algorithm::strided_copy;
  // Batched 2-D: (b, r, c) -> (b, c, r) with unit inner strides and the matrix_desc
  // contract of `best` (ld_in >= cols, ld_out >= rows, output batches apart).
  const bool two = r == 2 && p.axes[0] == 1;
  const bool three = r == 3 && p.axes[0] == 0 && p.axes[1] == 2;
  if (!p.conjugate && (two || three) && p.in.strides[r - 1] == 1 && p.out.strides[r - 1] == 1) {
    const matrix_desc& d = p.desc;
    if (d.ld_in >= d.cols && d.ld_out >= d.rows &&
        (d.batch == 1 || d.stride_out >= (d.cols - 1) * d.ld_out + d.rows))
      return algorithm::transpose_2d;
  }
  return algorithm::permute_nd;
}

}  // namespace

const char* to_string(algorithm a) noexcept {
  switch (a) {
    case algorithm::empty: return "empty";
    case algorithm::copy: return "copy";
    case algorithm::strided_copy: return "strided_copy";
    case algorithm::transpose_2d: return "transpose_2d";
    case algorithm::permute_nd: return "permute_nd";
  }
  return "unknown";
}

layout permuted_packed(const layout& in, const int* axes, int naxes) noexcept {
  index_t ext[layout::max_rank] = {};
  const int r = in.rank < 0 ? 0 : std::min(in.rank, layout::max_rank);
  for (int k = 0; k < r && k < (axes ? naxes : r); ++k) {
    const int a = axis_at(axes, r, k);
    ext[k] = a >= 0 && a < r ? in.extents[a] : 0;
  }
  return layout::packed(r, ext, in.elem_size);
}

namespace {

// The seal: a 64-bit mix of every field of a plan but the seal (a new field of plan
// must be added here), entries past a layout's rank included (make_plan leaves them 0).
struct mixer {
  std::uint64_t h = 0x243F6A8885A308D3ull;
  void add(std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
  }
  void add(const layout& l) {
    add(static_cast<std::uint64_t>(l.rank)), add(static_cast<std::uint64_t>(l.elem_size));
    for (int k = 0; k < layout::max_rank; ++k) add(static_cast<std::uint64_t>(l.extents[k])), add(static_cast<std::uint64_t>(l.strides[k]));
  }
};

std::uint64_t plan_seal(const plan& p) {
  mixer m;
  m.add(static_cast<std::uint64_t>(p.algo));
  m.add(p.in), m.add(p.out);
  for (int k = 0; k < layout::max_rank; ++k) m.add(static_cast<std::uint64_t>(p.axes[k]));
  const matrix_desc& d = p.desc;
  for (index_t v : {d.rows, d.cols, d.ld_in, d.ld_out, d.batch, d.stride_in, d.stride_out}) m.add(static_cast<std::uint64_t>(v));
  m.add(static_cast<std::uint64_t>(d.elem_size));
  m.add(static_cast<std::uint64_t>(d.derived_stride_in)), m.add(static_cast<std::uint64_t>(d.derived_stride_out));
  m.add(static_cast<std::uint64_t>(p.conjugate));
  m.add(static_cast<std::uint64_t>(p.count)), m.add(static_cast<std::uint64_t>(p.in_bytes)), m.add(static_cast<std::uint64_t>(p.out_bytes));
  return m.h;
}

}  // namespace

status make_plan(const layout& in, const layout& out, const int* axes, int naxes, const plan_options& options,
                 plan* result) noexcept {
  if (status s = check_layout(in, "input"); !s.ok()) return s;
  if (status s = check_layout(out, "output"); !s.ok()) return s;
  if (in.rank != out.rank)
    return status::make(sc::bad_rank, "input rank %d and output rank %d differ", in.rank, out.rank);
  if (in.elem_size != out.elem_size)
    return status::make(sc::unsupported_elem_size, "input (%d bytes) and output (%d bytes) element sizes differ",
                        in.elem_size, out.elem_size);
  if (status s = check_axes(in.rank, axes, naxes); !s.ok()) return s;
  for (int k = 0; k < out.rank; ++k) {
    const int a = axis_at(axes, in.rank, k);
    if (out.extents[k] != in.extents[a])
      return status::make(sc::shape_mismatch, "output extent %d (%lld) differs from input extent %d (%lld)", k,
                          (long long)out.extents[k], a, (long long)in.extents[a]);
  }
  if (options.conjugate && in.elem_size != 8 && in.elem_size != 16)
    return status::make(sc::invalid_argument,
                        "conjugate needs complex elements: 8 bytes (c64) or 16 bytes (c128), not %d", in.elem_size);
  if (!elements_distinct(out))
    return status::make(sc::overlapping_output,
                        "output strides let two output elements share memory (strides must nest)");

  plan p;
  p.conjugate = options.conjugate;
  p.count = in.count();
  p.in_bytes = in.span() * in.elem_size;
  p.out_bytes = out.span() * out.elem_size;
  p.in.elem_size = p.out.elem_size = in.elem_size;
  if (p.count > 0) {
    dim d[layout::max_rank];
    const int r = normalise(in, out, axes, d);
    int order[layout::max_rank];  // input order: position -> output dim
    for (int k = 0; k < r; ++k) order[k] = k;
    std::sort(order, order + r, [&](int x, int y) {
      const bool bx = d[x].is == 0, by = d[y].is == 0;
      if (bx != by) return bx;
      if (d[x].is != d[y].is) return d[x].is > d[y].is;
      return d[x].axis < d[y].axis;
    });
    p.in.rank = p.out.rank = r;
    for (int j = 0; j < r; ++j) {
      const dim& x = d[order[j]];
      p.in.extents[j] = x.n, p.in.strides[j] = x.is;
      p.axes[order[j]] = j;
    }
    for (int k = 0; k < r; ++k) p.out.extents[k] = d[k].n, p.out.strides[k] = d[k].os;
    if (r == 2 || r == 3) {
      matrix_desc& m = p.desc;
      m.elem_size = in.elem_size;
      m.rows = p.in.extents[r - 2], m.cols = p.in.extents[r - 1];
      m.ld_in = p.in.strides[r - 2], m.ld_out = p.out.strides[r - 2];
      m.batch = r == 3 ? p.in.extents[0] : 1;
      m.stride_in = r == 3 ? p.in.strides[0] : m.rows * m.cols;
      m.stride_out = r == 3 ? p.out.strides[0] : m.rows * m.cols;
    }
  }
  p.algo = classify(p);
  p.seal = plan_seal(p);
  *result = p;
  return {};
}

namespace detail {

status check_pointers(const void* in, index_t in_bytes, const void* out, index_t out_bytes, int elem_size,
                      int align) noexcept {
  if (in == nullptr || out == nullptr)
    return status::make(sc::null_pointer, "%s pointer is null for a non-empty transpose", in ? "output" : "input");
  const auto pi = reinterpret_cast<std::uintptr_t>(in), po = reinterpret_cast<std::uintptr_t>(out);
  const auto es = static_cast<unsigned>(align > 0 && align < elem_size ? align : elem_size);
  if (pi % es != 0 || po % es != 0)
    return status::make(sc::misaligned, "%s pointer %p is not aligned to %u bytes (%d-byte elements)",
                        pi % es ? "input" : "output", pi % es ? in : out, es, elem_size);
  if (pi > UINTPTR_MAX - static_cast<std::uintptr_t>(in_bytes) ||
      po > UINTPTR_MAX - static_cast<std::uintptr_t>(out_bytes))
    return status::make(sc::size_overflow, "the extent of input or output wraps the address space");
  if (ranges_overlap(in, in_bytes, out, out_bytes))
    return status::make(sc::overlap, "input [%p, +%lld B) and output [%p, +%lld B) overlap", in,
                        (long long)in_bytes, out, (long long)out_bytes);
  return {};
}

status check_plan(const plan& p) noexcept {
  const int a = static_cast<int>(p.algo);
  if (a < static_cast<int>(algorithm::empty) || a > static_cast<int>(algorithm::permute_nd))
    return status::make(sc::invalid_argument, "plan.algo is %d: not an algorithm (the plan was edited)", a);
  if (p.count == 0) {
    // An empty plan moves nothing; it must say so everywhere.
    if (p.algo != algorithm::empty || p.in_bytes != 0 || p.out_bytes != 0 || p.in.rank != 0 || p.out.rank != 0)
      return status::make(sc::invalid_argument, "an empty plan (count 0) with algorithm %s, rank %d, %lld / %lld bytes: "
                          "the plan was edited", to_string(p.algo), p.in.rank, (long long)p.in_bytes,
                          (long long)p.out_bytes);
    return {};
  }
  // make_plan's seal over every field: anything else was not made by make_plan or was
  // edited since, and could address memory outside the spans the pointer checks cover.
  if (p.seal != plan_seal(p))
    return status::make(sc::invalid_argument,
                        "the plan's fields disagree with make_plan's seal: it was edited after make_plan");
  return {};
}

status check_plan_pointers(const plan& p, const void* in, void* out, int align) noexcept {
  if (status s = check_plan(p); !s.ok()) return s;
  if (p.count == 0) return {};
  return check_pointers(in, p.in_bytes, out, p.out_bytes, p.in.elem_size, align);
}

status run_plan_host(const plan& p, const void* in, void* out, int threads) noexcept {
  if (p.count == 0) return {};
  if (status s = check_pointers(in, p.in_bytes, out, p.out_bytes, p.in.elem_size, host_align); !s.ok()) return s;
  execute_plan_cpu(p, in, out, threads);
  return {};
}

}  // namespace detail

status execute_host(const plan& p, const void* in, void* out, const host_options& options) noexcept {
  int threads = 0;
  if (status s = check_host_options(options, &threads); !s.ok()) return s;
  if (status s = detail::check_plan(p); !s.ok()) return s;
  return detail::run_plan_host(p, in, out, threads);
}

}  // namespace xpose

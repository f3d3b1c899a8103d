// Index math of the in-place transpose, once for the CPU, the GPU and the tests.
// Rectangles: the decomposition of Catanzaro, Keller and Garland (PPoPP 2014),
// derived here as three gathers on an R x C grid (row-major, R rows of C):
// a column rotation (only when gcd(R, C) > 1), a row shuffle and a column
// shuffle, which together take element (i, j) to position j*R + i. Squares: tile
// pairs (ti, tj), ti <= tj, enumerated as a triangle. All sizes 64-bit.
#pragma once

#include <cmath>
#include <cstdint>

#include "xpose/config.hpp"

namespace xpose::detail::inplace {

/// a / b and a % b for 0 <= a, 0 < b: 32-bit arithmetic when both fit (every
/// matrix below 2^32 elements), which costs a GPU a fraction of a 64-bit division.
XPOSE_HD inline index_t udiv(index_t a, index_t b) {
  if (((static_cast<std::uint64_t>(a) | static_cast<std::uint64_t>(b)) >> 32) == 0)
    return static_cast<index_t>(static_cast<std::uint32_t>(a) / static_cast<std::uint32_t>(b));
  return a / b;
}
XPOSE_HD inline index_t umod(index_t a, index_t b) { return a - udiv(a, b) * b; }

XPOSE_HD inline index_t gcd(index_t a, index_t b) {
  while (b != 0) {
    const index_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// (x * y) mod m for 0 <= x, y < m < 2^63, without overflow.
XPOSE_HD inline index_t mulmod(index_t x, index_t y, index_t m) {
  const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
  if ((ux | uy) < (std::uint64_t{1} << 31)) return umod(static_cast<index_t>(ux * uy), m);
  std::uint64_t r = 0, a = ux;  // double and add; every partial stays below 2m < 2^64
  for (std::uint64_t b = uy; b != 0; b >>= 1) {
    if (b & 1) r = (r + a) % static_cast<std::uint64_t>(m);
    a = (a << 1) % static_cast<std::uint64_t>(m);
  }
  return static_cast<index_t>(r);
}

/// Division by a fixed d >= 1 (with udiv the GPU passes spent most of their time in
/// divisions). Dividends below 2^31 take one 32 x 32-bit multiply and a shift
/// (Granlund and Montgomery, PLDI 1994, Theorem 4.2 with N = 31): m = ceil(2^(31+l)
/// / d), l = ceil(log2 d), so 2^(31+l) <= m*d < 2^(31+l) + 2^l and m < 2^32. Others,
/// and d >= 2^31, take udiv. mulmod: (x*y) mod d for x, y < d < 2^31 from a
/// double-precision quotient (off by at most one: q < 2^31, relative error < 2^-50)
/// corrected in integers; replaces a 64-bit division per call.
struct divisor {
  index_t d = 1;
  std::uint32_t m = 0;  // 0: no fast path
  int s = 0;
  double inv = 1.0;

  static divisor make(index_t d) {
    divisor v;
    v.d = d;
    v.inv = 1.0 / static_cast<double>(d);
    if (d >= 1 && d < (index_t{1} << 31)) {
      int l = 0;
      while ((index_t{1} << l) < d) ++l;
      const std::uint64_t num = std::uint64_t{1} << (31 + l);
      v.m = static_cast<std::uint32_t>((num + static_cast<std::uint64_t>(d) - 1) / static_cast<std::uint64_t>(d));
      v.s = 31 + l;
    }
    return v;
  }
  XPOSE_HD index_t div(index_t a) const {
    if (m != 0 && static_cast<std::uint64_t>(a) < (std::uint64_t{1} << 31))
      return static_cast<index_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) * m) >> s);
    return udiv(a, d);
  }
  XPOSE_HD index_t mod(index_t a) const { return a - div(a) * d; }
  XPOSE_HD index_t mulmod(index_t x, index_t y) const {
    if (m == 0) return inplace::mulmod(x, y, d);
    const std::uint64_t p = static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y);  // < 2^62
    if (p < (std::uint64_t{1} << 31)) return mod(static_cast<index_t>(p));
    const auto q = static_cast<std::int64_t>(static_cast<double>(x) * static_cast<double>(y) * inv);
    std::int64_t r = static_cast<std::int64_t>(p) - q * d;
    if (r < 0) r += d;
    if (r >= d) r -= d;
    return r;
  }
};

/// Inverse of a modulo b (gcd(a, b) = 1, b >= 1); 0 when b == 1.
inline index_t mod_inverse(index_t a, index_t b) {
  if (b == 1) return 0;
  index_t r0 = b, r1 = a % b, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const index_t q = r0 / r1;
    index_t t = r0 - q * r1;
    r0 = r1;
    r1 = t;
    t = t0 - q * t1;
    t0 = t1;
    t1 = t;
  }
  return t0 < 0 ? t0 + b : t0;
}

/// The three gathers of the decomposition on an R x C grid. new(i, j) = old(src):
///   rotate:  old(rotate_src(i, j), j)     column j turned up by floor(j / b)
///   shuffle: old(i, shuffle_src(i, j))    row i permuted
///   column:  old(column_src(i, j), j)     column j permuted
/// After all three, grid element (i, j) of the input sits at linear position j*R + i.
struct c2r_map {
  index_t R = 1, C = 1;
  index_t c = 1, a = 1, b = 1;  // c = gcd(R, C), a = R / c, b = C / c
  index_t ainv = 0;             // a^-1 mod b
  divisor dR, dc, db;           // R, c, b

  static c2r_map make(index_t R, index_t C) {
    c2r_map m;
    m.R = R;
    m.C = C;
    m.c = gcd(R, C);
    m.a = R / m.c;
    m.b = C / m.c;
    m.ainv = mod_inverse(m.a % m.b, m.b);
    m.dR = divisor::make(R);
    m.dc = divisor::make(m.c);
    m.db = divisor::make(m.b);
    return m;
  }

  XPOSE_HD index_t rotate_src(index_t i, index_t j) const {
    const index_t s = i + db.div(j);  // j / b < c <= R
    return s >= R ? s - R : s;
  }

  // Row i receives, in column j, the element whose final column is j. That element
  // came from grid column jj = k*b + t with k = (j - i) mod c (its rotation), its
  // original row being ii = (i + k) mod R, and j = (jj*R + ii) mod C.
  XPOSE_HD index_t shuffle_src(index_t i, index_t j) const {
    const index_t k = dc.mod(j - i + R);  // j - i + R >= 0, and R is a multiple of c
    index_t ii = i + k;
    if (ii >= R) ii -= R;
    const index_t v = j >= ii ? j - ii : j - ii + C;  // (j - ii) mod C: -R < j - ii < C
    const index_t t = db.mulmod(dc.div(v), ainv);     // (jj*R) mod C = c * (t*a mod b)
    return k * b + t;
  }

  // When c = R (R divides C: a = 1, a^-1 = 1) the shuffle is a blocked transpose:
  // row i's column k*b + t (k < R, t < b) goes to column t*R + (k + i) mod R, so a
  // run of t reads R runs of columns and writes one contiguous range.
  XPOSE_HD bool shuffle_is_blocked() const { return c == R; }
  XPOSE_HD index_t blocked_dst(index_t i, index_t k, index_t t) const {
    const index_t r = k + dR.mod(i);
    return t * R + (r >= R ? r - R : r);
  }

  // Final position L = i*C + j holds original (L mod R, L div R); that element was
  // rotated into row (L mod R - k) mod R of its final column.
  XPOSE_HD index_t column_src(index_t i, index_t j) const {
    const index_t L = i * C + j;
    const index_t jj = dR.div(L), ii = L - jj * R;
    const index_t r = ii - db.div(jj);  // jj / b < c <= R
    return r < 0 ? r + R : r;
  }
};

enum class step_kind : int { rotate, shuffle, column };

/// One pass over the grid: a per-line permutation. Column kinds permute within
/// columns (lines are columns of R), shuffle within rows (lines are rows of C).
/// gather: new(x) = old(src(x)); scatter (the inverse): new(src(x)) = old(x).
struct step {
  step_kind kind;
  bool gather;
  XPOSE_HD bool along_columns() const { return kind != step_kind::shuffle; }
};

/// Source index within the line of grid position (i, j): a row for column kinds,
/// a column for the shuffle.
XPOSE_HD inline index_t step_src(const c2r_map& m, step_kind k, index_t i, index_t j) {
  if (k == step_kind::rotate) return m.rotate_src(i, j);
  if (k == step_kind::shuffle) return m.shuffle_src(i, j);
  return m.column_src(i, j);
}

/// A rows x cols (row-major) transpose as passes on the grid R = min, C = max.
/// Wide (rows <= cols): the gathers on rows x cols. Tall: the transpose of the
/// cols x rows matrix is the inverse permutation, so its steps run backwards as
/// scatters. Column passes thus always work on the short side.
struct rect_plan {
  c2r_map map;
  int steps = 0;
  step s[3] = {};
};

inline rect_plan make_rect_plan(index_t rows, index_t cols) {
  rect_plan p;
  const bool tall = rows > cols;
  p.map = c2r_map::make(tall ? cols : rows, tall ? rows : cols);
  step fwd[3];
  int n = 0;
  if (p.map.c > 1) fwd[n++] = {step_kind::rotate, true};
  fwd[n++] = {step_kind::shuffle, true};
  fwd[n++] = {step_kind::column, true};
  for (int k = 0; k < n; ++k) p.s[k] = tall ? step{fwd[n - 1 - k].kind, false} : fwd[k];
  p.steps = n;
  return p;
}

/// Calls f(j, step_src(m, kind, i, j)) for j = j0 .. j0+n-1 along row i, stepping
/// the decomposition's counters instead of dividing per element (the CPU's inner
/// loops; tests compare it with step_src).
template <class F>
XPOSE_HD void for_row(const c2r_map& m, step_kind kind, index_t i, index_t j0, index_t n, F&& f) {
  if (n <= 0) return;
  if (kind == step_kind::rotate) {
    index_t rr = j0 % m.b, s = m.rotate_src(i, j0);
    for (index_t j = j0; j < j0 + n; ++j) {
      f(j, s);
      if (++rr == m.b) {
        rr = 0;
        if (++s == m.R) s = 0;
      }
    }
  } else if (kind == step_kind::column) {
    const index_t L = i * m.C + j0;
    index_t jj = L / m.R, ii = L - jj * m.R, kq = jj / m.b, kr = jj - kq * m.b;
    for (index_t j = j0; j < j0 + n; ++j) {
      const index_t r = ii - kq;
      f(j, r < 0 ? r + m.R : r);
      if (++ii == m.R) {
        ii = 0;
        if (++kr == m.b) {
          kr = 0;
          ++kq;
        }
      }
    }
  } else {
    // v = (j - ii) mod C moves by multiples of c: +c when k wraps (t += a^-1), +R
    // when ii wraps past R (t += a * a^-1 = 1), c - R when both (mod b throughout).
    index_t k = (j0 - i) % m.c;
    if (k < 0) k += m.c;
    index_t ii = i + k;
    if (ii >= m.R) ii -= m.R;
    index_t v = (j0 - ii) % m.C;
    if (v < 0) v += m.C;
    index_t t = mulmod(v / m.c, m.ainv, m.b);
    for (index_t j = j0; j < j0 + n; ++j) {
      f(j, k * m.b + t);
      if (++k == m.c) {
        k = 0;
        ii -= m.c - 1;
        t += m.ainv;
        if (ii < 0) {
          ii += m.R;
          t -= 1;
        }
      } else if (++ii == m.R) {
        ii = 0;
        t += 1;
      }
      if (t >= m.b) t -= m.b;
      if (t < 0) t += m.b;
    }
  }
}

/// Calls f(i, step_src(m, kind, i, j)) for i = i0 .. i0+n-1 down column j, for the
/// column kinds (rotate, column): L = i*C + j grows by C per step, so L mod R grows
/// by C mod R and L div R by C div R (plus one on a wrap).
template <class F>
XPOSE_HD void for_column(const c2r_map& m, step_kind kind, index_t j, index_t i0, index_t n, F&& f) {
  if (n <= 0) return;
  if (kind == step_kind::rotate) {
    index_t s = m.rotate_src(i0, j);
    for (index_t i = i0; i < i0 + n; ++i) {
      f(i, s);
      if (++s == m.R) s = 0;
    }
    return;
  }
  const index_t dq = m.C / m.R, dr = m.C - dq * m.R;
  const index_t L = i0 * m.C + j;
  index_t jj = L / m.R, ii = L - jj * m.R, kq = jj / m.b, kr = jj - kq * m.b;
  for (index_t i = i0; i < i0 + n; ++i) {
    const index_t r = ii - kq;
    f(i, r < 0 ? r + m.R : r);
    index_t step = dq;
    ii += dr;
    if (ii >= m.R) {
      ii -= m.R;
      ++step;
    }
    kr += step;
    while (kr >= m.b) {
      kr -= m.b;
      ++kq;
    }
  }
}

/// Square tile pairs: pair p -> (ti, tj), ti <= tj, p = tj*(tj+1)/2 + ti.
XPOSE_HD inline void tile_pair(index_t p, index_t* ti, index_t* tj) {
  // Start from a floating-point root and correct it: exact for any 64-bit p. The
  // device takes the single-precision root (a double sqrt's slow path is a call
  // that made ptxas spill around it).
#if defined(__CUDA_ARCH__)
  index_t t = static_cast<index_t>((sqrtf(8.0f * static_cast<float>(p) + 1.0f) - 1.0f) * 0.5f);
#else
  index_t t = static_cast<index_t>((std::sqrt(8.0 * static_cast<double>(p) + 1.0) - 1.0) / 2.0);
#endif
  while (t > 0 && t * (t + 1) / 2 > p) --t;
  while ((t + 1) * (t + 2) / 2 <= p) ++t;
  *tj = t;
  *ti = p - t * (t + 1) / 2;
}

/// __byte_perm on both sides: byte k of the result is byte (s >> 4k) & 7 of the
/// 8-byte value (b:a), a in the low half.
XPOSE_HD inline std::uint32_t byte_perm(std::uint32_t a, std::uint32_t b, std::uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, s);
#else
  const std::uint64_t v = (static_cast<std::uint64_t>(b) << 32) | a;
  std::uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= static_cast<std::uint32_t>((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
#endif
}

/// Register transpose of the swizzled square tiles (E = 1, 2 or 4-byte elements,
/// P = 4/E per word, V = 16/E): in[q] is a word of row q of a V x P block, element
/// p at byte p*E; out[p] is the 16-byte chunk of the block's column p (4 words,
/// rows 0..V-1 in order): one __byte_perm per output word.
template <int E>
XPOSE_HD inline void words_to_chunks(const std::uint32_t (&in)[16 / E], std::uint32_t (&out)[4 / E][4]) {
  if constexpr (E == 4) {
    for (int j = 0; j < 4; ++j) out[0][j] = in[j];
  } else if constexpr (E == 2) {
    for (int j = 0; j < 4; ++j) {
      out[0][j] = byte_perm(in[2 * j], in[2 * j + 1], 0x5410);
      out[1][j] = byte_perm(in[2 * j], in[2 * j + 1], 0x7632);
    }
  } else {
    static_assert(E == 1, "1, 2 or 4-byte elements");
    for (int j = 0; j < 4; ++j) {  // a 4 x 4 byte transpose of in[4j .. 4j+3]
      const std::uint32_t t0 = byte_perm(in[4 * j], in[4 * j + 1], 0x5140);
      const std::uint32_t t1 = byte_perm(in[4 * j], in[4 * j + 1], 0x7362);
      const std::uint32_t t2 = byte_perm(in[4 * j + 2], in[4 * j + 3], 0x5140);
      const std::uint32_t t3 = byte_perm(in[4 * j + 2], in[4 * j + 3], 0x7362);
      out[0][j] = byte_perm(t0, t2, 0x5410);
      out[1][j] = byte_perm(t0, t2, 0x7632);
      out[2][j] = byte_perm(t1, t3, 0x5410);
      out[3][j] = byte_perm(t1, t3, 0x7632);
    }
  }
}

/// Swizzled square tiles: rows of 128 bytes (8 chunks of 16 bytes, 32 words),
/// chunk c of tile row r stored at c ^ ((r / V) mod 8). The V rows of an aligned
/// group share the key, so a thread's word column over them is one slot, and 8
/// threads reading groups 0..7 at the same word hit 8 different chunks.
XPOSE_HD inline int square_chunk_slot(int r, int c, int V) { return c ^ ((r / V) & 7); }
XPOSE_HD inline int square_word_slot(int r, int w, int V) { return w ^ (((r / V) & 7) << 2); }

/// Lines of max(rows, cols) elements the workspace holds (0: none needed):
/// L = min(ceil(lo / 4), cap), lo = min(rows, cols), so at most ceil(lo / 4) / lo of
/// one matrix (a half for lo = 2, a third for 3, a quarter for multiples of 4, below
/// 1/4 + 1/lo in general) and never a whole one. Enough for the host's passes: a row
/// pass needs one line, a column pass with R = lo <= 64 one line, one with R > 64 a
/// band and a line per thread, which L >= 17 lines of C >= R elements hold.
inline index_t workspace_lines(index_t rows, index_t cols, bool device) {
  const index_t lo = rows < cols ? rows : cols;
  if (rows == cols || lo <= 1) return 0;
  const index_t want = (lo + 3) / 4, cap = device ? 1024 : 64;
  return want < cap ? want : cap;
}

}  // namespace xpose::detail::inplace

// xpose-dist-bench: the distributed transpose (xpose::dist over NCCL) against NCCL's
// all-to-all alone on the same bytes, same run, on P GPUs of one host. By default one
// process, one thread per GPU (ncclCommInitAll): no launcher needed. Built with MPI and
// started by mpirun (`mpirun -np 2 xpose-dist-bench ...`): one process per GPU, the NCCL
// id broadcast with MPI_Bcast (--gpus is then ignored). Every timed configuration is
// first checked exactly on the GPU (each output element against the generator).
//
//   xpose-dist-bench [--gpus 2] [--sizes 8192,16384,32768,65536] [--types f32,bf16,u8]
//                    [--batch 1] [--chunks 0] [--reps 7] [--iters 5] [--json FILE]
//
// Ratio = t(all-to-all alone) / t(whole transpose): the whole transpose's bandwidth as a
// fraction of NCCL's on the same exchanged bytes (the off-diagonal blocks, (P-1)/P of the
// matrix). GB/s are 1e9 bytes per second per rank: "xchg" counts the exchanged bytes,
// "matrix" the rank's whole block.
// Diagnostics at the end of each line: "unpack2d", the unpack's pitched copies alone;
// "a2a||local", the all-to-all next in line and the local work released beside it, and
// "local||a2a", the reverse (overlap without the pipeline's dependencies: near
// max(a2a, local) when they share the GPU well, near the sum when not).
#include <cuda_runtime.h>
#include <nccl.h>
#include <xpose/dist.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using xpose::index_t;
namespace xd = xpose::dist;

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "xpose-dist-bench: %s (see the header of tools/xpose-dist-bench/main.cu)\n", msg.c_str());
  std::exit(2);
}

std::vector<long long> parse_list(const char* flag, const char* s, long long lo, long long hi) {
  std::vector<long long> v;
  std::string str(s);
  std::size_t pos = 0;
  while (pos <= str.size()) {
    const std::size_t comma = std::min(str.find(',', pos), str.size());
    const std::string item = str.substr(pos, comma - pos);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
      usage_error(std::string(flag) + ": '" + item + "' is not an integer in [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
    v.push_back(x);
    pos = comma + 1;
  }
  return v;
}

struct type_info {
  const char* name;
  int es;
};
constexpr type_info types_known[] = {{"u8", 1}, {"i8", 1}, {"bf16", 2}, {"f16", 2}, {"f32", 4},
                                     {"f64", 8}, {"c64", 8}, {"c128", 16}};

struct config {
  int gpus = 2, reps = 7, iters = 5;
  std::vector<long long> sizes{8192, 16384, 32768, 65536}, batches{1}, chunks{0};
  std::vector<type_info> types{{"f32", 4}, {"bf16", 2}, {"u8", 1}};
  std::string json;
};

config parse(int argc, char** argv) {
  config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: xpose-dist-bench [--gpus P] [--sizes N,..] [--types f32,bf16,u8,..] [--batch B,..] "
                  "[--chunks K,..] [--reps R] [--iters I] [--json FILE]\n");
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error(a + " needs a value");
    const char* v = argv[++i];
    if (a == "--gpus") c.gpus = static_cast<int>(parse_list("--gpus", v, 1, 64).at(0));
    else if (a == "--sizes") c.sizes = parse_list("--sizes", v, 1, 1 << 22);
    else if (a == "--batch") c.batches = parse_list("--batch", v, 1, 4096);
    else if (a == "--chunks") c.chunks = parse_list("--chunks", v, 0, 64);
    else if (a == "--reps") c.reps = static_cast<int>(parse_list("--reps", v, 1, 1000).at(0));
    else if (a == "--iters") c.iters = static_cast<int>(parse_list("--iters", v, 1, 1000).at(0));
    else if (a == "--json") c.json = v;
    else if (a == "--types") {
      c.types.clear();
      std::string s(v);
      for (std::size_t pos = 0; pos <= s.size();) {
        const std::size_t comma = std::min(s.find(',', pos), s.size());
        const std::string t = s.substr(pos, comma - pos);
        const auto it = std::find_if(std::begin(types_known), std::end(types_known),
                                     [&](const type_info& k) { return t == k.name; });
        if (it == std::end(types_known)) usage_error("--types: unknown type '" + t + "'");
        c.types.push_back(*it);
        pos = comma + 1;
      }
    } else usage_error("unknown option " + a);
  }
  return c;
}

// Byte k of global element (b, r, c): what the input holds and the output must hold.
__host__ __device__ inline unsigned char pattern(index_t b, index_t r, index_t c, int k) {
  std::uint64_t x = static_cast<std::uint64_t>(r) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(c) * 0xC2B2AE3D27D4EB4Full ^
                    static_cast<std::uint64_t>(b) * 0x165667B19E3779F9ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<unsigned char>((x >> (8 * (k & 7))) ^ (k >> 3) * 0x5A);
}

// Input block: rows [row0, row0 + rows) of a batch x R x C matrix, packed.
__global__ void fill(unsigned char* in, index_t rows, index_t cols, index_t batch, index_t row0, int es) {
  const index_t n = rows * cols * batch;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t b = i / (rows * cols), r = i / cols % rows, c = i % cols;
    for (int k = 0; k < es; ++k) in[i * es + k] = pattern(b, row0 + r, c, k);
  }
}

// Output block: rows [col0, col0 + out_rows) of the batch x C x R result, packed.
__global__ void check(const unsigned char* out, index_t out_rows, index_t R, index_t batch, index_t col0, int es,
                      unsigned long long* bad) {
  const index_t n = out_rows * R * batch;
  unsigned long long mine = 0;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t b = i / (out_rows * R), c = i / R % out_rows, r = i % R;
    for (int k = 0; k < es; ++k) mine += out[i * es + k] != pattern(b, r, col0 + c, k);
  }
  if (mine) atomicAdd(bad, mine);
}

class barrier {
 public:
  explicit barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lk(m_);
    const long gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lk, [&] { return gen != gen_; });
    }
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, count_ = 0;
  long gen_ = 0;
};

// The ranks of one run: threads of this process (default) or MPI processes (mpirun).
struct team {
  int P = 1;
  virtual ~team() = default;
  virtual void sync(int me) = 0;
  virtual double max(int me, double x) = 0;  // over ranks; every rank gets it
};

struct thread_team final : team {
  explicit thread_team(int n) : bar(n), slot(n, 0.0) { P = n; }
  void sync(int) override { bar.wait(); }
  double max(int me, double x) override {
    slot[me] = x;
    bar.wait();
    const double m = *std::max_element(slot.begin(), slot.end());
    bar.wait();
    return m;
  }
  barrier bar;
  std::vector<double> slot;
};

#if defined(XPOSE_DIST_MPI)
struct mpi_team final : team {
  explicit mpi_team(int n) { P = n; }
  void sync(int) override { MPI_Barrier(MPI_COMM_WORLD); }
  double max(int, double x) override {
    double m = x;
    MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
  }
};
#endif

struct shared_state {
  team* ranks = nullptr;
  std::vector<std::string> rows_out;  // JSON rows, written by rank 0
  std::mutex out_mutex;
};

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "xpose-dist-bench: %s: %s\n", #x, cudaGetErrorString(e_));          \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void rank_main(int me, int device, ncclComm_t comm, const config& cfg, shared_state& sh) {
  CK(cudaSetDevice(device));
  const int P = sh.ranks->P;
  xd::nccl_context* ctx = nullptr;
  if (xpose::status s = xd::create_nccl_context(comm, &ctx, 64); !s.ok()) {
    std::fprintf(stderr, "xpose-dist-bench: create_nccl_context: %s\n", s.message());
    std::exit(1);
  }
  cudaStream_t stream, side, side_hi;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int least = 0, greatest = 0;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CK(cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, least));
  CK(cudaStreamCreateWithPriority(&side_hi, cudaStreamNonBlocking, greatest));
  cudaEvent_t t0, t1, fork, join;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  unsigned long long* bad = nullptr;
  CK(cudaMalloc(&bad, sizeof *bad));

  for (const type_info& ty : cfg.types)
    for (long long N : cfg.sizes)
      for (long long batch : cfg.batches) {
        const int es = ty.es;
        xd::desc d;
        d.global_rows = d.cols = N;
        d.rows = xd::even_split(N, P, me);
        d.out_rows = xd::even_split(N, P, me);
        d.batch = batch;
        d.elem_size = es;
        d.nranks = P;
        index_t row0 = 0;
        for (int r = 0; r < me; ++r) row0 += xd::even_split(N, P, r);
        const index_t col0 = row0;
        std::size_t ws_bytes = 0;
        if (!xd::workspace_size(d, P, me, &ws_bytes).ok()) std::exit(1);
        const std::size_t block = static_cast<std::size_t>(d.rows) * N * batch * es;
        const std::size_t out_block = static_cast<std::size_t>(d.out_rows) * N * batch * es;
        unsigned char *in = nullptr, *out = nullptr, *ws = nullptr;
        const bool fits = cudaMalloc(&in, block) == cudaSuccess && cudaMalloc(&out, out_block) == cudaSuccess &&
                          cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)) == cudaSuccess;
        cudaGetLastError();
        const double fits_all = sh.ranks->max(me, fits ? 0.0 : 1.0);
        if (fits_all != 0.0) {
          if (me == 0) std::printf("%-5s N=%-6lld batch=%-3lld: does not fit in GPU memory, skipped\n", ty.name, N, batch);
          cudaFree(in), cudaFree(out), cudaFree(ws);
          continue;
        }
        fill<<<1024, 256, 0, stream>>>(in, d.rows, N, batch, row0, es);
        // The same exchanged bytes as the transpose: every off-diagonal block, one group.
        const auto a2a_on = [&](cudaStream_t s) {
          ncclGroupStart();
          std::size_t soff = 0, roff = 0;
          for (int q = 0; q < P; ++q) {
            if (q == me) continue;
            const std::size_t sb = static_cast<std::size_t>(d.rows) * xd::even_split(N, P, q) * batch * es;
            const std::size_t rb = static_cast<std::size_t>(d.out_rows) * xd::even_split(N, P, q) * batch * es;
            ncclSend(ws + soff, sb, ncclInt8, q, comm, s);
            ncclRecv(ws + ws_bytes - rb - roff, rb, ncclInt8, q, comm, s);
            soff += sb;
            roff += rb;
          }
          ncclGroupEnd();
        };
        const auto a2a = [&] { a2a_on(stream); };
        // PyTorch's all_to_all_single on the whole block (self block included, as PyTorch's
        // layout has it): in -> out.
        const auto a2a_full = [&] {
          ncclGroupStart();
          std::size_t soff = 0, roff = 0;
          for (int q = 0; q < P; ++q) {
            const std::size_t part = static_cast<std::size_t>(xd::even_split(N, P, q)) * batch * es;
            ncclSend(in + soff, d.rows * part, ncclInt8, q, comm, stream);
            ncclRecv(out + roff, d.out_rows * part, ncclInt8, q, comm, stream);
            soff += d.rows * part;
            roff += d.out_rows * part;
          }
          ncclGroupEnd();
        };
        for (long long K : cfg.chunks) {
          xd::options opt;
          opt.chunks = static_cast<int>(K);
          CK(cudaMemsetAsync(out, 0xFF, out_block, stream));
          xpose::status s = xd::transpose_nccl(in, out, d, ws, ws_bytes, ctx, stream, opt);
          CK(cudaMemsetAsync(bad, 0, sizeof *bad, stream));
          check<<<1024, 256, 0, stream>>>(out, d.out_rows, N, batch, col0, es, bad);
          unsigned long long nbad = 0;
          CK(cudaMemcpyAsync(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost, stream));
          CK(cudaStreamSynchronize(stream));
          const double any_bad = sh.ranks->max(me, !s.ok() ? 2.0 : nbad ? 1.0 : 0.0);
          if (any_bad != 0.0) {
            if (me == 0 || !s.ok() || nbad)
              std::printf("%-5s N=%-6lld batch=%-3lld chunks=%-2lld rank %d: WRONG (%s, %llu bad bytes): not timed\n",
                          ty.name, N, batch, K, me, s.ok() ? "ok" : s.message(), nbad);
            continue;
          }
          std::vector<double> tw, ta;
          const auto timed = [&](auto&& body) {
            sh.ranks->sync(me);
            CK(cudaEventRecord(t0, stream));
            for (int i = 0; i < cfg.iters; ++i) body();
            CK(cudaEventRecord(t1, stream));
            CK(cudaEventSynchronize(t1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, t0, t1));
            return sh.ranks->max(me, ms / cfg.iters);
          };
          const auto whole = [&] {
            if (!xd::transpose_nccl(in, out, d, ws, ws_bytes, ctx, stream, opt, false).ok()) std::exit(1);
          };
          // The local work alone, for the P = 4/8 model (docs/RESULTS.md "Distributed: a
          // model for P = 4 and 8"): one transpose of the whole block (pack + self) and one
          // copy of the exchanged bytes (unpack).
          const std::size_t xchg_bytes = block - static_cast<std::size_t>(d.rows) * d.out_rows * batch * es;
          const auto local_on = [&](cudaStream_t s) {
            if (!xpose::transpose(in, out, xpose::matrix_desc::packed(d.rows, N, es, batch), s).ok()) std::exit(1);
            if (xchg_bytes) CK(cudaMemcpyAsync(ws + ws_bytes - xchg_bytes, ws, xchg_bytes, cudaMemcpyDeviceToDevice, s));
          };
          const auto local = [&] { local_on(stream); };
          // Diagnostics of the overlap (docs/RESULTS.md "Distributed: the pipeline, and why
          // the local work is not hidden"): the unpack's pitched copies alone (out_rows x r_q
          // per peer, pitch N); the all-to-all with the local work beside it, released when
          // the all-to-all is next in line (as the pipeline does); and the reverse, the local
          // work next in line and the all-to-all (highest priority) released beside it.
          // Near max(a2a, local) when they share the GPU well, near the sum when not.
          // Timing only: both write the receive area and `out` (checked before, not after).
          const auto unpack2d = [&] {
            std::size_t roff = 0;
            for (int q = 0; q < P; ++q) {
              if (q == me) continue;
              const index_t r_q = xd::even_split(N, P, q);
              index_t row_q = 0;
              for (int r = 0; r < q; ++r) row_q += xd::even_split(N, P, r);
              const std::size_t rb = static_cast<std::size_t>(d.out_rows) * r_q * batch * es;
              CK(cudaMemcpy2DAsync(out + row_q * es, N * es, ws + ws_bytes - rb - roff, r_q * es, r_q * es,
                                   d.out_rows * batch, cudaMemcpyDeviceToDevice, stream));
              roff += rb;
            }
          };
          const auto a2a_beside_local = [&] {
            CK(cudaEventRecord(fork, stream));
            a2a();
            CK(cudaStreamWaitEvent(side, fork, 0));
            local_on(side);
            CK(cudaEventRecord(join, side));
            CK(cudaStreamWaitEvent(stream, join, 0));
          };
          const auto local_beside_a2a = [&] {
            CK(cudaEventRecord(fork, stream));
            CK(cudaStreamWaitEvent(side_hi, fork, 0));
            local_on(stream);
            a2a_on(side_hi);
            CK(cudaEventRecord(join, side_hi));
            CK(cudaStreamWaitEvent(stream, join, 0));
          };
          std::vector<double> tl, tf, tu, to, tr;
          timed(whole);  // warm-ups
          timed(a2a);
          for (int r = 0; r < cfg.reps; ++r) {  // interleaved: all see the same machine state
            tw.push_back(timed(whole));
            ta.push_back(timed(a2a));
            tf.push_back(timed(a2a_full));
            tl.push_back(timed(local));  // rows == out_rows: both are even_split(N, P, me)
            tu.push_back(timed(unpack2d));
            to.push_back(timed(a2a_beside_local));
            tr.push_back(timed(local_beside_a2a));
          }
          if (me == 0) {
            const double w = median(tw), a = median(ta), l = median(tl), f = median(tf), u = median(tu), o = median(to),
                         lr = median(tr);
            const double xchg = static_cast<double>(xchg_bytes);
            char line[768];
            std::snprintf(line, sizeof line,
                          "%-5s N=%-6lld batch=%-3lld P=%d chunks=%-2lld whole %9.3f ms  a2a %9.3f ms  ratio %.3f  "
                          "a2a %7.1f GB/s xchg  whole %7.1f GB/s xchg %7.1f GB/s matrix  local %.3f ms  a2a_full %.3f ms (ratio %.3f) "
                          "[min/max whole %.3f/%.3f]  unpack2d %.3f ms  a2a||local %.3f ms  local||a2a %.3f ms",
                          ty.name, N, batch, P, K, w, a, a / w, xchg / a / 1e6, xchg / w / 1e6, static_cast<double>(block) / w / 1e6, l,
                          f, f / w,
                          *std::min_element(tw.begin(), tw.end()), *std::max_element(tw.begin(), tw.end()), u, o, lr);
            std::printf("%s\n", line);
            std::fflush(stdout);
            char js[768];
            std::snprintf(js, sizeof js,
                          "{\"type\":\"%s\",\"N\":%lld,\"batch\":%lld,\"P\":%d,\"chunks\":%lld,\"whole_ms\":%.5f,"
                          "\"a2a_ms\":%.5f,\"local_ms\":%.5f,\"a2a_full_ms\":%.5f,\"ratio\":%.4f,\"xchg_bytes_per_rank\":%.0f,\"block_bytes_per_rank\":%zu,"
                          "\"whole_ms_min\":%.5f,\"whole_ms_max\":%.5f,\"a2a_ms_min\":%.5f,\"a2a_ms_max\":%.5f,"
                          "\"unpack2d_ms\":%.5f,\"a2a_beside_local_ms\":%.5f,\"local_beside_a2a_ms\":%.5f}",
                          ty.name, N, batch, P, K, w, a, l, f, a / w, xchg, block, *std::min_element(tw.begin(), tw.end()),
                          *std::max_element(tw.begin(), tw.end()), *std::min_element(ta.begin(), ta.end()),
                          *std::max_element(ta.begin(), ta.end()), u, o, lr);
            std::lock_guard<std::mutex> lk(sh.out_mutex);
            sh.rows_out.push_back(js);
          }
        }
        CK(cudaStreamSynchronize(stream));
        cudaFree(in), cudaFree(out), cudaFree(ws);
      }
  cudaFree(bad);
  xd::destroy_nccl_context(ctx);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink SHARP off unless the caller says otherwise
  const config cfg = parse(argc, argv);
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  shared_state sh;
  std::vector<ncclComm_t> comms;
#if defined(XPOSE_DIST_MPI)
  // Under mpirun: one process per GPU, the NCCL id broadcast with MPI.
  const bool under_mpi = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE");
#else
  const bool under_mpi = false;
#endif
  int me = 0, P = cfg.gpus;
#if defined(XPOSE_DIST_MPI)
  std::unique_ptr<mpi_team> mpi_ranks;
  if (under_mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (n == 0) {
      std::fprintf(stderr, "xpose-dist-bench: rank %d sees no GPU\n", me);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ncclUniqueId id;
    if (me == 0) ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    CK(cudaSetDevice(me % n));
    comms.resize(1);
    if (ncclResult_t r = ncclCommInitRank(&comms[0], P, id, me); r != ncclSuccess) {
      std::fprintf(stderr, "xpose-dist-bench: ncclCommInitRank: %s\n", ncclGetErrorString(r));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mpi_ranks = std::make_unique<mpi_team>(P);
    sh.ranks = mpi_ranks.get();
  }
#endif
  std::unique_ptr<thread_team> thread_ranks;
  if (!under_mpi) {
    if (n < cfg.gpus) {
      std::fprintf(stderr, "xpose-dist-bench: needs %d GPUs, found %d\n", cfg.gpus, n);
      return 1;
    }
    comms.resize(cfg.gpus);
    std::vector<int> devs(cfg.gpus);
    for (int i = 0; i < cfg.gpus; ++i) devs[i] = i;
    if (ncclResult_t r = ncclCommInitAll(comms.data(), cfg.gpus, devs.data()); r != ncclSuccess) {
      std::fprintf(stderr, "xpose-dist-bench: ncclCommInitAll: %s\n", ncclGetErrorString(r));
      return 1;
    }
    thread_ranks = std::make_unique<thread_team>(cfg.gpus);
    sh.ranks = thread_ranks.get();
  }
  if (me == 0) {
    int nccl_version = 0, driver = 0;
    ncclGetVersion(&nccl_version);
    cudaDriverGetVersion(&driver);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    std::printf("xpose-dist-bench: %d x %s (%s), NCCL %d, CUDA driver %d, NCCL_NVLS_ENABLE=%s; %d reps x %d iters, "
                "median of per-rank max\n",
                P, prop.name, under_mpi ? "mpirun, one process per GPU" : "one process, one thread per GPU",
                nccl_version, driver, std::getenv("NCCL_NVLS_ENABLE"), cfg.reps, cfg.iters);
  }
  if (under_mpi) {
    rank_main(me, me % std::max(n, 1), comms[0], cfg, sh);
  } else {
    std::vector<std::thread> threads;
    for (int r = 0; r < cfg.gpus; ++r) threads.emplace_back(rank_main, r, r, comms[r], std::cref(cfg), std::ref(sh));
    for (std::thread& t : threads) t.join();
  }
  for (ncclComm_t c : comms) ncclCommDestroy(c);
  int rc = 0;
  if (me == 0 && !cfg.json.empty()) {
    FILE* f = std::fopen(cfg.json.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "xpose-dist-bench: cannot write %s\n", cfg.json.c_str());
      rc = 1;
    } else {
      std::fprintf(f, "[\n");
      for (std::size_t i = 0; i < sh.rows_out.size(); ++i)
        std::fprintf(f, "  %s%s\n", sh.rows_out[i].c_str(), i + 1 < sh.rows_out.size() ? "," : "");
      std::fprintf(f, "]\n");
      std::fclose(f);
    }
  }
#if defined(XPOSE_DIST_MPI)
  if (under_mpi) MPI_Finalize();
#endif
  return rc;
}

//===- tests/oracle/CutlassGemmOracle.cu - A CUTLASS GEMM run in the simulator
////
//
// Issue 31's oracle: a GEMM kernel tilec did not write, NVIDIA's CUTLASS,
// run in tilec's PTX simulator and checked against a CPU reference. The
// kernel type comes from a header under kernels/ (nvcc -include, which
// defines oracle_kernel::GemmKernel from CUTLASS's collective builders);
// everything on the host is CUTLASS's own code: GemmUniversalAdapter's
// can_implement, workspace, initialize (Params, TMA descriptors through
// cuTensorMapEncodeTiled, which SimBackend.cpp defines) and run, whose
// launch goes through a cutlass::CudaHostAdapter (CUTLASS's hook for
// launching by other means than the runtime API) into the simulator, with
// the grid, cluster, block and shared memory CUTLASS computed. The device
// code is the PTX nvcc wrote for this same translation unit (--ptx).
//
// Inputs are random multiples of 1/8 (1/4 for 8-bit types), exact in every
// input type; every product and partial sum is then exact in f32, so the
// kernel's D must equal the f64 reference rounded to D's type bit for bit,
// whatever the order of accumulation. D is poisoned (all bits set: NaN in
// every float type) first. The check is shown able to fail on every run:
// the same D is compared against three wrong references (alpha off by
// 1/16, the last k dropped, A's rows shifted), each of which must disagree.
//
// Built with -DORACLE_GPU (scripts/gpu-oracle.sh), --gpu also runs the same
// kernel on the GPU, same inputs, and requires the GPU's D to equal the
// simulator's bit for bit.
//
//   cutlass-gemm-oracle --ptx FILE.ptx [--m M --n N --k K] [--seed S]
//       [--alpha A --beta B] [--sms N] [--sim-seed S] [--threads T] [--gpu]
//
//===----------------------------------------------------------------------===//
#include "cutlass/cuda_host_adapter.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/util/packed_stride.hpp"

#include "tests/oracle/SimBackend.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using GemmKernel = oracle_kernel::GemmKernel;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
using ElementA = typename Gemm::ElementA;
using ElementB = typename Gemm::ElementB;
using ElementC = typename Gemm::ElementC;
using ElementD = typename GemmKernel::CollectiveEpilogue::ElementD;
using StrideA = typename GemmKernel::StrideA;
using StrideB = typename GemmKernel::StrideB;
using StrideC = typename GemmKernel::StrideC;
using StrideD = typename GemmKernel::StrideD;

/// The kernel's entry: naming it makes nvcc emit its PTX (the adapter's
/// own launch path, compiled out with a host adapter, is what would).
[[maybe_unused]] const void *const KernelEntry =
    reinterpret_cast<const void *>(cutlass::device_kernel<GemmKernel>);

struct Options {
  std::string ptx;
  int m = 136, n = 264, k = 200;
  unsigned seed = 1;
  float alpha = 1.5f, beta = 0.5f;
  int sms = 4;
  unsigned simSeed = 0, threads = 0;
  bool gpu = false;
};

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "cutlass-gemm-oracle: %s\nusage: cutlass-gemm-oracle --ptx "
               "FILE.ptx [--m M --n N --k K] [--seed S] [--alpha A --beta "
               "B] [--sms N] [--sim-seed S] [--threads T] [--gpu]\n",
               why);
  std::exit(2);
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--gpu") {
      o.gpu = true;
      continue;
    }
    if (i + 1 >= argc)
      usage(("no value after " + flag).c_str());
    const char *value = argv[++i];
    if (flag == "--ptx")
      o.ptx = value;
    else if (flag == "--m")
      o.m = std::atoi(value);
    else if (flag == "--n")
      o.n = std::atoi(value);
    else if (flag == "--k")
      o.k = std::atoi(value);
    else if (flag == "--seed")
      o.seed = unsigned(std::strtoul(value, nullptr, 10));
    else if (flag == "--alpha")
      o.alpha = float(std::atof(value));
    else if (flag == "--beta")
      o.beta = float(std::atof(value));
    else if (flag == "--sms")
      o.sms = std::atoi(value);
    else if (flag == "--sim-seed")
      o.simSeed = unsigned(std::strtoul(value, nullptr, 10));
    else if (flag == "--threads")
      o.threads = unsigned(std::strtoul(value, nullptr, 10));
    else
      usage(("unknown option " + flag).c_str());
  }
  if (o.ptx.empty())
    usage("--ptx is required");
  if (o.m <= 0 || o.n <= 0 || o.k <= 0 || o.sms <= 0)
    usage("M, N, K and --sms must be positive");
  return o;
}

/// Random multiples of 1/8 in [-2, 2] (1/4 in [-2, 2] for types of 8 bits
/// or fewer): exact in bf16, f16, e4m3 and e5m2.
template <class T>
std::vector<T> randomValues(std::size_t count, std::mt19937 &rng) {
  bool narrow = cutlass::sizeof_bits<T>::value <= 8;
  int steps = narrow ? 8 : 16;
  float unit = narrow ? 0.25f : 0.125f;
  std::uniform_int_distribution<int> pick(-steps, steps);
  std::vector<T> out(count);
  for (T &x : out)
    x = T(float(pick(rng)) * unit);
  return out;
}

/// The operands on the host, CUTLASS's packed strides, and D's reference.
struct Problem {
  int m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  StrideA strideA;
  StrideB strideB;
  StrideC strideC;
  StrideD strideD;
  std::vector<ElementA> a;
  std::vector<ElementB> b;
  std::vector<ElementC> c;
};

Problem makeProblem(const Options &o) {
  Problem p;
  p.m = o.m;
  p.n = o.n;
  p.k = o.k;
  p.alpha = o.alpha;
  p.beta = o.beta;
  p.strideA = cutlass::make_cute_packed_stride(StrideA{}, {o.m, o.k, 1});
  p.strideB = cutlass::make_cute_packed_stride(StrideB{}, {o.n, o.k, 1});
  p.strideC = cutlass::make_cute_packed_stride(StrideC{}, {o.m, o.n, 1});
  p.strideD = cutlass::make_cute_packed_stride(StrideD{}, {o.m, o.n, 1});
  std::mt19937 rng(o.seed);
  p.a = randomValues<ElementA>(std::size_t(o.m) * o.k, rng);
  p.b = randomValues<ElementB>(std::size_t(o.n) * o.k, rng);
  p.c = randomValues<ElementC>(std::size_t(o.m) * o.n, rng);
  return p;
}

/// A deliberately wrong reference, to show the comparison can fail.
enum class WrongKind { None, Alpha, LastKDropped, ARowsShifted };

/// D = alpha * A B^T + beta * C in f64, rounded to D's type, indexed by
/// CUTLASS's D stride.
std::vector<ElementD> reference(const Problem &p, WrongKind wrong) {
  std::vector<ElementD> d(std::size_t(p.m) * p.n);
  double alpha =
      wrong == WrongKind::Alpha ? p.alpha * (1.0 + 1.0 / 16) : p.alpha;
  int kEnd = wrong == WrongKind::LastKDropped ? p.k - 1 : p.k;
  for (int i = 0; i < p.m; ++i) {
    int row = wrong == WrongKind::ARowsShifted ? (i + 1) % p.m : i;
    for (int j = 0; j < p.n; ++j) {
      double sum = 0;
      for (int l = 0; l < kEnd; ++l)
        sum += double(float(p.a[cute::get<0>(p.strideA) * row +
                                cute::get<1>(p.strideA) * l])) *
               double(float(p.b[cute::get<0>(p.strideB) * j +
                                cute::get<1>(p.strideB) * l]));
      double c = double(float(
          p.c[cute::get<0>(p.strideC) * i + cute::get<1>(p.strideC) * j]));
      d[cute::get<0>(p.strideD) * i + cute::get<1>(p.strideD) * j] =
          ElementD(float(alpha * sum + p.beta * c));
    }
  }
  return d;
}

/// Elements of \p got that differ from \p want (bit for bit, as floats: a
/// NaN never matches). Prints the first few when \p report.
std::size_t countWrong(const Problem &p, const std::vector<ElementD> &got,
                       const std::vector<ElementD> &want, bool report) {
  std::size_t wrong = 0;
  // ORACLE_SHOW_WRONG=N prints the first N wrong elements (default 8).
  const char *show = std::getenv("ORACLE_SHOW_WRONG");
  std::size_t shown = show ? std::strtoul(show, nullptr, 10) : 8;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      auto at = cute::get<0>(p.strideD) * i + cute::get<1>(p.strideD) * j;
      float g = float(got[at]), w = float(want[at]);
      if (g == w)
        continue;
      if (report && wrong < shown)
        std::printf("  D(%d, %d) = %g, expected %g\n", i, j, g, w);
      ++wrong;
    }
  return wrong;
}

// --- the simulator as CUTLASS's launcher
// ---------------------------------------

/// Where the buffers of one run live.
struct Memory {
  virtual ~Memory() = default;
  virtual void *allocate(std::size_t bytes) = 0;
  virtual void upload(void *dst, const void *src, std::size_t bytes) = 0;
  virtual void download(void *dst, const void *src, std::size_t bytes) = 0;
  virtual void fill(void *dst, unsigned char byte, std::size_t bytes) = 0;
};

struct SimMemory final : Memory {
  std::vector<void *> owned;
  ~SimMemory() override {
    for (void *p : owned)
      tilec::oracle::simFree(p);
  }
  void *allocate(std::size_t bytes) override {
    owned.push_back(tilec::oracle::simAllocate(bytes));
    return owned.back();
  }
  void upload(void *dst, const void *src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void download(void *dst, const void *src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void fill(void *dst, unsigned char byte, std::size_t bytes) override {
    std::memset(dst, byte, bytes);
  }
};

/// CUTLASS's launches, into the simulator.
struct SimHostAdapter final : cutlass::CudaHostAdapter {
  const Options &options;
  mutable tilec::oracle::SimRunResult result;
  mutable tilec::oracle::SimKernelLaunch last;
  mutable int launches = 0;

  explicit SimHostAdapter(const Options &options) : options(options) {}

  cutlass::Status query_occupancy(int32_t *sms, int32_t *occupancy, int32_t,
                                  int32_t, int32_t) const override {
    *sms = options.sms;
    *occupancy = 1;
    return cutlass::Status::kSuccess;
  }
  cutlass::Status launch(dim3 grid, dim3 block, size_t smem, cudaStream_t,
                         void **params, int32_t index) const override {
    return launch(grid, dim3(1, 1, 1), dim3(0, 0, 0), block, smem, nullptr,
                  params, index);
  }
  cutlass::Status launch(dim3 grid, dim3 cluster, dim3 block, size_t smem,
                         cudaStream_t, void **params,
                         int32_t index) const override {
    return launch(grid, cluster, dim3(0, 0, 0), block, smem, nullptr, params,
                  index);
  }
  cutlass::Status launch(dim3 grid, dim3 cluster, dim3 fallback, dim3 block,
                         size_t smem, cudaStream_t, void **params,
                         int32_t) const override {
    if (fallback.x * fallback.y * fallback.z > 1 &&
        (fallback.x != cluster.x || fallback.y != cluster.y ||
         fallback.z != cluster.z))
      std::printf("  (the fallback cluster %ux%ux%u is not simulated: the "
                  "simulator always grants the preferred one)\n",
                  fallback.x, fallback.y, fallback.z);
    static const std::size_t paramBytes[] = {sizeof(typename Gemm::Params)};
    tilec::oracle::SimKernelLaunch l;
    unsigned g[3] = {grid.x, grid.y, grid.z},
             c[3] = {cluster.x, cluster.y, cluster.z},
             b[3] = {block.x, block.y, block.z};
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = g[d];
      l.cluster[d] = c[d] ? c[d] : 1;
      l.block[d] = b[d];
    }
    l.sharedBytes = smem;
    l.kernelParams = params;
    l.paramBytes = paramBytes;
    l.paramCount = 1;
    l.seed = options.simSeed;
    l.hostThreads = options.threads;
    last = l;
    ++launches;
    result = tilec::oracle::simRunPtx(options.ptx, l);
    return result.error.empty() ? cutlass::Status::kSuccess
                                : cutlass::Status::kErrorInternal;
  }

#if defined(CUDA_HOST_ADAPTER_TENSORMAP_ENABLED)
  // CUTLASS 4.2 declares these but encodes its descriptors with the driver
  // call (cuTensorMapEncodeTiled, SimBackend.cpp); they are never called.
  CUresult tensorMapEncodeIm2col(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const int *, const int *, cuuint32_t,
                                 cuuint32_t, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill) const override {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult tensorMapEncodeTiled(
      CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank,
      void *address, const cuuint64_t *dims, const cuuint64_t *strides,
      const cuuint32_t *box, const cuuint32_t *elementStrides,
      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
      CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) const override {
    return cuTensorMapEncodeTiled(map, dtype, rank, address, dims, strides, box,
                                  elementStrides, interleave, swizzle, l2, oob);
  }
  CUresult tensorMapReplaceAddress(CUtensorMap *, void *) const override {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
#endif

protected:
  cutlass::Status memsetDeviceImpl(void *dst, const void *value,
                                   size_t valueBytes, size_t count,
                                   cudaStream_t) const override {
    auto *out = static_cast<unsigned char *>(dst);
    for (size_t i = 0; i < count; ++i)
      std::memcpy(out + i * valueBytes, value, valueBytes);
    return cutlass::Status::kSuccess;
  }
};

/// Runs the kernel through CUTLASS's adapter on \p memory; D comes back in
/// \p d. Returns an empty string or what went wrong.
std::string runGemm(const Problem &p, const Options &o, Memory &memory,
                    cutlass::CudaHostAdapter &adapter,
                    std::vector<ElementD> &d) {
  auto place = [&](const auto &host) {
    std::size_t bytes = host.size() * sizeof(host[0]);
    void *dev = memory.allocate(bytes);
    memory.upload(dev, host.data(), bytes);
    return dev;
  };
  auto *a = static_cast<ElementA *>(place(p.a));
  auto *b = static_cast<ElementB *>(place(p.b));
  auto *c = static_cast<ElementC *>(place(p.c));
  std::size_t dBytes = std::size_t(p.m) * p.n * sizeof(ElementD);
  auto *dDev = static_cast<ElementD *>(memory.allocate(dBytes));
  memory.fill(dDev, 0xff, dBytes);

  cutlass::KernelHardwareInfo hw;
  hw.device_id = 0;
  hw.sm_count = o.sms;
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {p.m, p.n, p.k, 1},
                                {a, p.strideA, b, p.strideB},
                                {{}, c, p.strideC, dDev, p.strideD},
                                hw};
  args.epilogue.thread.alpha = p.alpha;
  args.epilogue.thread.beta = p.beta;

  Gemm gemm;
  cutlass::Status status = gemm.can_implement(args);
  if (status != cutlass::Status::kSuccess)
    return std::string("CUTLASS's can_implement refuses the problem (") +
           cutlassGetStatusString(status) +
           "); rows of A, B, C and D must be 16-byte aligned";
  std::size_t workspaceBytes = Gemm::get_workspace_size(args);
  void *workspace = workspaceBytes ? memory.allocate(workspaceBytes) : nullptr;
  status = gemm.initialize(args, workspace, nullptr, &adapter);
  if (status != cutlass::Status::kSuccess)
    return std::string("CUTLASS's initialize failed: ") +
           cutlassGetStatusString(status);
  status = gemm.run(nullptr, &adapter);
  if (status != cutlass::Status::kSuccess)
    return std::string("the launch failed: ") + cutlassGetStatusString(status);
  d.resize(std::size_t(p.m) * p.n);
  memory.download(d.data(), dDev, dBytes);
  return {};
}

#ifdef ORACLE_GPU
#include "tests/oracle/GpuBackend.cuh"
#endif

} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  Problem p = makeProblem(o);
  std::printf("%s: M=%d N=%d K=%d alpha=%g beta=%g seed=%u, sm_count %d\n",
              o.ptx.c_str(), p.m, p.n, p.k, p.alpha, p.beta, o.seed, o.sms);

  SimMemory simMemory;
  SimHostAdapter sim(o);
  std::vector<ElementD> d;
  auto start = std::chrono::steady_clock::now();
  std::string error = runGemm(p, o, simMemory, sim, d);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const tilec::oracle::SimKernelLaunch &l = sim.last;
  if (sim.launches)
    std::printf("simulator: %s\n  grid %ux%ux%u cluster %ux%ux%u block "
                "%ux%ux%u, %zu bytes of shared memory, %llu "
                "warp-instructions, %.1f s\n",
                sim.result.kernelName.c_str(), l.grid[0], l.grid[1], l.grid[2],
                l.cluster[0], l.cluster[1], l.cluster[2], l.block[0],
                l.block[1], l.block[2], l.sharedBytes,
                (unsigned long long)sim.result.warpInstructions, seconds);
  if (!error.empty()) {
    std::printf("FAIL: %s\n", error.c_str());
    if (!sim.result.error.empty())
      std::printf("%s\n", sim.result.error.c_str());
    return 1;
  }

  std::vector<ElementD> want = reference(p, WrongKind::None);
  std::size_t wrong = countWrong(p, d, want, true);
  std::printf("simulator vs CPU reference: %zu of %zu elements wrong\n", wrong,
              d.size());
  int status = wrong ? 1 : 0;

  // The check must be able to fail: each wrong reference must disagree.
  const struct {
    WrongKind kind;
    const char *what;
  } wrongs[] = {{WrongKind::Alpha, "alpha off by 1/16"},
                {WrongKind::LastKDropped, "the last k dropped"},
                {WrongKind::ARowsShifted, "A's rows shifted by one"}};
  for (const auto &w : wrongs) {
    std::size_t differ = countWrong(p, d, reference(p, w.kind), false);
    std::printf("  against a wrong reference (%s): %zu differ\n", w.what,
                differ);
    if (differ == 0) {
      std::printf("FAIL: the check cannot tell D from a reference with %s\n",
                  w.what);
      status = 1;
    }
  }

#ifdef ORACLE_GPU
  if (o.gpu && runOnGpu(p, o, d, want))
    status = 1;
#else
  if (o.gpu) {
    std::printf("FAIL: --gpu needs a build with -DORACLE_GPU "
                "(scripts/gpu-oracle.sh)\n");
    status = 1;
  }
#endif
  std::printf("%s\n", status ? "FAIL" : "PASS");
  return status;
}

//===- runtime/sim/PtxProgram.h - The decoded form of a PTX kernel -*- C++
//-*-===//
//
// What the parser turns PTX text into and the interpreter executes: every
// instruction an opcode enum with its type and modifiers decoded, registers
// turned into slot indices (one 64-bit slot per register per lane), labels
// into instruction indices, symbols into addresses of their state space. No
// string is looked at while a kernel runs; the text of each instruction is
// kept only for messages.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXPROGRAM_H
#define TILEC_RUNTIME_SIM_PTXPROGRAM_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::sim {

/// PTX fundamental types (and the packed ones the tensor cores use).
enum class PtxType : std::uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  TF32,
  F32,
  F64,
  E4M3,
  E5M2,
  E4M3x2,
  E5M2x2
};

/// Width in bits (Pred: 1).
unsigned ptxTypeBits(PtxType type);
bool ptxTypeIsSigned(PtxType type);
bool ptxTypeIsFloat(PtxType type);
/// "s32", "bf16x2", ...
const char *ptxTypeName(PtxType type);
/// The type a PTX name ("s32", "bf16x2", without the dot) stands for.
std::optional<PtxType> ptxTypeFromName(std::string_view name);

/// State spaces of memory operands.
enum class SpaceKind : std::uint8_t {
  Generic,
  Global,
  Shared,
  SharedCluster,
  Param,
  Local,
  Const
};

/// Special registers.
enum class SpecialRegKind : std::uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  ClusteridX,
  ClusteridY,
  ClusteridZ,
  NclusteridX,
  NclusteridY,
  NclusteridZ,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterNctaidX,
  ClusterNctaidY,
  ClusterNctaidZ,
  ClusterCtarank,
  ClusterNctarank,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  LanemaskEq,
  LanemaskLt,
  LanemaskLe,
  LanemaskGt,
  LanemaskGe,
  Clock,
  Clock64,
  Globaltimer,
  DynamicSmemSize,
  TotalSmemSize
};

/// Instruction opcodes (one per semantic family; modifiers say the rest).
enum class OpKind : std::uint16_t {
  // Integer and float arithmetic.
  Add,
  Sub,
  Mul,
  MulHi,
  MulWide,
  Mad,
  MadHi,
  MadWide,
  Div,
  Rem,
  Min,
  Max,
  Abs,
  Neg,
  And,
  Or,
  Xor,
  Not,
  Cnot,
  Shl,
  Shr,
  Bfe,
  Bfi,
  Lop3,
  Prmt,
  Popc,
  Clz,
  Brev,
  Fma,
  Rcp,
  Sqrt,
  Rsqrt,
  Ex2,
  Lg2,
  Tanh,
  Sin,
  Cos,
  Copysign,
  Cvt,
  Setp,
  Selp,
  Mov,
  Cvta,
  CvtaTo,
  // Memory.
  Ld,
  St,
  Atom,
  Red,
  Prefetch,
  PrefetchTensormap,
  // Control.
  Bra,
  Ret,
  Exit,
  /// cp.async.mbarrier.arrive[.noinc].shared::cta.b64 [mbar]: an arrive on
  /// the mbarrier once every earlier cp.async of the thread has landed
  /// (flag: .noinc, the arrival is one of the phase's expected ones; without
  /// it the pending count is raised first, so the phase only also waits for
  /// the copies).
  CpAsyncMbarArrive,
  /// `call` of a device function (declared `.extern .func`), and the
  /// `st.param` of its arguments: parsed, so that NVIDIA-generated kernels
  /// whose failed-assert paths call `__assertfail` load; a call that runs
  /// stops the kernel with its text (the simulator runs no device
  /// functions); the argument stores do nothing.
  Call,
  CallArg,
  /// `trap` and `brkpt`: stop the kernel.
  Trap,
  /// clusterlaunchcontrol (sm_100a's dynamic persistent scheduling):
  /// try_cancel asks to cancel a cluster that has not started; in the
  /// simulator every cluster of the grid runs, so the request always fails:
  /// its 16-byte response (zero: not canceled) lands in shared memory, in
  /// every CTA of the cluster with .multicast::cluster::all, with 16 bytes
  /// of complete_tx on the mbarrier; query_cancel.is_canceled reads the
  /// response's bit 0, get_first_ctaid its words 1-3 (flag: multicast).
  ClcTryCancel,
  ClcIsCanceled,
  ClcFirstCtaid,
  // Synchronization.
  BarSync,
  BarArrive,
  /// bar.warp.sync MASK: the lanes of the mask reconverge, which the
  /// interpreter's lanes of a warp always are at an instruction.
  BarWarpSync,
  BarrierClusterArrive,
  BarrierClusterWait,
  Fence,
  Nop,
  ElectSync,
  Setmaxnreg,
  GriddepLaunch,
  GriddepWait,
  ShflSync,
  VoteSync,
  Activemask,
  Mapa,
  MbarInit,
  MbarArrive,
  MbarExpectTx,
  MbarTryWait,
  MbarTestWait,
  MbarInval,
  CpAsync,
  CpAsyncCommit,
  CpAsyncWait,
  CpAsyncWaitAll,
  Ldmatrix,
  Stmatrix,
  MmaSync,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
  WgmmaMma,
  TmaLoad,
  TmaStore,
  BulkCommit,
  BulkWait,
  TcAlloc,
  TcDealloc,
  TcRelinquish,
  TcMma,
  TcCommit,
  TcLd,
  TcSt,
  TcWaitLd,
  TcWaitSt,
  TcFence
};

/// Comparison operators of setp.
enum class CmpKind : std::uint8_t {
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan
};

/// Rounding modifiers.
enum class RoundKind : std::uint8_t {
  None,
  Rn,
  Rz,
  Rm,
  Rp,
  Rni,
  Rzi,
  Rmi,
  Rpi
};

/// Operand forms.
enum class OperandKind : std::uint8_t {
  None,
  Reg,
  Imm,
  Special,
  Address,
  Vector,
  Sink
};

/// One operand. Addresses are [reg + offset] or [offset] (symbols folded
/// into the offset); vectors and tensor coordinates index Instr::elems.
struct Operand {
  OperandKind kind = OperandKind::None;
  bool hasBase = false;
  bool neg = false; ///< `!%p`: the predicate negated.
  SpecialRegKind special = SpecialRegKind::TidX;
  std::uint32_t reg = 0; ///< Reg: slot; Address: base slot.
  std::int64_t imm = 0;  ///< Imm: the bits; Address: the offset.
  std::uint32_t elemBegin = 0, elemCount = 0; ///< Vector / coordinates.
  /// Imm or Address from a shared symbol: the executing CTA's rank is
  /// added at run time (ClusterRankShift in Interpreter.h).
  bool sharedSymbol = false;
};

/// One decoded instruction.
struct Instr {
  OpKind op = OpKind::Nop;
  PtxType type = PtxType::None;  ///< The instruction type (cvt: the dest).
  PtxType type2 = PtxType::None; ///< cvt: source; f32 add/sub/fma: the
                                 ///< f16/bf16 source (mixed precision).
  SpaceKind space = SpaceKind::Generic;
  CmpKind cmp = CmpKind::Eq;
  RoundKind round = RoundKind::None;
  std::uint8_t vec = 1;    ///< .v2 / .v4 element count.
  std::uint8_t boolOp = 0; ///< setp: 0 none, 1 and, 2 or, 3 xor.
  bool sat = false, negGuard = false, hasGuard = false, trans = false,
       flag = false, flag2 = false;
  std::uint32_t guard = 0;  ///< Guard predicate slot.
  std::uint32_t target = 0; ///< Branch target instruction index.
  /// Op-specific small integers: ldmatrix num; mma/wgmma shape m, n, k;
  /// atom operation; tensor rank; tcgen05 cta group; ...
  int a = 0, b = 0, c = 0, d = 0;
  PtxType typeA = PtxType::None, typeB = PtxType::None, typeC = PtxType::None,
          typeD = PtxType::None;
  std::vector<Operand> ops;
  std::vector<Operand> elems;
  unsigned line = 0;        ///< 1-based PTX line.
  std::uint32_t textId = 0; ///< Index into PtxFunction::texts.
};

/// One .param of an entry.
struct PtxParam {
  std::string name;
  std::size_t offset = 0, size = 0, align = 1;
};

/// One .entry, decoded.
struct PtxFunction {
  std::string name;
  std::vector<PtxParam> params;
  std::size_t paramBytes = 0;
  unsigned maxntid[3] = {0, 0, 0};
  unsigned reqnctapercluster[3] = {0, 0, 0};
  unsigned staticShared = 0;  ///< Bytes of static .shared (module + entry).
  unsigned localBytes = 0;    ///< Per-thread .local bytes.
  unsigned declaredRegs = 0;  ///< 32-bit registers declared (estimate).
  std::uint32_t numSlots = 0; ///< Register slots per lane.
  std::vector<Instr> code;
  std::vector<std::string> texts;     ///< Instruction text, for messages.
  std::vector<std::string> slotNames; ///< Register names, for messages.
};

/// A whole PTX module.
/// A module-scope .global or .const variable: allocated in GlobalMemory when
/// the module is parsed (initializer written), freed with the module.
struct PtxGlobal {
  std::string name;
  std::uint64_t address = 0;
  std::size_t bytes = 0;
};

struct PtxModule {
  std::vector<PtxFunction> functions;
  std::vector<PtxGlobal> globals;
  PtxModule() = default;
  PtxModule(const PtxModule &) = delete;
  PtxModule &operator=(const PtxModule &) = delete;
  ~PtxModule();
};

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_PTXPROGRAM_H

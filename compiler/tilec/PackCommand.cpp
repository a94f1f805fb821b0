//===- compiler/tilec/PackCommand.cpp - `tilec pack` ----------------------===//
//
// The offline packer of quantized GEMM weights (W4A16, W8A16) on raw
// little-endian files: quantizes a float weight [N, K] in groups of K to
// one of ir/tile/WeightQuant.h's formats (i4, u4, i8, u8, e4m3, e5m2) or takes
// already-quantized values, and writes the packed words in the order the
// kernels read (ir/layout/WeightPack.h), the scales and the zero points;
// `--unpack` is the inverse (the values, or with --scales the dequantized
// weight). The contract is docs/cli.md.
//
// Example: tilec pack --in w.bin --shape 4096,4096 --dtype bf16 --group 128
// --format i4 -o w4 writes w4.weight.bin (int32[4096, 512]) and
// w4.scales.bin (bf16[32, 4096]).
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "ir/arch/Float16Bits.h"
#include "ir/tile/WeightQuant.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>

namespace tilec {
namespace {

namespace cl = llvm::cl;

cl::SubCommand packCommand("pack",
                           "quantize and pack GEMM weights (4-bit, 8-bit or "
                           "fp8 codes), or unpack them");

cl::opt<std::string> inOpt("in",
                           cl::desc("the input file (raw, little-endian)"),
                           cl::value_desc("FILE"), cl::sub(packCommand),
                           cl::cat(tilecCategory()));
cl::opt<std::string> shapeOpt("shape", cl::desc("the weight's extents N,K"),
                              cl::value_desc("N,K"), cl::sub(packCommand),
                              cl::cat(tilecCategory()));
cl::opt<std::string>
    dtypeOpt("dtype",
             cl::desc("the element type of --in: f32, f16, bf16 (quantized "
                      "here) or i8, u8, e4m3, e5m2 (quantized values); with "
                      "--unpack, of the output"),
             cl::value_desc("T"), cl::sub(packCommand),
             cl::cat(tilecCategory()));
cl::opt<std::string>
    formatOpt("format",
              cl::desc("the values' format: i4, u4, i8, u8, e4m3 or e5m2"),
              cl::value_desc("F"), cl::init("i4"), cl::sub(packCommand),
              cl::cat(tilecCategory()));
cl::opt<int64_t> groupOpt("group",
                          cl::desc("K elements per scale: 32, 64 or 128"),
                          cl::value_desc("G"), cl::init(128),
                          cl::sub(packCommand), cl::cat(tilecCategory()));
cl::opt<std::string>
    scaleDTypeOpt("scale-dtype",
                  cl::desc("the scales' type: bf16, f16 or f32 (default: "
                           "--dtype when f16 or bf16, else bf16)"),
                  cl::value_desc("T"), cl::sub(packCommand),
                  cl::cat(tilecCategory()));
cl::opt<std::string> outOpt(
    "o",
    cl::desc("the output: a prefix for PREFIX.weight.bin, "
             "PREFIX.scales.bin, PREFIX.zeros.bin; with --unpack a file"),
    cl::value_desc("PREFIX|FILE"), cl::sub(packCommand),
    cl::cat(tilecCategory()));
cl::opt<bool> unpackOpt("unpack",
                        cl::desc("read packed words and write the values (or "
                                 "with --scales the dequantized weight)"),
                        cl::sub(packCommand), cl::cat(tilecCategory()));
cl::opt<std::string> scalesOpt("scales",
                               cl::desc("--unpack: the scales [K/G, N]"),
                               cl::value_desc("FILE"), cl::sub(packCommand),
                               cl::cat(tilecCategory()));
cl::opt<std::string> zerosOpt("zeros",
                              cl::desc("--unpack: the u4/u8 zero points [K/G, "
                                       "N]"),
                              cl::value_desc("FILE"), cl::sub(packCommand),
                              cl::cat(tilecCategory()));

int usage(const llvm::Twine &message) {
  llvm::errs() << "tilec pack: " << message << "\n";
  return ExitUsage;
}

int diagnostic(const llvm::Twine &message) {
  llvm::errs() << "tilec pack: error: " << message << "\n";
  return ExitDiagnostic;
}

/// A file's bytes, or a diagnostic's exit code in \p exit.
std::optional<std::vector<uint8_t>> readFile(const std::string &path,
                                             int &exit) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buf) {
    exit =
        diagnostic("cannot read '" + path + "': " + buf.getError().message());
    return std::nullopt;
  }
  llvm::StringRef data = (*buf)->getBuffer();
  return std::vector<uint8_t>(data.bytes_begin(), data.bytes_end());
}

/// Reads \p path as \p count elements of \p bytes each; a diagnostic naming
/// the sizes when the file has another length.
std::optional<std::vector<uint8_t>> readSized(const std::string &path,
                                              int64_t count, unsigned bytes,
                                              const llvm::Twine &what,
                                              int &exit) {
  std::optional<std::vector<uint8_t>> data = readFile(path, exit);
  if (data && int64_t(data->size()) != count * bytes) {
    exit = diagnostic(llvm::formatv("'{0}' has {1} bytes; {2} is {3} bytes",
                                    path, data->size(), what, count * bytes)
                          .str());
    return std::nullopt;
  }
  return data;
}

bool writeFile(const std::string &path, llvm::ArrayRef<uint8_t> bytes,
               int &exit) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.close();
    ec = os.error();
  }
  if (ec)
    exit = diagnostic("cannot write '" + path + "': " + ec.message());
  return !ec;
}

/// Little-endian elements of \p type (f32, f16, bf16) as floats.
std::vector<float> floatsOf(llvm::ArrayRef<uint8_t> bytes, DTypeKind type) {
  unsigned size = dtypeBytes(type);
  std::vector<float> out(bytes.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t *p = bytes.data() + i * size;
    if (type == DTypeKind::F32)
      out[i] = std::bit_cast<float>(llvm::support::endian::read32le(p));
    else
      out[i] = bits16ToFloat(llvm::support::endian::read16le(p), type);
  }
  return out;
}

/// \p values as little-endian elements of \p type (f32, f16, bf16).
std::vector<uint8_t> bytesOf(llvm::ArrayRef<float> values, DTypeKind type) {
  unsigned size = dtypeBytes(type);
  std::vector<uint8_t> out(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *p = out.data() + i * size;
    if (type == DTypeKind::F32)
      llvm::support::endian::write32le(p, std::bit_cast<uint32_t>(values[i]));
    else
      llvm::support::endian::write16le(p, floatToBits16(values[i], type));
  }
  return out;
}

std::vector<uint8_t> bytesOfWords(llvm::ArrayRef<uint32_t> words) {
  std::vector<uint8_t> out(words.size() * 4);
  for (size_t i = 0; i < words.size(); ++i)
    llvm::support::endian::write32le(out.data() + 4 * i, words[i]);
  return out;
}

/// The value of \p opt, or \p fallback when it was not given.
std::string valueOr(const cl::opt<std::string> &opt, std::string fallback) {
  return opt.empty() ? fallback : opt.getValue();
}

/// --dtype, --scale-dtype: one of \p legal, or nothing with a usage error.
std::optional<DTypeKind> typeOption(const std::string &value, const char *flag,
                                    llvm::ArrayRef<DTypeKind> legal,
                                    int &exit) {
  std::optional<DTypeKind> t = parseDType(value);
  if (t && llvm::is_contained(legal, *t))
    return t;
  std::vector<std::string> names;
  for (DTypeKind l : legal)
    names.push_back(dtypeName(l));
  exit = usage(llvm::formatv("--{0} '{1}' is not one of {2}", flag, value,
                             llvm::join(names, ", "))
                   .str());
  return std::nullopt;
}

/// The type of the values of \p format, one byte each: i8 (i4, i8), u8 (u4,
/// u8), the fp8 type (e4m3, e5m2).
DTypeKind valueTypeOf(WeightFormatKind format) {
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (info.isFloat)
    return info.dtype;
  return info.minValue < 0 ? DTypeKind::I8 : DTypeKind::U8;
}

/// The quantized values of \p format in \p in, elements of \p inType (i8,
/// u8, or the fp8 type itself). An i8 read by an unsigned format or a u8
/// past 127 by a signed one is outside either range: a diagnostic names it
/// before its byte reads as another number.
std::optional<std::vector<int8_t>> valuesOf(llvm::ArrayRef<uint8_t> in,
                                            DTypeKind inType, int64_t k,
                                            WeightFormatKind format,
                                            int &exit) {
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (!info.isFloat && inType != valueTypeOf(format))
    for (size_t i = 0; i < in.size(); ++i) {
      int v = inType == DTypeKind::I8 ? int(int8_t(in[i])) : int(in[i]);
      if (v < 0 || v > 127) {
        exit = diagnostic(llvm::formatv(
            "'{0}': the value at (n, k) = ({1}, {2}) is {3}, outside {4}'s "
            "{5}..{6}",
            inOpt, int64_t(i) / k, int64_t(i) % k, v, info.name, info.minValue,
            info.maxValue));
        return std::nullopt;
      }
    }
  return std::vector<int8_t>(in.begin(), in.end());
}

int runPackWeights(int64_t n, int64_t k, WeightFormatKind format) {
  int exit = 0;
  const WeightFormatInfo &info = weightFormatInfo(format);
  // Floats to quantize, or values: i8 and u8 for the integer formats, the
  // fp8 bit patterns for e4m3 and e5m2.
  std::vector<DTypeKind> inTypes = {DTypeKind::F32, DTypeKind::F16,
                                    DTypeKind::BF16};
  if (info.isFloat)
    inTypes.push_back(info.dtype);
  else
    inTypes.insert(inTypes.end(), {DTypeKind::I8, DTypeKind::U8});
  std::optional<DTypeKind> inType =
      typeOption(valueOr(dtypeOpt, "f32"), "dtype", inTypes, exit);
  if (!inType)
    return exit;
  bool quantized = dtypeBits(*inType) == 8;
  if (quantized && (!scaleDTypeOpt.empty() || groupOpt.getNumOccurrences()))
    return usage("--scale-dtype and --group: --dtype " + dtypeName(*inType) +
                 " values are already quantized; only the packed words are "
                 "written");
  // Any group divides a packable K, so 32 checks the shape alone.
  if (llvm::Error e = checkWeightShape(format, n, k, quantized ? 32 : groupOpt))
    return diagnostic(llvm::toString(std::move(e)));
  std::string inName = llvm::formatv("{0}[{1}, {2}]", dtypeName(*inType), n, k);
  std::optional<std::vector<uint8_t>> in =
      readSized(inOpt, n * k, dtypeBytes(*inType), inName, exit);
  if (!in)
    return exit;

  std::vector<int8_t> values;
  std::optional<QuantizedWeights> q;
  DTypeKind scaleType = DTypeKind::BF16;
  if (quantized) {
    std::optional<std::vector<int8_t>> v =
        valuesOf(*in, *inType, k, format, exit);
    if (!v)
      return exit;
    values = std::move(*v);
  } else {
    std::optional<DTypeKind> st = typeOption(
        !scaleDTypeOpt.empty()      ? scaleDTypeOpt.getValue()
        : *inType == DTypeKind::F32 ? std::string("bf16")
                                    : dtypeName(*inType),
        "scale-dtype", {DTypeKind::BF16, DTypeKind::F16, DTypeKind::F32}, exit);
    if (!st)
      return exit;
    scaleType = *st;
    llvm::Expected<QuantizedWeights> quant = quantizeWeights(
        floatsOf(*in, *inType), n, k, groupOpt, format, scaleType);
    if (!quant)
      return diagnostic(llvm::toString(quant.takeError()));
    q = std::move(*quant);
    values = q->values;
  }
  std::vector<uint32_t> words(n * k * info.bits / 32);
  if (llvm::Error e = packWeightValues(values, n, k, format, words))
    return diagnostic("'" + inOpt + "': " + llvm::toString(std::move(e)));

  llvm::outs() << inOpt << ": " << inName << " -> " << info.name;
  if (q)
    llvm::outs() << ", groups of " << groupOpt;
  llvm::outs() << "\n";
  std::string weightPath = outOpt + ".weight.bin";
  if (!writeFile(weightPath, bytesOfWords(words), exit))
    return exit;
  llvm::outs() << llvm::formatv("{0}: int32[{1}, {2}], the packed order\n",
                                weightPath, n, k * info.bits / 32);
  if (!q)
    return ExitSuccess;
  std::string scalesPath = outOpt + ".scales.bin";
  if (!writeFile(scalesPath, bytesOf(q->scales, scaleType), exit))
    return exit;
  llvm::outs() << llvm::formatv("{0}: {1}[{2}, {3}]\n", scalesPath,
                                dtypeName(scaleType), k / groupOpt, n);
  if (info.takesZeros) {
    std::string zerosPath = outOpt + ".zeros.bin";
    if (!writeFile(zerosPath, q->zeros, exit))
      return exit;
    llvm::outs() << llvm::formatv("{0}: u8[{1}, {2}]\n", zerosPath,
                                  k / groupOpt, n);
  }
  return ExitSuccess;
}

int runUnpack(int64_t n, int64_t k, WeightFormatKind format) {
  int exit = 0;
  bool dequant = !scalesOpt.empty();
  if (!dequant && !zerosOpt.empty())
    return usage("--zeros needs --scales (the zero points only matter to "
                 "the dequantized weight)");
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (!info.takesZeros && !zerosOpt.empty())
    return usage(llvm::formatv("--zeros: {0} weights have no zero points ({1})",
                               info.name,
                               info.codeOffset
                                   ? "z = " + std::to_string(info.codeOffset)
                                   : std::string("only u4 and u8 take them"))
                     .str());
  DTypeKind valueType = valueTypeOf(format);
  std::optional<DTypeKind> outType =
      dequant
          ? typeOption(valueOr(dtypeOpt, "f32"), "dtype",
                       {DTypeKind::F32, DTypeKind::F16, DTypeKind::BF16}, exit)
          : typeOption(valueOr(dtypeOpt, dtypeName(valueType)), "dtype",
                       {valueType}, exit);
  if (!outType)
    return exit;
  if (!dequant && (!scaleDTypeOpt.empty() || groupOpt.getNumOccurrences()))
    return usage("--scale-dtype and --group need --scales");
  // Any group divides a packable K, so 32 checks the shape alone.
  if (llvm::Error e = checkWeightShape(format, n, k, dequant ? groupOpt : 32))
    return diagnostic(llvm::toString(std::move(e)));
  int64_t wordsPerRow = k * info.bits / 32;
  std::optional<std::vector<uint8_t>> in =
      readSized(inOpt, n * wordsPerRow, 4,
                llvm::formatv("int32[{0}, {1}] (N = {0} x K = {2} packed)", n,
                              wordsPerRow, k),
                exit);
  if (!in)
    return exit;
  std::vector<uint32_t> words(n * wordsPerRow);
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = llvm::support::endian::read32le(in->data() + 4 * i);
  std::vector<int8_t> values(n * k);
  if (llvm::Error e = unpackWeightValues(words, n, k, format, values))
    return diagnostic(llvm::toString(std::move(e)));

  std::vector<uint8_t> out;
  if (!dequant) {
    out.assign(values.begin(), values.end());
  } else {
    std::optional<DTypeKind> st =
        typeOption(valueOr(scaleDTypeOpt, "bf16"), "scale-dtype",
                   {DTypeKind::BF16, DTypeKind::F16, DTypeKind::F32}, exit);
    if (!st)
      return exit;
    int64_t groups = k / groupOpt * n;
    std::string shape = llvm::formatv("[{0}, {1}]", k / groupOpt, n);
    std::optional<std::vector<uint8_t>> scaleBytes = readSized(
        scalesOpt, groups, dtypeBytes(*st),
        dtypeName(*st) + shape + " (--group " + std::to_string(groupOpt) + ")",
        exit);
    if (!scaleBytes)
      return exit;
    std::vector<uint8_t> zeros;
    if (!zerosOpt.empty()) {
      std::optional<std::vector<uint8_t>> z =
          readSized(zerosOpt, groups, 1, "u8" + shape, exit);
      if (!z)
        return exit;
      zeros = std::move(*z);
    }
    std::vector<float> weights(n * k);
    if (llvm::Error e =
            dequantizeWeights(values, floatsOf(*scaleBytes, *st), zeros, n, k,
                              groupOpt, format, weights))
      return diagnostic(llvm::toString(std::move(e)));
    out = bytesOf(weights, *outType);
  }
  if (!writeFile(outOpt, out, exit))
    return exit;
  llvm::outs() << llvm::formatv("{0}: {1} N = {2} x K = {3} packed\n", inOpt,
                                weightFormatName(format), n, k)
               << llvm::formatv("{0}: {1}[{2}, {3}], {4}\n", outOpt,
                                dtypeName(*outType), n, k,
                                dequant ? "dequantized" : "the values");
  return ExitSuccess;
}

int runPack() {
  if (inOpt.empty())
    return usage("--in FILE is required");
  if (outOpt.empty())
    return usage("-o is required (a prefix for the packed files; with "
                 "--unpack a file)");
  if (shapeOpt.empty())
    return usage("--shape N,K is required");
  auto [nText, kText] = llvm::StringRef(shapeOpt).split(',');
  int64_t n = 0, k = 0;
  if (nText.trim().getAsInteger(10, n) || kText.trim().getAsInteger(10, k) ||
      n <= 0 || k <= 0 || n > (int64_t(1) << 31) || k > (int64_t(1) << 31))
    return usage("--shape takes N,K, two positive integers (e.g. "
                 "4096,14336), not '" +
                 shapeOpt + "'");
  std::optional<WeightFormatKind> format = parseWeightFormat(formatOpt);
  if (!format)
    return usage("--format '" + formatOpt + "' is not one of " +
                 weightFormatNames());
  if (!unpackOpt && (!scalesOpt.empty() || !zerosOpt.empty()))
    return usage("--scales and --zeros are inputs of --unpack; packing "
                 "writes PREFIX.scales.bin and PREFIX.zeros.bin");
  if (unpackOpt)
    return runUnpack(n, k, *format);
  return runPackWeights(n, k, *format);
}

CommandRegistration registration(packCommand, runPack);

} // namespace
} // namespace tilec

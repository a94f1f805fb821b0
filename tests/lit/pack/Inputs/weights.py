"""Inputs and checks for the `tilec pack` lit tests (raw little-endian files).

  weights.py f32|f16|bf16 N K FILE     normal weights (sigma 0.02, seeded)
  weights.py values i4|u4 N K FILE     q = (3 n + 5 k) % 16 (- 8 for i4)
  weights.py values i8|u8|e4m3|e5m2 N K FILE
      code (3 n + 5 k) % 256: q = code - 128 (i8), code (u8), the fp8 bit
      pattern code (e4m3, e5m2; a NaN or Inf pattern becomes 0)
  weights.py word FILE INDEX           the 32-bit word at INDEX, in hex
  weights.py close W DEQ N K G SCALES STYPE [MAX]
      every |deq - w| at most MAX (default 0.56) of its group's scale, and
      the error is not zero everywhere
  weights.py closefp W DEQ N K G SCALES STYPE REL SUB
      every |deq - w| at most REL |w| + SUB scale (an fp8 value's half
      spacing, relative, and its subnormals'), and not zero everywhere
"""
import random
import struct
import sys


def f16(x):
    return struct.pack("<e", x)


def bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 0x7fff + ((bits >> 16) & 1)
    return struct.pack("<H", bits >> 16)


def read(path, fmt, size):
    data = open(path, "rb").read()
    if fmt == "bf16":
        return [struct.unpack("<f", b"\0\0" + data[i:i + 2])[0]
                for i in range(0, len(data), 2)]
    code = {"f32": "f", "f16": "e"}[fmt]
    return list(struct.unpack("<%d%s" % (len(data) // size, code), data))


def main(argv):
    cmd = argv[1]
    if cmd in ("f32", "f16", "bf16"):
        n, k, path = int(argv[2]), int(argv[3]), argv[4]
        rng = random.Random(28)
        w = [rng.gauss(0.0, 0.02) for _ in range(n * k)]
        enc = {"f32": lambda x: struct.pack("<f", x), "f16": f16,
               "bf16": bf16}[cmd]
        open(path, "wb").write(b"".join(enc(x) for x in w))
    elif cmd == "values":
        fmt, n, k, path = argv[2], int(argv[3]), int(argv[4]), argv[5]
        if fmt in ("i4", "u4"):
            bias = 8 if fmt == "i4" else 0
            data = bytes(((3 * r + 5 * c) % 16 - bias) & 0xff
                         for r in range(n) for c in range(k))
        else:
            def finite(b):
                if fmt == "e4m3":
                    return b & 0x7f != 0x7f
                return fmt != "e5m2" or b & 0x7c != 0x7c
            codes = ((3 * r + 5 * c) % 256 for r in range(n)
                     for c in range(k))
            bias = 128 if fmt == "i8" else 0
            data = bytes((b - bias) & 0xff if finite(b) else 0
                         for b in codes)
        open(path, "wb").write(data)
    elif cmd == "word":
        data = open(argv[2], "rb").read()
        i = int(argv[3])
        print("0x%08x" % struct.unpack("<I", data[4 * i:4 * i + 4])[0])
    elif cmd in ("close", "closefp"):
        wpath, dpath = argv[2], argv[3]
        n, k, g = int(argv[4]), int(argv[5]), int(argv[6])
        spath, stype = argv[7], argv[8]
        w, d = read(wpath, "f32", 4), read(dpath, "f32", 4)
        s = read(spath, stype, {"f32": 4}.get(stype, 2))
        assert len(w) == len(d) == n * k and len(s) == n * k // g
        worst = 0.0
        for r in range(n):
            for c in range(k):
                x, scale = w[r * k + c], s[c // g * n + r]
                err = abs(x - d[r * k + c])
                if cmd == "close":
                    worst = max(worst, err / scale)
                else:
                    bound = float(argv[9]) * abs(x) + float(argv[10]) * scale
                    worst = max(worst, err / bound)
        if cmd == "close":
            top = float(argv[9]) if len(argv) > 9 else 0.56
            assert 0 < worst <= top, worst
            print("close: %d weights within %.3f of a step" % (n * k, worst))
        else:
            assert 0 < worst <= 1, worst
            print("close: %d weights within %.3f of the bound" % (n * k,
                                                                 worst))
    else:
        sys.exit("weights.py: unknown command " + cmd)


main(sys.argv)

"""Inputs and checks for the `tilec pack` lit tests (raw little-endian files).

  weights.py f32|f16|bf16 N K FILE     normal weights (sigma 0.02, seeded)
  weights.py values i4|u4 N K FILE     q = (3 n + 5 k) % 16 (- 8 for i4)
  weights.py word FILE INDEX           the 32-bit word at INDEX, in hex
  weights.py close W DEQ N K G SCALES STYPE
      every |deq - w| at most 0.56 of its group's scale, and the error
      is not zero everywhere
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
        bias = 8 if fmt == "i4" else 0
        open(path, "wb").write(bytes(((3 * r + 5 * c) % 16 - bias) & 0xff
                                     for r in range(n) for c in range(k)))
    elif cmd == "word":
        data = open(argv[2], "rb").read()
        i = int(argv[3])
        print("0x%08x" % struct.unpack("<I", data[4 * i:4 * i + 4])[0])
    elif cmd == "close":
        wpath, dpath = argv[2], argv[3]
        n, k, g = int(argv[4]), int(argv[5]), int(argv[6])
        spath, stype = argv[7], argv[8]
        w, d = read(wpath, "f32", 4), read(dpath, "f32", 4)
        s = read(spath, stype, {"f32": 4}.get(stype, 2))
        assert len(w) == len(d) == n * k and len(s) == n * k // g
        worst = 0.0
        for r in range(n):
            for c in range(k):
                err = abs(w[r * k + c] - d[r * k + c])
                worst = max(worst, err / s[c // g * n + r])
        assert 0 < worst <= 0.56, worst
        print("close: %d weights within %.3f of a step" % (n * k, worst))
    else:
        sys.exit("weights.py: unknown command " + cmd)


main(sys.argv)

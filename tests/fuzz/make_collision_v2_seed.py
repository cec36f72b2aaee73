#!/usr/bin/env python3
# Writes corpus/collision_file/heights_v2, a version 2 collision grid file, from README.md's
# description alone (no Terrabit code): three tiles, int16 deltas with a hole, float32 with a cliff
# and a NaN, none. collision_file_v2_test.cpp reads it back. Usage: make_collision_v2_seed.py OUT
import struct, zlib, math, sys
zoom, x0, y0 = 17, 68196, 47837
tiles = [(x0, y0, 1), (x0 + 1, y0, 0), (x0 + 2, y0, 0)]  # (x, y, layer mask)
def quadkey(x, y, z):
    return "".join(str(((y >> (z - 1 - i)) & 1) << 1 | ((x >> (z - 1 - i)) & 1)) for i in range(z))
names = [b"building"]
head = b"TBCOLGRD" + struct.pack("<7I", 2, zoom, x0, y0, 3, 1, len(names), ) + struct.pack("<I", len(tiles))
body = bytearray(head + b"\0" * 8)
for n in names: body += struct.pack("<H", len(n)) + n
for x, y, mask in tiles: body += struct.pack("<IIQ", x, y, mask) + quadkey(x, y, zoom).encode().ljust(32, b"\0")
while len(body) % 32: body.append(0)
body[40:48] = struct.pack("<Q", len(body))
bits = bytearray(8192)
for row in range(40, 60):
    for col in range(30, 90): bits[row * 32 + (col >> 3)] |= 1 << (col & 7)  # LSB westmost, LE words
body += bits
N = 257
def pad():
    while len(body) % 32: body.append(0)
# tile 0: int16 deltas of a plane, a hole of no height
q = [[None if (100 <= r < 110 and 5 <= c < 20) else round((120.0 + 0.02 * c - 0.05 * r) * 1024) for c in range(N)] for r in range(N)]
base = q[0][0]
body += struct.pack("<Ii", 1, base)
col = base
for r in range(N):
    if q[r][0] is not None: body += struct.pack("<h", q[r][0] - col); col = q[r][0]
    else: body += struct.pack("<h", -32768)
    run = col
    for c in range(1, N):
        if q[r][c] is None: body += struct.pack("<h", -32768); continue
        body += struct.pack("<h", q[r][c] - run); run = q[r][c]
pad()
# tile 1: float32 with a 40 m cliff and a NaN
body += struct.pack("<Ii", 2, 0)
for r in range(N):
    for c in range(N):
        v = float("nan") if (r, c) == (3, 4) else 125.0 + (40.0 if c > 128 else 0.0) + 0.001 * r
        body += struct.pack("<f", v)
pad()
# tile 2: no heights
body += struct.pack("<Ii", 0, 0); pad()
body += struct.pack("<I", zlib.crc32(bytes(body)))
open(sys.argv[1], "wb").write(body)
print(len(body))

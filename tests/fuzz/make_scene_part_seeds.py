#!/usr/bin/env python3
# Writes the scene_part fuzz target's seeds (corpus/scene_part/) from the layout in
# core/export/include/terrabit/core/export/scene_part_file.h alone (no Terrabit code):
#   flat       one part: a one-triangle model, two instances, a road, a pond, a generated house
#   terrain    one part on terrain: a ground mesh of two triangles and a plinth
#   two_parts  two parts of two tiles, the second reusing the first's model
# scene_part_file_test.cpp reads them back and encodes their GLB. Usage: make_scene_part_seeds.py DIR
import math, os, struct, sys

ZOOM = 17
LON, LAT = 7.4246, 43.7350
N = 1 << ZOOM
X = int((LON + 180.0) / 360.0 * N)
Y = int((1.0 - math.asinh(math.tan(math.radians(LAT))) / math.pi) / 2.0 * N)

def u8(v): return struct.pack("<B", v)
def u16(v): return struct.pack("<H", v)
def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)
def i32(v): return struct.pack("<i", v)
def f32(v): return struct.pack("<f", v)
def f64(v): return struct.pack("<d", v)
def string(s): b = s.encode(); return u32(len(b)) + b
def array(items, each=lambda b: b): return u64(len(items)) + b"".join(each(i) for i in items)
def tile(x, y): return i32(ZOOM) + u32(x) + u32(y)
def vec2(p): return f64(p[0]) + f64(p[1])
def vec3f(p): return f32(p[0]) + f32(p[1]) + f32(p[2])

def header():
    return b"TBSCPART" + u32(1) + u8(0) + bytes([124, 133, 98]) + string("Terrabit") + string("seed")

def model():
    # one triangle, normals up, white
    return (array([0, 0, 0, 2, 0, 0, 0, 0, -2], f32) + array([0, 1, 0] * 3, f32) +
            array([1, 1, 1, 1] * 3, f32) + array([0, 1, 2], u32))

def scene(tiles, blocks=u64(0), surfaces=(), plinths=(), generated=(), ground=(), terrain=False, sources=()):
    return (f64(LON) + f64(LAT) + i32(ZOOM) + u64(7) + i32(32) + u8(1 if terrain else 0) + f64(100.0) +
            array(tiles) + array(["tri"], string) + array(list(sources), string) + blocks +
            array(list(surfaces)) + array(list(plinths)) + array([]) + array(list(generated)) +
            array(list(ground)))

def block(x, y, instances):
    bounds = vec3f((-50, -1, -50)) + vec3f((50, 3, 50))
    body = b"".join(vec3f(p) + f32(yaw) + vec3f((1, 1, 1)) + u32(0xFFFFFFFF) for p, yaw in instances)
    return u64(1) + i32(0) + tile(x, y) + i32(0) + i32(0) + bounds + u64(len(instances)) + body

def road(x, y):
    rects = array([(0, 10, 256, 16)], lambda r: b"".join(u16(v) for v in r))
    tris = array([(0, 10), (256, 10), (0, 16)], vec2)
    empty = u64(0)
    return (tile(x, y) + string("road") + f32(0.05) + bytes([107, 107, 107]) + u8(1) +
            empty * 4 + rects + empty + empty * 3 + tris)

def pond(x, y):
    # A sunken surface in its real shape: the ground around it follows its outline.
    square = [(100, 100), (140, 100), (140, 140), (100, 140)]
    rects = array([(100, 100, 140, 140)], lambda r: b"".join(u16(v) for v in r))
    shape = array(square, vec2) + array([4], u32) + array([1], u32)
    tris = array([(100, 100), (140, 100), (140, 140), (100, 100), (140, 140), (100, 140)], vec2)
    empty = u64(0)
    return (tile(x, y) + string("water") + f32(-0.4) + bytes([66, 135, 245]) + u8(4) +
            empty * 4 + rects + empty + shape + tris)

def house(x, y):
    ring = array([(0, 0), (10, 0), (10, 8), (0, 8)], vec2)
    return tile(x, y) + u32(0) + ring + u64(0) + f32(0) + f32(6) + f32(3) + string("gabled")

def part(models, body):
    payload = u32(len(models)) + b"".join(string(name) + model() for name in models) + body
    return b"PART" + u64(len(payload)) + payload

def done(parts): return b"DONE" + u64(parts)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
t0 = tile(X, Y)
flat = scene([t0], block(X, Y, [((1, 0, -1), 0.5), ((5, 0, -3), -1.0)]), [road(X, Y), pond(X, Y)],
             generated=[house(X, Y)], sources=["way/1"])
open(os.path.join(out, "flat"), "wb").write(header() + part(["tri"], flat) + done(1))

# Terrain: two triangles over the tile's north-west quarter, a plinth under the instance.
vertices = array([(0, 0, 101.0), (128, 0, 102.0), (0, 128, 99.5), (128, 128, 100.5)],
                 lambda v: u16(v[0]) + u16(v[1]) + f32(v[2]))
ground = t0 + vertices + array([0, 2, 1, 1, 2, 3], u32) + array([(0, 1, 0)] * 4, vec3f)
plinth = t0 + u32(0) + vec2((1, 1)) + vec2((3, 2)) + f64(0.3) + f32(-1.0) + f32(0.5)
terrain = scene([t0], block(X, Y, [((1, 0.5, -1), 0.0)]), plinths=[plinth], ground=[ground], terrain=True,
                sources=["way/2"])
open(os.path.join(out, "terrain"), "wb").write(header() + part(["tri"], terrain) + done(1))

# Two parts, in quadkey order (x then x + 1 share the parent's first digits: the west tile first).
first = scene([t0], block(X, Y, [((1, 0, -1), 0.0)]))
second = scene([tile(X + 1, Y)], block(X + 1, Y, [((300, 0, -1), 1.0)]), [road(X + 1, Y)])
open(os.path.join(out, "two_parts"), "wb").write(header() + part(["tri"], first) + part([], second) + done(2))

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# scripts/broadphase_persistent_seeds.py OUT_DIR — writes the persistent-grid seeds of fuzz/corpus/broadphase_fuzzer
# (persistent_*): operation sequences for broadphase_fuzzer.cc in its mode 0x30.
# Encodes persistent-grid operation sequences for fuzz/broadphase_fuzzer.cc (FuzzedDataProvider: integers
# are taken from the end of the input, raw bytes from the front).
import struct, sys, os
class Enc:
    def __init__(s): s.front=b''; s.end=[]
    def u8(s,v): s.end.append(v & 0xff)
    def rng(s,v,lo,hi):
        r=hi-lo; x=v-lo; n=0
        while n<8 and (r>>(8*n))>0: n+=1
        bs=[(x>>(8*(n-1-i)))&0xff for i in range(n)]
        s.end.extend(bs)
    def i8(s,k): s.u8(k+128)
    def u32(s,v): s.end.extend([(v>>24)&255,(v>>16)&255,(v>>8)&255,v&255])
    def coord(s,k,ulps=0):  # k * h / 2, nudged by ulps (-3..3)
        s.u8(70 + ulps + 3)  # control >= 64 with control % 7 - 3 == ulps
        s.i8(k)
    def raw(s,v): s.u8(0); s.front += struct.pack('<d', v)
    def box(s,lo,hi):
        for a,b in zip(lo,hi): s.coord(a); s.coord(b)
    def data(s): return s.front + bytes(reversed(s.end))
def header(e, mode, size_index, cells, memberships, pairs):
    e.u8(mode)
    e.u8(size_index)
    e.rng(cells,-1,5000); e.rng(memberships,-1,400); e.rng(pairs,-1,100)
INSERT, JITTER, TELEPORT, REMOVE, NEVER, UPDATE = 0, 2, 3, 4, 5, 6
SWEPT = 0x80
out = sys.argv[1]
def save(name, e): open(os.path.join(out, name),'wb').write(e.data())
# 1. The centre-cell spatial-hash example's wall and prop at h = 2 (k * h / 2 = k): contact begins, persists,
# ends; swept exit; removal.
e=Enc(); header(e, 0x30, 2, 4096, 400, 100)
e.u8(INSERT); e.box([0,0],[10,2])
e.u8(INSERT); e.box([12,0],[13,1])
e.u8(UPDATE)
e.u8(TELEPORT); e.u8(1); e.box([9,0],[10,1])
e.u8(UPDATE); e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(1); e.box([20,0],[21,1])
e.u8(UPDATE)
e.u8(REMOVE); e.u8(0); e.u8(REMOVE); e.u8(0)
e.u8(UPDATE)
save('persistent_seed_wall', e)
# 2. A bullet through a thin wall within one step, swept; then both sweep across each other.
e=Enc(); header(e, 0x30, 1, 4096, 400, 100)  # h = 1: k / 2
e.u8(INSERT); e.box([20,-10],[21,10])
e.u8(INSERT); e.box([0,0],[1,1])
e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(1); e.box([40,0],[41,1])
e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(1); e.box([0,0],[1,1])
e.u8(TELEPORT|SWEPT); e.u8(0); e.box([50,-10],[51,10])
e.u8(UPDATE)
save('persistent_swept_bullet', e)
# 3. Jitter on cell boundaries, pairs of two moved boxes, slot reuse and stale handles.
e=Enc(); header(e, 0x30, 0, 4096, 400, 100)  # h = 0.5
for i in range(4): e.u8(INSERT); e.box([i*2,0],[i*2+3,3])
e.u8(UPDATE)
for i in range(4):
    e.u8(JITTER); e.u8(i); e.i8(2); e.rng(0,-2,2); e.i8(-2); e.rng(1,-2,2)
e.u8(UPDATE)
e.u8(REMOVE); e.u8(1); e.u8(UPDATE)
e.u8(INSERT); e.box([0,0],[1,1])
e.u8(REMOVE); e.u8(1); e.u8(TELEPORT); e.u8(1); e.box([0,0],[1,1])
e.u8(NEVER|0x40); e.u32(0); e.box([0,0],[0,0])
e.u8(NEVER); e.u32(7); e.box([0,0],[0,0])
e.u8(UPDATE)
save('persistent_jitter_reuse', e)
# 4. Tight budgets: max_pairs = 1 and max_memberships = 6; refused updates, then accepted after a removal.
e=Enc(); header(e, 0x30, 1, 4096, 6, 1)
for i in range(3): e.u8(INSERT); e.box([0,0],[1,1])
e.u8(UPDATE); e.u8(UPDATE)
e.u8(REMOVE); e.u8(2)
e.u8(UPDATE)
e.u8(TELEPORT); e.u8(0); e.box([0,0],[8,1])
e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(1); e.box([6,0],[7,1])
e.u8(UPDATE)
save('persistent_budgets', e)
# 5. 3D, coarser levels: a box far out and a huge one move among small ones; invalid boxes refused.
e=Enc(); header(e, 0x33, 2, 64, 400, 100)
for i in range(4): e.u8(INSERT); e.box([i,i,i],[i+1,i+1,i+1])
e.u8(INSERT); e.box([-100,-1,-1],[100,1,1])
e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(4); e.box([-1,-100,-1],[1,100,1])
e.u8(INSERT); e.raw(float('nan')); e.coord(1); e.coord(0); e.coord(1); e.coord(0); e.coord(1)
e.u8(TELEPORT); e.u8(0); e.raw(1e300); e.raw(1e300); e.coord(0); e.coord(1); e.coord(0); e.coord(1)
e.u8(UPDATE)
e.u8(TELEPORT|SWEPT); e.u8(0); e.raw(-1.7976931348623157e308); e.raw(1.7976931348623157e308); e.coord(0); e.coord(1); e.coord(0); e.coord(1)
e.u8(UPDATE)
save('persistent_three_d_coarse', e)

# SPDX-License-Identifier: MIT
# File: tests/pictures/png.py
#
# Reads the PNGs chromium writes: the pixels a person sees, to be compared with what the scene says must
# be there. With matplotlib (Debian's python3-matplotlib, which the bench plots need anyway) its image
# reader; without it, a decoder of 8-bit RGB(A) PNGs on the standard library's zlib (slower, same pixels).
import io
import struct
import zlib


class Image:
    def __init__(self, width, height, channels, rows):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def at(self, x, y):
        """(r, g, b) of the pixel at column x, row y."""
        row = self.rows[y]
        i = x * self.channels
        return row[i], row[i + 1], row[i + 2]


class _Array:
    def __init__(self, pixels):
        self.height, self.width = pixels.shape[0], pixels.shape[1]
        self._p = pixels

    def at(self, x, y):
        return tuple(int(round(float(v) * 255)) for v in self._p[y, x, :3])


def read(data):
    try:
        from matplotlib import image
    except ImportError:
        return read_zlib(data)
    return _Array(image.imread(io.BytesIO(data), format="png"))


def read_zlib(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return Image(width, height, channels, rows)

"""
A small PNG reader (zlib and the five filters) so that the window tests
can look at screenshots without importing pyglet.
"""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    if pb <= pc:
        return b
    return c


def readPNG(path):
    """
    Read an 8-bit, non-interlaced PNG.

    @return: C{(width, height, channels, rows)}, C{rows} a list of
        L{bytearray}s, top row first.
    @raise ValueError: for anything this reader does not handle.
    """
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    pos = len(SIGNATURE)
    idat = b""
    width = height = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
            if depth != 8 or interlace or colour not in CHANNELS:
                raise ValueError("unsupported PNG format")
            channels = CHANNELS[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        kind = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if kind == 1:
            for x in range(channels, stride):
                line[x] = (line[x] + line[x - channels]) & 0xFF
        elif kind == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 0xFF
        elif kind == 3:
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 0xFF
        elif kind == 4:
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                up = prev[x]
                ul = prev[x - channels] if x >= channels else 0
                line[x] = (line[x] + _paeth(left, up, ul)) & 0xFF
        elif kind != 0:
            raise ValueError("bad filter %d" % (kind,))
        rows.append(line)
        prev = line
    return width, height, channels, rows


def colourCounts(path, step=2):
    """
    How many sampled pixels have each RGB colour (every C{step}-th pixel
    of every C{step}-th row).

    @return: C{(width, height, {rgb: count}, samples)}.
    """
    width, height, channels, rows = readPNG(path)
    counts = {}
    samples = 0
    for row in rows[::step]:
        for x in range(0, width * channels, channels * step):
            rgb = tuple(row[x:x + 3]) if channels >= 3 else (row[x],) * 3
            counts[rgb] = counts.get(rgb, 0) + 1
            samples += 1
    return width, height, counts, samples


def near(counts, rgb, tolerance=24):
    """
    How many sampled pixels are within C{tolerance} of C{rgb}.
    """
    return sum(n for c, n in counts.items()
               if all(abs(c[i] - rgb[i]) <= tolerance for i in range(3)))

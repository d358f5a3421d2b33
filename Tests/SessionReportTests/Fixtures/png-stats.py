"""Decodes a PNG (8-bit RGB or RGBA, not interlaced) with zlib alone and prints, as JSON, its size,
how many pixels are not white, how many distinct colours it has, and how many pixels lie within
24 of each colour given as RRGGBB on the command line:  png-stats.py FILE [RRGGBB ...]"""
import json
import struct
import sys
import zlib

data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, ihdr = 8, [], None
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT': idat.append(body)
    pos += 12 + length
width, height, depth, colour, _, _, interlace = ihdr
assert depth == 8 and colour in (2, 6) and interlace == 0, ihdr
bpp = 3 if colour == 2 else 4
raw = zlib.decompress(b''.join(idat))
stride = width * bpp
previous = bytearray(stride)
white = 0
colours = set()
targets = [bytes.fromhex(h) for h in sys.argv[2:]]
near = [0] * len(targets)
for y in range(height):
    kind = raw[y * (stride + 1)]
    row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if kind == 1:
        for i in range(bpp, stride): row[i] = (row[i] + row[i - bpp]) & 255
    elif kind == 2:
        row = bytearray((a + b) & 255 for a, b in zip(row, previous))
    elif kind == 3:
        for i in range(stride): row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + previous[i]) // 2) & 255
    elif kind == 4:
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]; c = previous[i - bpp] if i >= bpp else 0
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    pixels = bytes(row)
    for x in range(0, stride, bpp):
        pixel = pixels[x:x + 3]
        if pixel == b'\xff\xff\xff': white += 1
        else:
            colours.add(pixel)
            for n, target in enumerate(targets):
                if all(abs(pixel[k] - target[k]) <= 24 for k in range(3)): near[n] += 1
    previous = row
print(json.dumps({'width': width, 'height': height, 'non_white': width * height - white, 'colours': len(colours),
                  'near': dict(zip(sys.argv[2:], near))}))

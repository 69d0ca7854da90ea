"""A PNG reader for the tests, with zlib alone: what a headless browser's screenshot shows.

Enough for Chromium's screenshots: 8-bit RGB or RGBA, not interlaced, any of the five
row filters. ``read_png(data, rows=N)`` decodes the first N rows only (the filters need
only the row above, so the rest of the image need not be unfiltered).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Image:
    width: int
    height: int  # the rows decoded
    channels: int  # 3 (RGB) or 4 (RGBA)
    rows: list[bytes]

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = x * self.channels
        r, g, b = self.rows[y][i : i + 3]
        return r, g, b

    def _find(self, y: int, pattern: bytes, x0: int, x1: int):
        """The x of each pixel in row y, x0 <= x < x1, where ``pattern`` (whole pixels)
        starts (bytes.find does the scanning: a pure Python loop over the pixels of a
        screenshot takes about a second)."""
        row, n = self.rows[y], self.channels
        i, end = x0 * n, x1 * n
        while True:
            i = row.find(pattern, i, end)
            if i < 0:
                return
            if i % n:
                i += 1  # a match across two pixels' bytes
                continue
            yield i // n
            i += n

    def count(self, rgb: tuple[int, int, int], box: tuple[int, int, int, int] | None = None) -> int:
        """Pixels of exactly this colour in ``box`` (x0, y0, x1, y1; default: everywhere)."""
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        pixel = bytes(rgb) + (b"\xff" if self.channels == 4 else b"")
        return sum(1 for y in range(y0, y1) for _ in self._find(y, pixel, x0, x1))

    def first_run(self, rgb: tuple[int, int, int], length: int) -> tuple[int, int, int] | None:
        """(x, y, run length) of the first row's first run of at least ``length`` pixels
        of this colour, top to bottom; None if there is none."""
        pixel = bytes(rgb) + (b"\xff" if self.channels == 4 else b"")
        for y in range(self.height):
            for x in self._find(y, pixel * length, 0, self.width):
                end = x + length
                while end < self.width and self.pixel(end, y) == rgb:
                    end += 1
                return x, y, end - x
        return None


def read_png(data: bytes, *, rows: int | None = None) -> Image:
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    pos, idat, header = len(SIGNATURE), [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without a header")
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, {interlace=}")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    wanted = height if rows is None else min(rows, height)
    out: list[bytes] = []
    prior = bytes(stride)
    for y in range(wanted):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prior))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prior[i]
                c = prior[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad PNG row filter {kind}")
        prior = bytes(line)
        out.append(prior)
    return Image(width, wanted, channels, out)

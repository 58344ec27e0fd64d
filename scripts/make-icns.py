#!/usr/bin/env python3
"""Writes the macOS app icon, assets/icons/AppIcon.icns, from the shapes of scripts/draw-icons.py.

Standard library only, so it runs anywhere (Apple's `iconutil` exists only on macOS). An .icns
file is a big-endian container: the magic 'icns', the file's total length (u32), then entries of
(four-character type, u32 length including this 8-byte header, data). Every entry here holds a
PNG, which macOS reads for all the types below since 10.7 (ic07-ic14) / 10.8 (icp4-icp6):

    icp4 16 px   icp5 32 px   icp6 64 px   ic07 128 px   ic08 256 px   ic09 512 px
    ic10 1024 px (512@2x)   ic11 32 px (16@2x)   ic12 64 px (32@2x)
    ic13 256 px (128@2x)    ic14 512 px (256@2x)

The artwork is the idle colour icon, scaled to Apple's icon grid (824 of 1024 px, centred) so it
looks as large as other apps' icons in the Dock and Finder. Deterministic: re-running it writes
the same bytes. `tests/bundle_layout.rs` parses the file and checks every entry.

    python3 scripts/make-icns.py              # writes assets/icons/AppIcon.icns
"""

import importlib.util
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "assets", "icons", "AppIcon.icns")

# (type, pixel size), in the order Apple's iconutil writes them.
ENTRIES = [
    ("icp4", 16),
    ("icp5", 32),
    ("icp6", 64),
    ("ic07", 128),
    ("ic08", 256),
    ("ic09", 512),
    ("ic10", 1024),
    ("ic11", 32),
    ("ic12", 64),
    ("ic13", 256),
    ("ic14", 512),
]

# Apple's macOS icon grid: the artwork spans 824 of 1024 px.
GRID = 824 / 1024


def load_draw_icons():
    spec = importlib.util.spec_from_file_location(
        "draw_icons", os.path.join(ROOT, "scripts", "draw-icons.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scaled(layers, scale):
    """The layers shrunk by `scale` about the centre (distances scale too, signs do not)."""

    def shrink(shape):
        return lambda x, y: shape((x - 0.5) / scale + 0.5, (y - 0.5) / scale + 0.5)

    return [(shrink(shape), colour) for shape, colour in layers]


def icns_bytes(pngs):
    """The container for [(type, png bytes)]."""
    body = b"".join(
        kind.encode("ascii") + struct.pack(">I", 8 + len(png)) + png for kind, png in pngs
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main():
    draw = load_draw_icons()
    layers = scaled(draw.color_icon("idle"), GRID)
    pngs_by_size = {}
    for _, size in ENTRIES:
        if size not in pngs_by_size:
            # Fewer samples per pixel at large sizes: the edge is already many pixels wide.
            samples = 4 if size <= 128 else 2 if size <= 512 else 1
            rgba = draw.render(layers, size, samples)
            pngs_by_size[size] = draw.png_bytes(rgba, size, size)
            print(f"{size} px", file=sys.stderr)
    data = icns_bytes([(kind, pngs_by_size[size]) for kind, size in ENTRIES])
    temporary = OUT + ".partial"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, OUT)
    print(f"{OUT}: {len(data)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws the app's icons (tray states and the app icon) as RGBA PNGs, deterministically.

Standard library only: every shape is a signed-distance function in unit coordinates
(0..1, y down), each pixel is supersampled for anti-aliasing, and the PNG is written with
zlib + struct. Re-run after changing a shape, then commit the PNGs:

    python3 scripts/draw-icons.py            # writes assets/icons/
    python3 scripts/draw-icons.py --preview /tmp/sheet.png   # also a sheet to look at

Colour icons (Linux tray, app icon): a white microphone on a disc whose colour says the
state; `src/app_icons.rs` and the desktop tests rely on the disc colour dominating.
Template icons (macOS menu bar): black with alpha only; macOS tints them.
"""

import argparse
import math
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "assets", "icons")

STATES = ["idle", "recording", "transcribing", "error"]
DISC = {
    "idle": (0x1E, 0x88, 0xE5),
    "recording": (0xE5, 0x39, 0x35),
    "transcribing": (0xFB, 0x8C, 0x00),
    "error": (0x75, 0x75, 0x75),
}
BADGE = (0xE5, 0x39, 0x35)
WHITE = (0xFF, 0xFF, 0xFF)
BLACK = (0x00, 0x00, 0x00)


# --- signed distances (negative inside) -------------------------------------------------


def sd_circle(cx, cy, r):
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def sd_segment(ax, ay, bx, by, r):
    """A capsule: points within r of the segment a-b."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy

    def f(x, y):
        t = 0.0 if length2 == 0 else ((x - ax) * dx + (y - ay) * dy) / length2
        t = min(1.0, max(0.0, t))
        return math.hypot(x - (ax + t * dx), y - (ay + t * dy)) - r

    return f


def sd_u(cx, top, cy, radius, half_width):
    """A U stroke: two vertical arms from `top` down to `cy`, joined by a lower half circle."""
    left = sd_segment(cx - radius, top, cx - radius, cy, half_width)
    right = sd_segment(cx + radius, top, cx + radius, cy, half_width)

    def f(x, y):
        d = min(left(x, y), right(x, y))
        if y >= cy:
            d = min(d, abs(math.hypot(x - cx, y - cy) - radius) - half_width)
        return d

    return f


def union(*shapes):
    return lambda x, y: min(s(x, y) for s in shapes)


def intersect(*shapes):
    return lambda x, y: max(s(x, y) for s in shapes)


def ring(shape, width):
    """The band of `shape` within `width` of its edge (an outline drawn inside it)."""
    return lambda x, y: abs(shape(x, y) + width / 2) - width / 2


# --- the microphone ----------------------------------------------------------------------


def mic_parts(cx, top, s):
    """Capsule, holder, stem and base of a microphone `0.63 * s` tall, its capsule's top at
    `top`, centred on `cx`."""
    a = 0.10 * s  # capsule half-width
    w = 0.065 * s  # stroke width of holder, stem and base
    capsule = sd_segment(cx, top + a, cx, top + 0.40 * s - a, a)
    cy = top + 0.28 * s
    radius = 0.175 * s
    holder = sd_u(cx, top + 0.22 * s, cy, radius, w / 2)
    base_y = top + 0.60 * s
    stem = sd_segment(cx, cy + radius, cx, base_y, w / 2)
    base = sd_segment(cx - 0.13 * s + w / 2, base_y, cx + 0.13 * s - w / 2, base_y, w / 2)
    return capsule, union(holder, stem, base), w


def mic(cx, top, s, outline=False):
    capsule, rest, w = mic_parts(cx, top, s)
    if outline:
        capsule = ring(capsule, w)
    return union(capsule, rest)


def exclamation(cx, top, bottom, w):
    """A "!" between `top` and `bottom`: a bar, a gap, a dot of the bar's width."""
    dot_y = bottom - w / 2
    bar_end = dot_y - 1.9 * w
    return union(
        sd_segment(cx, top + w / 2, cx, bar_end, w / 2),
        sd_circle(cx, dot_y, w * 0.62),
    )


# --- the icons: lists of (shape, colour), later layers on top ----------------------------


def color_icon(state):
    disc = sd_circle(0.5, 0.5, 0.48)
    layers = [(disc, DISC[state]), (mic(0.5, 0.18, 1.0), WHITE)]
    if state == "error":
        bx, by, br = 0.79, 0.79, 0.19
        # A gap in the disc's colour separates the badge from the microphone.
        layers.append((intersect(sd_circle(bx, by, br + 0.045), disc), DISC[state]))
        layers.append((sd_circle(bx, by, br), BADGE))
        layers.append((exclamation(bx, by - 0.125, by + 0.125, 0.055), WHITE))
    return layers


def template_icon(state):
    s = 1.45  # the microphone fills the height: 0.63 * 1.45 = 0.91
    top = 0.045
    if state == "idle":
        return [(mic(0.5, top, s, outline=True), BLACK)]
    cx = 0.36
    if state == "recording":
        return [(union(mic(cx, top, s), sd_circle(0.80, 0.20, 0.13)), BLACK)]
    if state == "transcribing":
        dots = [sd_circle(x, 0.84, 0.065) for x in (0.66, 0.80, 0.94)]
        return [(union(mic(cx, top, s, outline=True), *dots), BLACK)]
    if state == "error":
        bang = exclamation(0.84, 0.10, 0.92, 0.12)
        return [(union(mic(cx, top, s, outline=True), bang), BLACK)]
    raise ValueError(state)


# --- rasterising and PNG ----------------------------------------------------------------


def render(layers, size, samples):
    """RGBA bytes: each pixel averages samples x samples points; at each point the topmost
    layer containing it gives the colour. Transparent pixels are (0, 0, 0, 0)."""
    n = samples * samples
    offsets = [(i + 0.5) / samples for i in range(samples)]
    out = bytearray()
    for py in range(size):
        for px in range(size):
            r = g = b = covered = 0
            for oy in offsets:
                y = (py + oy) / size
                for ox in offsets:
                    x = (px + ox) / size
                    for shape, colour in reversed(layers):
                        if shape(x, y) < 0:
                            r += colour[0]
                            g += colour[1]
                            b += colour[2]
                            covered += 1
                            break
            if covered == 0:
                out += b"\0\0\0\0"
            else:
                out += bytes(
                    (
                        round(r / covered),
                        round(g / covered),
                        round(b / covered),
                        round(255 * covered / n),
                    )
                )
    return bytes(out)


def png_bytes(rgba, width, height):
    def chunk(kind, data):
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    stride = width * 4
    raw = b"".join(b"\0" + rgba[y * stride : (y + 1) * stride] for y in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def write_png(path, rgba, size):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(png_bytes(rgba, size, size))


def preview_sheet(path):
    """The colour icons at 64 px and the template ones at 64 px, on light and dark rows."""
    cell = 80
    icons = [render(color_icon(s), 64, 4) for s in STATES]
    icons += [render(template_icon(s), 64, 4) for s in STATES]
    width, height = cell * 4, cell * 4
    sheet = bytearray()
    for row in range(4):
        background = (245, 245, 245) if row % 2 == 0 else (40, 40, 40)
        source = icons[:4] if row < 2 else icons[4:]
        for y in range(cell):
            for col in range(4):
                for x in range(cell):
                    ix, iy = x - 8, y - 8
                    colour = background
                    if 0 <= ix < 64 and 0 <= iy < 64:
                        i = (iy * 64 + ix) * 4
                        p = source[col][i : i + 4]
                        tint = (255, 255, 255) if row == 3 else None
                        rgb = tint or p[:3]
                        a = p[3] / 255
                        colour = tuple(round(c * a + bg * (1 - a)) for c, bg in zip(rgb, background))
                    sheet += bytes(colour) + b"\xff"
    with open(path, "wb") as f:
        f.write(png_bytes(bytes(sheet), width, height))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preview", help="also write a sheet of all icons to this PNG")
    args = parser.parse_args()
    for state in STATES:
        for style, layers in (("color", color_icon(state)), ("template", template_icon(state))):
            for name, size in ((state, 32), (state + "@2x", 64)):
                write_png(os.path.join(OUT, style, name + ".png"), render(layers, size, 8), size)
    write_png(os.path.join(OUT, "app.png"), render(color_icon("idle"), 256, 4), 256)
    if args.preview:
        preview_sheet(args.preview)


if __name__ == "__main__":
    main()

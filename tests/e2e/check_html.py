#!/usr/bin/env python3
"""check_html.py — checks of `hotprof report --format html` pages for tests/e2e/test_html.sh.
Each check prints "ok NAME" or "FAIL NAME: why" (lib.sh's convention).

  check_html.py selfcontained PAGE LABEL      no external resource: no http(s)://, src=, <link,
                                              <script, @import or url( in the file
  check_html.py names DOM JSON N LABEL        the DOM's text (Chromium --dump-dom) holds the
                                              names of the top N methods and call pairs of the
                                              JSON report, exactly (so escaped, not mangled)
  check_html.py text PAGE LABEL STRING...     the page's text (HTML-unescaped) holds each STRING,
                                              and the raw file does not hold it when it has < or "
  check_html.py compare PAGE CMPTXT LABEL     every row of `hotprof compare`'s table is in the page
  check_html.py png SHOT LABEL                the screenshot decodes (zlib, no PIL) and is not
                                              blank: many colours, a good share of non-white pixels
"""
import json
import struct
import sys
import zlib
from html.parser import HTMLParser


def ok(name):
    print("ok " + name)


def fail(name, why):
    print("FAIL %s: %s" % (name, why))


class TextOf(HTMLParser):
    """All character data of a document (entities decoded), <title> of SVG frames included."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def text_of(path):
    p = TextOf()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return "\n".join(p.parts)


def selfcontained(page, label):
    raw = open(page, encoding="utf-8").read().lower()
    bad = [s for s in ("http://", "https://", "src=", "<link", "<script", "@import", "url(") if s in raw]
    name = "%s: no external resource or script" % label
    fail(name, "found %s" % bad) if bad else ok(name)


def names(dom, js, n, label):
    rep = json.load(open(js))
    text = text_of(dom)
    want = [m["function"] for m in rep["methods"][:n]]
    for c in rep["call_pairs"][:n]:
        want += [c["caller_function"], c["callee_function"]]
    missing = sorted({w for w in want if w not in text})
    name = "%s: DOM holds the top %d method and call-pair names of the JSON report (%d names)" % (label, n, len(set(want)))
    if not want:
        fail(name, "the JSON report has no names")
    elif missing:
        fail(name, "missing %s" % missing[:5])
    else:
        ok(name)


def text(page, label, strings):
    raw = open(page, encoding="utf-8").read()
    t = text_of(page)
    for s in strings:
        name = "%s: text %r shown exactly and escaped" % (label, s)
        if s not in t:
            fail(name, "not in the page's text")
        elif ("<" in s or '"' in s) and s in raw:
            fail(name, "appears unescaped in the HTML source")
        else:
            ok(name)


def compare(page, cmptxt, label):
    t = text_of(page)
    lines = open(cmptxt).read().splitlines()
    head = next((i for i, l in enumerate(lines) if l.startswith("profile ")), len(lines))
    rows = []
    for l in lines[head:]:  # the header and the rows, up to the blank line before the notes
        if not l.strip():
            break
        rows.append(l)
    missing = [r for r in rows if r not in t]
    name = "%s: the page holds the %d rows of hotprof compare's table" % (label, len(rows))
    if not rows:
        fail(name, "hotprof compare printed no rows")
    elif missing:
        fail(name, "missing %r" % missing[0])
    else:
        ok(name)


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, out, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out


def png(shot, label):
    name = "%s: screenshot is not blank" % label
    try:
        w, h, bpp, rows = png_pixels(shot)
    except Exception as e:  # a broken screenshot is a failed check, not a crash
        return fail(name, str(e))
    colours, nonwhite = set(), 0
    for line in rows:
        for x in range(0, len(line), bpp):
            px = line[x:x + 3]
            colours.add(px)
            nonwhite += px != b"\xff\xff\xff"
    share = nonwhite / float(w * h)
    if len(colours) >= 16 and share >= 0.05:
        ok(name + " (%d colours, %.0f%% non-white)" % (len(colours), 100 * share))
    else:
        fail(name, "%d colours, %.1f%% non-white pixels" % (len(colours), 100 * share))


def main(a):
    if a[0] == "selfcontained": selfcontained(a[1], a[2])
    elif a[0] == "names": names(a[1], a[2], int(a[3]), a[4])
    elif a[0] == "text": text(a[1], a[2], a[3:])
    elif a[0] == "compare": compare(a[1], a[2], a[3])
    elif a[0] == "png": png(a[1], a[2])
    else: fail("check_html.py", "unknown command %s" % a[0])


if __name__ == "__main__":
    main(sys.argv[1:])

"""Read the Mooncake paper's Fig. 9 (LRU hit rate against cache capacity) out of the PDF's vector
drawing, into mooncake_fig9.json. Run by hand (needs `pypdf`, which the tests do not):

    cd tests/sim/golden && python fig9_from_pdf.py Mooncake-FAST25.pdf > mooncake_fig9.json

The paper is FAST25-release/Mooncake-FAST25.pdf in github.com/kvcache-ai/Mooncake. Fig. 9 is a
matplotlib vector figure (form XObject /Im9 on page 11): each curve is one stroked polyline in the
default colour cycle, in legend order (Conversation, Tool&Agent, Synthetic, All). The x axis is
log10(tokens) with major ticks at 10^4 ... 10^9; the y axis is linear with ticks 0.0 ... 0.6. Both
are calibrated from the tick marks' own coordinates, so a point is read to the drawing's precision
(about 0.001 in hit rate), not to a pixel.
"""

from __future__ import annotations

import json
import re
import sys

import pypdf  # type: ignore[import-not-found]

CURVES = ("conversation", "toolagent", "synthetic", "all")


def main(path: str) -> None:
    reader = pypdf.PdfReader(path)
    page = next(p for p in reader.pages if "Figure 9:" in p.extract_text())
    form = page["/Resources"]["/XObject"]["/Im9"].get_object()
    text = form.get_data().decode("latin-1")
    # Major x ticks: short vertical strokes below the axes at y 104.24 -> 100.74 (10^4 ... 10^9).
    xticks = [float(x) for x in re.findall(r"\n([\d.]+) 104\.24 m\n\1 100\.74 l", text)]
    # Major y ticks: short horizontal strokes left of the axes at x 121.34 -> 117.84 (0 ... 0.6).
    yticks = [float(y) for y in re.findall(r"\n121\.34 ([\d.]+) m\n117\.84 \1 l", text)]
    assert len(xticks) == 6 and len(yticks) == 4, (xticks, yticks)
    decade = (xticks[-1] - xticks[0]) / 5
    unit = (yticks[-1] - yticks[0]) / 0.6
    polylines = re.findall(r"\n((?:[\d.]+ [\d.]+ [ml]\n){6,})", text)
    assert len(polylines) == len(CURVES), len(polylines)
    out: dict[str, object] = {
        "source": "Qin et al., Mooncake (FAST'25), Fig. 9; github.com/kvcache-ai/Mooncake "
        "FAST25-release/Mooncake-FAST25.pdf (Apache-2.0)",
        "method": "read from the figure's vector paths by tests/sim/golden/fig9_from_pdf.py",
        "x": "cache capacity in tokens",
        "y": "prefix cache hit rate (LRU, request order only)",
    }
    for name, block in zip(CURVES, polylines, strict=True):
        points: list[list[float]] = []
        for line in block.strip().splitlines():
            x, y, _ = line.split()
            tokens = 10 ** (4 + (float(x) - xticks[0]) / decade)
            rate = (float(y) - yticks[0]) / unit
            point: list[float] = [round(tokens), round(rate, 4)]
            if not points or points[-1] != point:
                points.append(point)
        out[name] = points
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])

"""Read the serving figures of the Mooncake paper (Figs. 5, 8, 14 and 15b) out of the PDF's vector
drawings, into mooncake_figs.json. Run by hand (needs `pypdf`, which the tests do not):

    cd tests/sim/golden && python mooncake_figs_from_pdf.py Mooncake-FAST25.pdf > mooncake_figs.json

The paper is FAST25-release/Mooncake-FAST25.pdf in github.com/kvcache-ai/Mooncake. Each figure is
a matplotlib form XObject; each axis is calibrated from two of its own tick marks, so a value is
read to the drawing's precision (about 0.01 s), not to a pixel:
- Fig. 5 (/Im5, page 7): a box plot of TTFT per prefill scheduler (Global Cache Aware, Local Cache
  Aware, Load balancing, Random); boxes are the quartiles, a horizontal stroke across a box the
  median, whiskers the low and high ends, a triangle the mean (also printed as a label);
- Fig. 8 (/Im8, page 10): bars of the mean prefill GPU time of a request, per workload and system;
- Fig. 14 (/Im15, page 12): stacked bars of one request's latency (Schedule, Prefill, Transfer,
  Load Cache, Decode) at 8K ... 128K tokens, 0% and 95% cached;
- Fig. 15b (/Im17, page 13): mean TTFT against the P/D split of 16 nodes (5P11D ... 11P5D),
  synthetic workload.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pypdf  # type: ignore[import-not-found]

NUM = r"([\d.]+)"
RECT = re.compile(rf"\n{NUM} {NUM} m\n{NUM} \2 l\n\3 {NUM} l\n\1 \4 l\n\1 \2 l\nh")
RECT4 = re.compile(rf"\n{NUM} {NUM} m\n{NUM} \2 l\n\3 {NUM} l\n\1 \4 l\nh")


def _form(reader: Any, caption: str, name: str) -> str:
    page = next(p for p in reader.pages if caption in p.extract_text())
    data: bytes = page["/Resources"]["/XObject"][name].get_object().get_data()
    return data.decode("latin-1").replace("\x00", "")  # text is drawn in two-byte codes


def _yaxis(text: str, x: str, ticks: tuple[float, float]) -> tuple[float, float]:
    """(y of value 0, points per unit) from the tick marks at `x` labelled ticks[0], ticks[1]."""
    tick_end = f"{float(x) - 3.5:g}"  # tick marks are 3.5 pt strokes left of the axis
    ys = sorted({float(y) for y in re.findall(rf"\n{x} {NUM} m\n{tick_end} \1 l\n", text)})
    lo, hi = ys[0], ys[1]
    unit = (hi - lo) / (ticks[1] - ticks[0])
    return lo - ticks[0] * unit, unit


def fig5(reader: Any) -> dict[str, Any]:
    text = _form(reader, "Figure 5:", "/Im5")
    zero, unit = _yaxis(text, "108", (0.0, 5.0))

    def v(y: str | float) -> float:
        return round((float(y) - zero) / unit, 3)

    names = ("global cache-aware", "local cache-aware", "load-balancing", "random")
    boxes = sorted((float(x), v(b), v(t)) for x, b, _, t in RECT.findall(text))
    assert len(boxes) == 4, boxes
    whiskers: dict[str, list[float]] = {}
    for x, _top, b in re.findall(rf"\n{NUM} {NUM} m\n\1 {NUM} l\n\nS", text):
        if x not in ("108", "777.6"):
            whiskers.setdefault(x, []).append(v(b))
    medians = {
        x1: v(y)
        for x1, y, x2 in re.findall(rf"\n{NUM} {NUM} m\n{NUM} \2 l\n\nS", text)
        if float(x2) - float(x1) > 40 and 86.5 < float(y) < 380
    }
    # the mean's label over each box ("3.07"), in the boxes' order
    labels = [
        float(t.replace(" ", ""))
        for t in re.findall(r"/F1 22 Tf\n0 0 Td\n\[ \(([ \d.]+)\) \] TJ", text)
    ]
    out: dict[str, Any] = {}
    for name, (x, q1, q3), mean in zip(names, boxes, labels, strict=True):
        centre = f"{x + 33.48:g}"
        ends = sorted(whiskers[centre])  # random's upper whisker is not drawn (off the axis)
        low, high = ends[0], (ends[1] if len(ends) > 1 else None)
        out[name] = {
            "mean": mean,
            "q1": q1,
            "median": medians[f"{x:g}"],
            "q3": q3,
            "whisker_low": low,
            "whisker_high": high,
        }
    return out


def fig8(reader: Any) -> dict[str, Any]:
    text = _form(reader, "Figure 8:", "/Im8")
    zero, unit = _yaxis(text, "92.72", (0.0, 1.0))
    tops = [
        round((float(t) - zero) / unit, 3)
        for x, b, _, t in RECT4.findall(text)
        if abs(float(b) - zero) < 0.01 and float(x) > 100
    ]
    systems = ("mooncake", "vllm", "vllm prefix caching", "vllm chunked prefill")
    workloads = ("conversation", "toolagent", "synthetic")
    assert len(tops) == 12, tops
    return {
        w: dict(zip(systems, tops[4 * i : 4 * i + 4], strict=True)) for i, w in enumerate(workloads)
    }


def fig14(reader: Any) -> dict[str, Any]:
    text = _form(reader, "Figure 14:", "/Im15")
    parts = ("schedule", "prefill", "transfer", "load_cache", "decode")
    lengths = ("8k", "16k", "32k", "64k", "128k")
    out: dict[str, Any] = {}
    panels = (("cached_0", "143.93", (0.0, 10.0)), ("cached_95", "829.64", (0.0, 2.0)))
    for panel, axis_x, ticks in panels:
        _, unit = _yaxis(text, axis_x, ticks)  # stacked segments: heights only
        rects = [
            (float(x), float(b), float(t))
            for x, b, _, t in RECT4.findall(text)
            if float(axis_x) < float(x) < float(axis_x) + 560
            and float(t) - float(b) < 420
            and float(b) < 560  # the legend's swatches lie above the axes
        ]
        bars: dict[float, list[float]] = {}
        for x, b, t in sorted(rects, key=lambda r: (r[0], r[1])):
            bars.setdefault(x, []).append(round((t - b) / unit, 3))
        assert len(bars) == 5 and all(len(s) == 5 for s in bars.values()), bars
        out[panel] = {
            n: dict(zip(parts, bars[x], strict=True))
            for n, x in zip(lengths, sorted(bars), strict=True)
        }
    return out


def fig15b(reader: Any) -> dict[str, float]:
    text = _form(reader, "Figure 15:", "/Im17")
    zero, unit = _yaxis(text, "105.68", (2.0, 4.0))
    lines = re.findall(r"\n((?:[\d.]+ [\d.]+ [ml]\n){7})", text)
    ttft = lines[0].strip().splitlines()
    splits = [f"{p}P{16 - p}D" for p in range(5, 12)]
    return {
        s: round((float(line.split()[1]) - zero) / unit, 3)
        for s, line in zip(splits, ttft, strict=True)
    }


def main(path: str) -> None:
    reader = pypdf.PdfReader(path)
    out = {
        "source": "Qin et al., Mooncake (FAST'25); github.com/kvcache-ai/Mooncake "
        "FAST25-release/Mooncake-FAST25.pdf (Apache-2.0)",
        "method": "read from the figures' vector paths by "
        "tests/sim/golden/mooncake_figs_from_pdf.py",
        "fig5_ttft_s": fig5(reader),
        "fig8_prefill_gpu_time_s": fig8(reader),
        "fig14_latency_s": fig14(reader),
        "fig15b_ttft_s": fig15b(reader),
    }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])

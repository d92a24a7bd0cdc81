"""The suite's user-turn gaps, measured on a public production trace (Mooncake's
conversation trace): how long a user takes to send the next turn of a conversation.

The trace (kvcache-ai/Mooncake, FAST25-release/traces/conversation_trace.jsonl, Apache-2.0)
has one JSON object a request: `timestamp` (ms), `input_length` and `hash_ids`, one id per
512-token block, chained (the same id always has the same parent and position). A request that
continues a conversation starts with every full block of the conversation's previous request,
so its previous turn is the latest earlier request whose last full block it contains at the same
position; the gap is the time between the two requests' arrivals.

Conversations are split by their first request's line number into a development half (even:
the product's default gaps, `prefixlock.guard.turn_end.DEFAULT_TURN_GAPS`) and a test half
(odd: the gaps the suite draws, `scenario.TURN_GAPS`), so the default is never scored on the
gaps it was fitted to. `python -m prefixlock.versus.rates TRACE` prints both halves'
quantiles and shares (docs/turn-gaps.md has the figures and what they leave out).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

BLOCK = 512  # tokens a hash id stands for
SUITE_POINTS = 40  # quantiles the suite draws from (`scenario.TURN_GAPS`)
PRIOR_POINTS = 10  # quantiles the product's prior keeps (`DEFAULT_TURN_GAPS`: its weight)


def follow_up_gaps(rows: Iterable[dict[str, object]]) -> tuple[list[float], list[float]]:
    """(development, test) gaps in seconds between consecutive turns of one conversation,
    from the trace's requests in order."""
    last_full: dict[tuple[int, int], int] = {}  # (position, id) -> latest request ending there
    root: list[int] = []  # each request's conversation's first request
    times: list[float] = []
    dev: list[float] = []
    test: list[float] = []
    for i, row in enumerate(rows):
        ids = [int(x) for x in row["hash_ids"]]  # type: ignore[attr-defined]
        length = int(row["input_length"])  # type: ignore[call-overload]
        times.append(float(row["timestamp"]) / 1000.0)  # type: ignore[arg-type]
        parent = None
        # Position 0 is the system prompt every conversation starts with (id 0): no turn.
        for pos in range(len(ids) - 1, 0, -1):
            parent = last_full.get((pos, ids[pos]))
            if parent is not None:
                break
        root.append(i if parent is None else root[parent])
        if parent is not None:
            (dev if root[i] % 2 == 0 else test).append(times[i] - times[parent])
        full = len(ids) if length % BLOCK == 0 else len(ids) - 1
        if full > 1:
            last_full[(full - 1, ids[full - 1])] = i
    return dev, test


def quantiles(gaps: Sequence[float], points: int) -> tuple[float, ...]:
    """`points` equally spaced quantiles (the midpoints of `points` equal shares), rounded to
    the second: drawing one of them uniformly draws from the measured distribution."""
    ordered = sorted(gaps)
    n = len(ordered)
    return tuple(
        float(round(ordered[min(math.floor((k + 0.5) / points * n), n - 1)])) for k in range(points)
    )


def describe(name: str, gaps: Sequence[float], points: int) -> str:
    n = len(gaps)
    if not n:
        return f"{name}: no turn gaps"
    share = ", ".join(
        f"over {label} {sum(1 for g in gaps if g > s) / n:.3f}"
        for label, s in (("1 min", 60), ("5 min", 300), ("10 min", 600), ("30 min", 1800))
    )
    return f"{name}: {n} turn gaps; {share}; {points} quantiles {list(quantiles(gaps, points))}"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m prefixlock.versus.rates CONVERSATION_TRACE.jsonl", file=sys.stderr)
        return 2
    path = Path(args[0])
    try:
        with path.open(encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    span = max(float(r["timestamp"]) for r in rows) / 1000.0 if rows else 0.0
    dev, test = follow_up_gaps(rows)
    print(f"{path.name}: {len(rows)} requests over {span / 60:.1f} min")
    print(describe("development half (even conversations)", dev, PRIOR_POINTS))
    print(describe("test half (odd conversations)", test, SUITE_POINTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

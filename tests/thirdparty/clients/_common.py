"""What every client program shares: its arguments, a system prompt long enough to cache, the
user turns, and how a turn is reported (one JSON line on stdout)."""

from __future__ import annotations

import json
import sys

USAGE = "usage: python CLIENT.py BASE_URL API_KEY  (BASE_URL without /v1)"

SYSTEM = "You are the build doctor of a large Python repository.\n" + "\n".join(
    f"Rule {i}: when a check fails in module m{i % 37}, read its log, name the first error, "
    f"and propose the smallest fix (keep {i % 11} lines of context)."
    for i in range(300)
)

QUESTIONS = (
    "CI is red on main. Where do I start?",
    "The first error is an ImportError in m3. What now?",
    "Fixed. Anything else to check before I merge?",
)

# A longer session for the clients that go through `prefixlock proxy` (the repairs pay from the
# second turn on, so more turns show the steady state).
SESSION = (
    *QUESTIONS,
    "The lint job is red too: module m7 has an unused import. Fix or ignore?",
    "Now m12 times out in CI only. What do I look at first?",
    "The timeout was a DNS lookup in a test. How do I keep tests offline?",
    "Write the commit message for these three fixes.",
    "Last one: which of these checks should block a merge?",
)


def args() -> tuple[str, str]:
    if len(sys.argv) != 3:
        print(USAGE, file=sys.stderr)
        raise SystemExit(2)
    return sys.argv[1].rstrip("/"), sys.argv[2]


def report(turn: int, text: str, **extra: object) -> None:
    print(json.dumps({"turn": turn, "text": text, **extra}), flush=True)

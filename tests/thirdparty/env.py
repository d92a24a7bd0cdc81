"""Third-party clients' own environment: one virtualenv per requirement set, built once.

`thirdparty_python(requirements)` returns the python of a venv holding exactly those packages,
built by the product's venv builder (prefixlock.versus.venvs, which also builds the peers of
`prefixlock demo --versus peers`) under `$PREFIXLOCK_THIRDPARTY_DIR` or
`~/.cache/prefixlock/thirdparty/`, in a folder named by a hash of the requirements and the
interpreter's version. Never our venv: the clients run unchanged, with their own dependency pins,
beside nothing of prefixlock. When the venv cannot be built (offline, no such version) it raises
`EnvUnavailable` with pip's last words, which the tests turn into a skip.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from prefixlock.versus.venvs import VenvUnavailable as EnvUnavailable
from prefixlock.versus.venvs import ensure_venv, env_key

__all__ = ["CLIENTS", "EnvUnavailable", "cache_root", "env_key", "thirdparty_python"]

# Every client of the compatibility suite shares one venv: their pins allow it, and CI builds it
# once. Minimums are the versions the suite was written against (the features it drives:
# pydantic-ai's Anthropic cache settings and `openai_previous_response_id`, LangChain v1's
# middleware, openai-agents' `previous_response_id`).
CLIENTS = (
    "anthropic>=0.75",
    "openai>=2.8",
    "pydantic-ai-slim[anthropic,openai]>=1.40",
    "openai-agents>=0.6",
    "langchain>=1.1",
    "langchain-anthropic>=1.2",
)


def cache_root() -> Path:
    configured = os.environ.get("PREFIXLOCK_THIRDPARTY_DIR")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "prefixlock" / "thirdparty"


def thirdparty_python(
    requirements: Sequence[str] = CLIENTS, *, root: Path | None = None, timeout: float = 1500
) -> Path:
    """The python of a venv with `requirements` installed, building it on first use."""
    return ensure_venv(
        (root or cache_root()) / env_key(requirements),
        requirements,
        what="the third-party venv",
        timeout=timeout,
    )


if __name__ == "__main__":  # `python -m tests.thirdparty.env`: build it, print its python
    print(thirdparty_python())

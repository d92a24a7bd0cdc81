"""`--wait` on `prefixlock chat --resume` and `prefixlock run --resume`: the value checked, the
busy session waited for (bounded), and the one line said while waiting.

The wait itself is `SessionStore.acquire(wait=, reserve=True)` on the store's clock (`run` and
the chat's start-up both), and the store is then given to the Agent that resumes: the lease a
waiter gets is the one it works under (taking it and giving it back before resuming let another
waiter take it in between). A session still busy when the time is up is one line and exit 2
(SessionBusyError).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TextIO

from ..errors import ConfigError
from .leases import Lease

DEFAULT_WAIT_S = 300.0  # `--wait` without a value


def wait_seconds(value: str | None, *, resume: str | None, fork: bool) -> float:
    """`--wait [SECONDS]` as seconds (0.0: not given), checked with --resume and --fork (a
    --fork without --resume is refused here too: both commands check their flags here)."""
    if fork and not resume:
        raise ConfigError("--fork needs --resume ID (the session to fork)", where="--fork")
    if value is None:
        return 0.0
    if not resume:
        raise ConfigError("--wait needs --resume ID (the session to wait for)", where="--wait")
    if fork:
        raise ConfigError(
            "--fork does not wait (it continues a copy now): give one of --fork and --wait",
            where="--wait",
        )
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(
            f"not a number of seconds > 0: {value!r} (e.g. --wait 120)", where="--wait"
        )
    return seconds


def announcer(session_id: str, seconds: float, say: TextIO) -> Callable[[Lease | None], None]:
    """The `on_wait` of a wait for `session_id`: says once on `say` who holds it and for how
    long this process waits."""

    def note(holder: Lease | None) -> None:
        who = holder.describe() if holder is not None else "another process"
        print(
            f"prefixlock: session {session_id!r} is open in {who}; waiting up to "
            f"{seconds:g} s for it to close (Ctrl-C to stop)",
            file=say,
            flush=True,
        )

    return note

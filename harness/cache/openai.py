"""OpenAI's prompt cache: 128-token blocks up to gpt-5.5, breakpoints from gpt-5.6.

Up to gpt-5.5 a prompt of at least the model's minimum stores every whole 128-token block, each
keyed by a chained hash from a hash of the model, and a later prompt reads its leading blocks
that are stored; a read under the minimum counts nothing. gpt-5.6 and later write entries only
at breakpoints (at most four a request) and match one only exactly at its end; `units` labels
which units carry one (`openai_breakpoint_labels`). The guard and the emulator both call these.

How long a block lives: up to gpt-5.5, the model's in-memory retention (the price table's
`cache_ttl_seconds`; "5-10 minutes" of inactivity, `IN_MEMORY_SECONDS` where the model is not
known), or a day with `prompt_cache_retention="24h"` (`retention_seconds`); from gpt-5.6, a
breakpoint's own TTL (`TTL_SECONDS`, 30 minutes by default).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..canonical import chain_hash
from .prefix import Write
from .units import IMPLICIT, OPENAI_DEFAULT_TTL, Unit

BLOCK_TOKENS = 128
MIN_TOKENS = 1024  # the shortest prompt OpenAI caches (a model's own is in the price table)
MAX_WRITES = 4  # cache writes per request, the implicit one included (gpt-5.6 and later)
TTL_SECONDS = {"30m": 1800.0, "12h": 43200.0}  # gpt-5.6 and later, by breakpoint TTL
# `prompt_cache_retention` (up to gpt-5.5): "in_memory", the default, keeps a block the model's
# in-memory retention; "24h" (extended retention) a day.
RETENTIONS = ("in_memory", "24h")
EXTENDED_RETENTION_SECONDS = 24 * 3600.0
IN_MEMORY_SECONDS = 600  # "5-10 minutes" (best effort): the longer figure

K = TypeVar("K")
T = TypeVar("T")


# ---- up to gpt-5.5: whole blocks -------------------------------------------------------------


def retention_seconds(retention: object, in_memory: float) -> float:
    """How long a block of a request with `prompt_cache_retention` `retention` (None: not sent)
    lives: a day for "24h", else the model's in-memory retention `in_memory`."""
    return EXTENDED_RETENTION_SECONDS if retention == "24h" else in_memory


def block_keys(
    model: str, tokens: Sequence[int], block: int = BLOCK_TOKENS, into: list[str] | None = None
) -> list[str]:
    """The key of each whole `block`-token block of `tokens`: a hash chained from a hash of
    the model, so a key names its block together with everything before it.

    `into`: keys already made for a leading part of `tokens` (extended in place and returned),
    so a caller that keeps the last prompt's keys hashes only the new blocks."""
    keys = [] if into is None else into
    parent = keys[-1] if keys else chain_hash("", model.encode("utf-8"))
    for start in range(len(keys) * block, len(tokens) - block + 1, block):
        parent = chain_hash(parent, array("I", tokens[start : start + block]).tobytes())
        keys.append(parent)
    return keys


def whole_blocks(tokens: int, block: int = BLOCK_TOKENS) -> int:
    """`tokens` rounded down to whole blocks: the cache keeps nothing of a partial block."""
    return tokens - tokens % block


def cached_tokens(blocks: int, n_tokens: int, min_tokens: int, block: int = BLOCK_TOKENS) -> int:
    """Tokens read when the first `blocks` blocks of an `n_tokens` prompt are stored: nothing for
    a prompt or a read under the minimum."""
    if n_tokens < min_tokens:
        return 0
    read = blocks * block
    return read if read >= min_tokens else 0


def read_blocks(
    keys: Sequence[K],
    present: Callable[[K], bool],
    n_tokens: int,
    min_tokens: int,
    block: int = BLOCK_TOKENS,
) -> int:
    """Tokens a prompt of `n_tokens` with block `keys` reads. `present(key)` asks the cache (and
    may refresh the block); it is asked from the first block on until a block is missing, and
    not at all under the minimum."""
    if n_tokens < min_tokens:
        return 0
    n = 0
    for key in keys:
        if not present(key):
            break
        n += 1
    return cached_tokens(n, n_tokens, min_tokens, block)


def block_writes(
    n_tokens: int, read_tokens: int, min_tokens: int, block: int = BLOCK_TOKENS
) -> tuple[int, int]:
    """(blocks stored, tokens newly written) of a prompt that read `read_tokens`: a prompt at or
    above the minimum stores every whole block (refreshing those it read), one under it none."""
    if n_tokens < min_tokens:
        return 0, 0
    stored = n_tokens // block
    return stored, max(stored * block - read_tokens, 0)


# ---- gpt-5.6 and later: breakpoints ----------------------------------------------------------


def explicit_room(mode: str) -> int:
    """How many explicit marks a request writes: all four writes in explicit mode, three beside
    the implicit breakpoint otherwise."""
    return MAX_WRITES - (0 if mode == "explicit" else 1)


def select_writes(
    explicit: Sequence[T], implicit: Sequence[T], mode: str
) -> tuple[list[T], list[T]]:
    """(breakpoints written, explicit marks not written) of one request: in implicit mode its
    implicit breakpoint and the latest three explicit marks, in explicit mode the latest four
    (the SDK's `PromptCacheOptions.mode` docs). Unwritten marks stay matchable where an earlier
    request wrote them."""
    room = explicit_room(mode)
    return [*explicit[-room:], *implicit], list(explicit[:-room])


def breakpoint_read(units: Sequence[Unit], present: Callable[[Unit], bool], min_tokens: int) -> int:
    """Position of the unit whose entry the request reads, or -1.

    Entries exist only where breakpoints were written, and one is matched only exactly at its
    end: the longest prefix of this request that has an entry wins. `present(unit)` asks the
    cache (and may refresh the entry it finds)."""
    for u in reversed(units):
        if u.end < min_tokens:
            break  # ends only shrink from here, and nothing shorter was ever written
        if present(u):
            return u.position
    return -1


def breakpoint_writes(
    units: Sequence[Unit], read_position: int, mode: str, min_tokens: int, request_ttl: str
) -> list[Write]:
    """The entries a request that read the entry at `read_position` (-1: none) writes.

    Those `select_writes` picks, less any under `min_tokens` or at or before what was read.
    Their spans add up to the tokens between the read point and the last breakpoint written;
    what follows it is plain uncached input. An explicit mark's TTL is its own, the implicit
    breakpoint's the request's (`prompt_cache_options.ttl`)."""
    marks = [u for u in units if u.breakpoint is not None]
    chosen, _ = select_writes(
        [u for u in marks if u.breakpoint != IMPLICIT],
        [u for u in marks if u.breakpoint == IMPLICIT],
        mode,
    )
    default = TTL_SECONDS.get(request_ttl, TTL_SECONDS[OPENAI_DEFAULT_TTL])
    out: list[Write] = []
    prev = units[read_position].end if read_position >= 0 else 0
    for u in sorted(chosen, key=lambda u: u.position):
        if u.end < min_tokens or u.position <= read_position:
            continue
        label = u.breakpoint or IMPLICIT
        seconds = default if label == IMPLICIT else TTL_SECONDS.get(label, default)
        out.append(Write(u, u.end - prev, seconds))
        prev = u.end
    return out

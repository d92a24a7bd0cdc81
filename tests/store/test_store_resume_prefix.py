"""Resuming with an agent whose prefix differs from the stored one: kept, but said.

The resumed session keeps the stored prefix (that is what reads the cache), and it tells the
user: `s.resumed_prefix_differs` / `s.agent_prefix`, and its first send yields one
`ResumedPrefixDiffers` notice carrying the quote of moving to the agent's prefix, which
`change_prefix` can then apply.
"""

from __future__ import annotations

from pathlib import Path

from prefixlock.events import CacheBreak, PrefixChanged, ResumedPrefixDiffers, UsageReport
from prefixlock.store.database import SessionStore
from tests.helpers.guardkit import SYSTEM, advance, agent, prefix, start_emulator, turn

PREFIX_B = prefix(system=SYSTEM + " Rule B: answer in French.")


async def test_a_resume_with_another_prefix_keeps_the_stored_one_and_says_so(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        async with agent(emu, store=SessionStore(db)).session("s1") as s:
            await turn(s, "Turn 1: look at src/app.py.")
            stored = s.prefix
        advance(emu, 10)
        b = agent(emu, pfx=PREFIX_B, store=SessionStore(db))
        async with b.resume("s1") as again:
            assert again.prefix.fingerprint == stored.fingerprint  # still A: the cache reads
            assert again.resumed_prefix_differs is True
            assert again.agent_prefix is PREFIX_B
            events = await turn(again, "Turn 2: and now?")
            (notice,) = [e for e in events if isinstance(e, ResumedPrefixDiffers)]
            assert notice.stored_fingerprint == stored.fingerprint
            assert notice.agent_fingerprint == PREFIX_B.fingerprint
            assert notice.quote is not None and notice.quote.action == "change_prefix"
            assert notice.quote.tokens_rebilled > 0  # moving would re-bill the cached prefix
            # It came before the request, which read the stored prefix's cache.
            assert events.index(notice) < events.index(
                next(e for e in events if isinstance(e, UsageReport))
            )
            assert not [e for e in events if isinstance(e, CacheBreak)]
            # Once only.
            later = await turn(again, "Turn 3: once more.")
            assert not [e for e in later if isinstance(e, ResumedPrefixDiffers)]
            # The user decides: a fresh quote moves the session to the agent's prefix.
            again.change_prefix(again.agent_prefix, quote=again.quote_prefix(again.agent_prefix))
            assert again.prefix.fingerprint == PREFIX_B.fingerprint
            assert again.resumed_prefix_differs is False
            moved = await turn(again, "Turn 4: on B.")
            assert [e.reason for e in moved if isinstance(e, PrefixChanged)] == ["prefix"]


async def test_a_resume_with_the_same_prefix_says_nothing(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("same") as s:
            await turn(s, "Turn 1: look at src/app.py.")
        async with agent(emu, store=SessionStore(db)).resume("same") as again:
            assert again.resumed_prefix_differs is False
            assert again.agent_prefix.fingerprint == again.prefix.fingerprint
            events = await turn(again, "Turn 2.")
        assert not [e for e in events if isinstance(e, ResumedPrefixDiffers)]


async def test_a_new_session_never_differs(tmp_path: Path) -> None:
    with start_emulator() as emu:
        async with agent(emu, pfx=PREFIX_B).session() as s:
            assert s.resumed_prefix_differs is False and s.agent_prefix is PREFIX_B

"""What `Session.send()` returns: the turn's events as an async generator, which says how to
use it when it is awaited instead of iterated.

`await s.send("...")` would otherwise fail with Python's generic "object async_generator can't
be used in 'await' expression", which names neither the session nor the fix.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from types import TracebackType
from typing import Any, NoReturn

from .errors import UserError
from .events import Event


class Turn(AsyncGenerator[Event, None]):
    """One turn's events, in order (`async for event in s.send(...)`); an async generator
    over the session's loop, with `aclose()` to stop reading early."""

    def __init__(self, events: AsyncGenerator[Event, None]) -> None:
        self._events = events

    def __aiter__(self) -> Turn:
        return self

    async def __anext__(self) -> Event:
        return await self._events.__anext__()

    async def asend(self, value: None) -> Event:
        """The next event (what `async for` asks for)."""
        return await self._events.asend(value)

    async def athrow(
        self,
        typ: type[BaseException] | BaseException,
        val: BaseException | object = None,
        tb: TracebackType | None = None,
    ) -> Event:
        """Raise an exception inside the turn (as an async generator's `athrow`)."""
        if val is None and tb is None:
            return await self._events.athrow(typ)
        return await self._events.athrow(typ, val, tb)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        """Stop the turn: what it already billed is ledgered, the rest is not sent."""
        await self._events.aclose()

    def __await__(self) -> Generator[Any, None, NoReturn]:
        raise UserError(
            "send() is not awaited: iterate its events with `async for event in "
            "s.send(...)`, or use `await s.ask(...)` for the final text and `await "
            "s.run(..., OutputType)` for a validated object",
            where="send",
        )

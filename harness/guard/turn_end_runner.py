"""The end of a turn for one session: applies the agent's `CachePolicy` to the gap before the
user's next turn (prefixlock.guard.turn_end decides, purely).

After the model's final answer the runner plans with the user's turn gaps (their recent sessions
in the store, read once per session, and this session's own) and then either plans the seal (the
conversation with the answer, written at the 1-hour TTL by an output-free request, ledgered and
stored as a keep-alive request) for when the turn's 5-minute entries are about to expire and
the user has not come back, turns keep-alive pings on with the planned cap, or does nothing.
Seal and pings go out on the session's keep-alive ticks (`keepalive_tick`, `run_keepalive`:
the keep-alive runner asks this runner first), never both for one gap. Sent at expiry rather
than with the answer, a seal costs nothing when the user is back within the TTL. A seal that
fails is reported as a final `ProviderFault`. The same ticks send the reads of the tools-and-system
entry that `prefixlock.guard.prefix_keep_runner` plans for a compaction ahead.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from ..cache.defaults import model_ttl
from ..cache.openai import retention_seconds
from ..errors import ProviderError
from ..events import Event, KeepAlivePing, ProviderFault
from ..providers import SDKProvider
from ..providers.anthropic import ANCHOR_MAX_TOKENS, mark_block
from ..settings import Settings
from ..state import SessionAgent, SessionState
from ..store.errors import StoreError
from ..store.recorder import Recorder
from ..transcript import Message
from ..wire import WireRequest
from .keepalive import KeepAlive, ping_request
from .keepalive_runner import KeepAliveRunner
from .policy import extended_retention
from .prefix_keep_runner import PrefixKeepRunner
from .tracker import GuardTracker
from .turn_end import (
    HISTORY_SESSIONS,
    TurnEndPlan,
    can_hold,
    expected_gaps,
    hold_pays,
    plan_turn_end,
    turn_gaps,
)

if TYPE_CHECKING:
    from .policy import CachePolicy

# CachePolicy.idle -> the turn-end way it asks for ("24h" is OpenAI's retention, a setting).
_MODES: dict[str, Literal["auto", "seal", "pings", "off"]] = {
    "auto": "auto",
    "1h": "seal",
    "pings": "pings",
    "off": "off",
    "24h": "off",
}
SEAL_NOTE = "(cache write before a pause: no reply needed)"
# Tokens over the reply's own that a held request may write at 1h: the role markers and a
# tokenizer's rounding between the transcript's count and the request's units.
REPLY_SLACK = 16
TRUST_ROWS = 8  # recent requests whose reads must have matched the guard's before holding
MARGIN = 30.0  # seconds before the turn's entries expire at which the seal (or a ping) goes
PING_CAP = "50"  # dollars: the pings' session-wide cap when the plan turns them on


def anchor_room(request: WireRequest, read: int) -> int:
    """Tokens more than the reply that a held request may write at 1h when it reads the entry
    before its prefix's anchor line (the first request left its short opening unmarked,
    `prefixlock.providers.anthropic.first_unmarked`): the line and the opening."""
    prefix = [u for u in request.units if u.section != "messages"]
    if len(prefix) < 2 or prefix[-1].breakpoint != "1h" or read != prefix[-2].end:
        return 0
    if prefix[-2].section != "system":
        return 0
    return prefix[-1].tokens + ANCHOR_MAX_TOKENS


# How many of this session's own turn gaps the plan keeps (the newest): far more than the
# defaults' weight (ten gaps) and than any session's recent habits need.
OWN_GAPS = 1000


class TurnEndRunner:
    """Meets the gap after each turn as the agent's policy plans it."""

    def __init__(
        self,
        state: SessionState,
        tracker: GuardTracker,
        recorder: Recorder,
        pings: KeepAliveRunner,
        agent: SessionAgent,
    ) -> None:
        self.state = state
        self.tracker = tracker
        self.recorder = recorder
        self.pings = pings
        self.agent = agent
        self.plan: TurnEndPlan | None = None  # the last turn's plan
        self.seals: int = 0
        self._stored: list[float] | None = None  # gaps of the user's stored sessions
        # This process's gaps of this session, the newest OWN_GAPS: the plan weighs every gap
        # it is given alike, so a window of recent ones plans as the whole history would for any
        # realistic session, and a chat of thousands of turns does not keep a float a turn.
        # Packed doubles (8 bytes a gap), not a deque of float objects (32 with its slot).
        self._own = array("d")
        self._ended: float | None = None  # when the last turn ended
        self._due: float | None = None  # when the planned seal goes out
        self._model: str | None = None  # the model of the last turn
        self._home: str | None = None  # the model the user left for this one, while away
        self._home_left: float | None = None  # when the home model's cache was last used
        self._home_due: float | None = None  # when its 1-hour write goes out
        self._planned_pings: KeepAlive | None = None  # pings this runner turned on
        # Reads of the tools-and-system entry in long gaps, for a compaction ahead.
        self.prefix_keep = PrefixKeepRunner(
            state, tracker, recorder, agent, self.gaps, lambda: self._home
        )
        pings.turn_end = self
        self.keep_for_a_day()

    def keep_for_a_day(self) -> None:
        """On an OpenAI model whose day-long retention bills as in-memory caching, ask for it
        (`prompt_cache_retention="24h"`): it keeps what every gap under a day would lose, at no
        premium, so the policy (`idle` "auto" or "24h") takes it unless the user set one."""
        s = self.state
        price = self.agent.prices.lookup(s.model)
        if price is None or not extended_retention(price) or s.settings.retention is not None:
            return
        if self.policy.idle in ("auto", "24h") and s.provider.api != "openai-compat":
            s.settings = s.settings.with_(retention="24h")

    @property
    def policy(self) -> CachePolicy:
        return self.agent.policy

    def turn_started(self, now: float) -> None:
        if self._ended is not None:
            own = self._own
            own.append(max(now - self._ended, 0.0))
            if len(own) > OWN_GAPS:
                del own[0]  # the oldest (1,000 doubles moved: less than a turn's other work)
        self._ended = None
        self._home_due = None
        self.prefix_keep.turn_started()
        model = self.state.model
        if self._model is not None and model != self._model:
            # An excursion: the model the user left is where they may well come back to.
            self._home = None if model == self._home else self._model
            rows = self.state.ledger.rows
            self._home_left = rows[-1].time if rows else None  # its cache's last refresh
        self._model = model
        self._due = None  # the user is back before the seal: nothing to write at 1h

    def gaps(self) -> list[float]:
        """The turn gaps the plan uses: the user's own, the defaults filling in."""
        if self._stored is None:
            self._stored = self._stored_gaps()
        return expected_gaps([*self._stored, *self._own.tolist()])

    def _stored_gaps(self) -> list[float]:
        try:
            store = self.agent.open_store()
            if store is None:
                return []
            gaps: list[float] = []
            for record in store.sessions()[:HISTORY_SESSIONS]:
                rows = store.usage_rows(record.id)
                gaps.extend(turn_gaps((r.turn, r.kind, r.time) for r in rows))
            return gaps
        except StoreError:
            return []  # no history to read: the defaults plan alone

    def _base(self) -> WireRequest | None:
        """The last request, if the transcript continues it on the session's prefix and model."""
        s = self.state
        if not s.requests or not s.transcript.messages:
            return None
        last = s.requests[-1]
        if last.model != s.model or last.meta.get("prefix") not in (None, s.prefix.fingerprint):
            return None
        if last.meta.get("kind") == "summary" or s.transcript.messages[-1].role != "assistant":
            return None
        return last

    def build(self, pending: Sequence[Message], volatile: Sequence[str] = ()) -> WireRequest:
        """The session's next request: the transcript plus `pending`, with the TTLs `choose`
        picks for it."""
        s = self.state
        return self.choose(
            lambda settings: s.provider.build_request(
                s.prefix, s.transcript, settings, s.info, volatile, pending
            )
        )

    def choose(self, build: Callable[[Settings], WireRequest]) -> WireRequest:
        """The next request as `build` makes it from settings. Under `idle="auto"` on a model
        with a 1-hour entry, the last reply is held at 1h (`Settings.history_ttl`, the prefix
        at 1h before it) whenever that writes only the reply at 1h (`hold_pays`: the guard's
        prediction says the read reached the previous request's entry); the tail stays at the
        session's TTL. Quotes price the next request through this too."""
        s = self.state
        held = self._held_settings()
        if held is None or self._reads_fell_short():
            return self._reach_back(build(s.settings))
        request = build(held)
        pred = self.tracker.guard.predict(request, s.clock.now())
        reply = next((m for m in reversed(s.transcript.messages) if m.role == "assistant"), None)
        reply_tokens = sum(reply.block_tokens) if reply is not None else 0
        if hold_pays(pred.write_1h, reply_tokens + REPLY_SLACK + anchor_room(request, pred.read)):
            return request
        return self._reach_back(build(s.settings))

    def _reach_back(self, request: WireRequest) -> WireRequest:
        """The first request back on a model after requests on another (the turn back from a
        one-turn excursion): the model's own last entries (its held reply, at 1 hour) may lie
        more than `LOOKBACK` blocks behind this request's tail, alive but out of the read's
        reach, when the other model's turn added that many blocks; the request would then write
        the whole conversation again. One more mark, where the model's last request put one,
        lets it read them: kept where the guard predicts the longer read."""
        s = self.state
        if request.api != "anthropic" or not s.requests or s.requests[-1].model == request.model:
            return request
        own = next((r for r in reversed(s.requests) if r.model == request.model), None)
        if own is None:
            return request
        now = s.clock.now()
        guard = self.tracker.guard
        best, read = request, guard.predict(request, now).read
        for unit in own.units:
            if unit.breakpoint is None or unit.position >= len(request.units):
                continue
            if request.units[unit.position].chain != unit.chain:
                continue  # the conversation differs there: nothing of it to read
            marked = mark_block(request, unit.position)
            if marked is not None and (more := guard.predict(marked, now).read) > read:
                best, read = marked, more
        return best

    def _reads_fell_short(self) -> bool:
        """Did one of the last `TRUST_ROWS` requests read less than the guard predicted (an
        evicted entry, another machine)? A held request that misses writes its whole context
        at 2x, so on a cache that loses entries the session does not hold until it reads as
        predicted again."""
        rows = self.state.ledger.rows[-TRUST_ROWS:]
        return any(
            r.predicted_read is not None and r.usage.cache_read < r.predicted_read for r in rows
        )

    def _held_settings(self) -> Settings | None:
        """The settings that hold the last reply at 1h, if the policy and model allow it."""
        s = self.state
        settings = s.settings
        if self.policy.idle != "auto" or s.provider.api != "anthropic":
            return None
        if settings.ttl != "5m" or settings.history_ttl is not None:
            return None  # the user chose the TTLs
        if settings.prefix_ttl not in (None, "1h"):
            return None  # a 1h mark may not follow the user's 5m prefix
        price = self.agent.prices.lookup(s.model)
        if price is None or not can_hold(price):
            return None
        return settings.with_(history_ttl="1h", prefix_ttl="1h")

    def meet_next_turn(self) -> None:
        """The model answered: plan the gap to the next turn. A seal is due when the turn's
        entries are `margin` seconds from expiring and the user has not come back (sent by
        `tick`); pings are turned on with the planned cap."""
        s = self.state
        now = s.clock.now()
        self._ended = now
        self._due = self._home_due = None
        last = self._base()
        price = self.agent.prices.lookup(s.model)
        if last is None or price is None or not last.units:
            return
        answer = sum(s.transcript.messages[-1].block_tokens)
        self.prefix_keep.turn_ended(now, last.input_tokens + answer)
        # What the last request holds at 1h: its furthest 1h mark (the held reply).
        held = max((u.end for u in last.units if u.breakpoint == "1h"), default=0)
        # With OpenAI's day-long retention the cache outlives every gap under a day: the plan
        # must not price (and ping against) the in-memory 10 minutes.
        retained = s.settings.retention == "24h" and s.provider.api != "anthropic"
        plan = plan_turn_end(
            self.gaps(),
            context_tokens=last.units[-1].end,
            answer_tokens=answer,
            price=price,
            margin=MARGIN,
            mode=_MODES[self.policy.idle],
            held_tokens=held,
            ttl=retention_seconds("24h", model_ttl(price)) if retained else None,
        )
        self.plan = plan
        if self.pings.keepalive is not None and self.pings.keepalive is not self._planned_pings:
            return  # the user turned pings on: theirs alone, never a seal beside them
        if plan.mode == "pings":
            # Pings the user asked for run while they pay (keepalive.plan_ping); chosen by the
            # plan, they stop at the idle time it found cheapest.
            cap = plan.max_idle if self.policy.idle == "auto" else None
            if self.pings.keepalive is None:
                self._planned_pings = self.pings.enable(PING_CAP, MARGIN, cap)
            else:
                self.pings.keepalive.max_idle = cap
        elif plan.mode == "seal" and s.provider.api == "anthropic":
            self.pings.keepalive = self._planned_pings = None  # a seal, not pings, this gap
            self._due = now + model_ttl(price) - MARGIN
            home = self._home
            home_price = None if home is None else self.agent.prices.lookup(home)
            if home_price is not None and self._home_left is not None:
                # The model left for this turn: its entries expire on their own clock.
                self._home_due = max(self._home_left + model_ttl(home_price) - MARGIN, now)

    def due_at(self) -> float | None:
        """When the next planned seal or prefix read goes out (None: none is planned)."""
        ka = self.pings.keepalive
        # The user's own pings re-send the whole last request: they keep the prefix too.
        theirs = ka is not None and ka is not self._planned_pings
        keep = None if theirs else self.prefix_keep.due_at()
        due = (self._due, self._home_due, keep)
        return min((t for t in due if t is not None), default=None)

    async def tick(self) -> list[Event]:
        """Send the planned seals that are due, if the user has not come back."""
        now = self.state.clock.now()
        due = self.due_at()
        if due is None or now < due or self.pings.turn_in_flight:
            return []
        ka = self.pings.keepalive
        last = self._base()
        if (ka is not None and ka is not self._planned_pings) or last is None:
            self._due = self._home_due = None  # the user turned pings on: theirs alone
            return []
        events: list[Event] = []
        async with self.pings.turn():
            if self._home_due is not None and now >= self._home_due:
                self._home_due = None
                home = self._home
                if home is not None and home != self.state.model:
                    # After a one-turn excursion the user may come back to the model they
                    # left: its cache of the conversation is kept for the hour too (the
                    # write is of the excursion's messages, which the turn back would write
                    # anyway).
                    provider = self.agent.provider(home)
                    try:
                        events += await self._seal(last, provider)
                    finally:
                        await provider.aclose()
            if self._due is not None and now >= self._due:
                self._due = None
                events += await self._seal(last, self.state.provider)
            events += await self.prefix_keep.tick()  # after a seal, which may refresh it
        return events

    async def _seal(self, last: WireRequest, provider: SDKProvider) -> list[Event]:
        """Write the conversation with its final answer at the 1-hour TTL, output-free, on
        `provider`'s model."""
        s = self.state
        settings = s.settings.with_(ttl="1h", prefix_ttl="1h")
        built = provider.build_request(s.prefix, s.transcript, settings, s.info, (SEAL_NOTE,))
        seal = ping_request(built)
        now = s.clock.now()
        pred = self.tracker.guard.predict(seal, now)
        if pred.read <= 0:
            return []  # the cache is cold already: nothing left to keep
        events: list[Event] = []
        try:
            reply = await provider.complete(seal, events)
        except ProviderError as exc:
            events.append(ProviderFault(exc.status, f"turn-end cache write: {exc}", 1, False))
            return events
        row = self.tracker.pinged(seal, pred, reply.usage, now, previous=last)
        row.meta["seal"] = "1h"
        self.recorder.ping(seal, row)
        self.seals += 1
        events.append(KeepAlivePing(reply.usage.cache_read, row.cost))
        return events

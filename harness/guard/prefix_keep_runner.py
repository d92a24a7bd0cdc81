"""Keep-alive reads of one session's tools-and-system entry while the user is away, when
`prefixlock.guard.prefix_keep.plan_prefix_keep` (pure) says the compaction ahead pays for them.

The turn-end runner asks this runner when its next read is due (`due_at`) and lets it send on
the session's keep-alive ticks (`tick`), after any turn-end seal. A read is the session's tools
and system prompt with a one-line note as the only message and no output (`max_tokens: 0`, the
warm-up Anthropic documents): it reads the prefix entry (0.1x) and refreshes it for its TTL. It
is ledgered and stored as a keep-alive ping; the guard learns its entries without taking it as
the conversation's last request. Only under `CachePolicy(idle="auto")`, on Anthropic, with
`Settings.compact_at` set: without a compaction ahead nothing reads the entry again.

A session with `compact_at` has an anchored prefix (`prefixlock.providers.anthropic.
anchored_system`): there the read carries the prefix's marks at 1 hour and writes the anchor
line's 1-hour entry from the 5-minute entry before it, once after each cold write of the
prefix that the first request's opening did not already anchor (docs/savings.md#the-prefix-anchor).

While the user is on another model for a turn (the turn-end runner's home model, the one they
left), the read goes to the home model: its prefix entry ages on its own clock during the
excursion, and the compaction is made on the model the session spends its requests on.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ..errors import ProviderError
from ..events import Event, KeepAlivePing, ProviderFault
from ..providers.anthropic import anchored_system, without_message_breakpoints
from ..providers.sdk_provider import Builder, make_builder
from ..state import SessionAgent, SessionState
from ..store.recorder import Recorder
from ..transcript import Message, Transcript
from ..wire import WireRequest
from .keepalive import ping_request
from .prefix_keep import PrefixKeep, plan_prefix_keep, turns_to_compaction
from .tracker import GuardTracker

NOTE = "(cache keep-alive of the system prompt: no reply needed)"
MARGIN = 30.0  # seconds before the entry expires at which the read goes


def _prefix_end(request: WireRequest) -> int:
    """Tokens of `request`'s tools and system prompt."""
    return max((u.end for u in request.units if u.section != "messages"), default=0)


class PrefixKeepRunner:
    """Reads the session's prefix entry in long gaps while a compaction ahead pays for it."""

    def __init__(
        self,
        state: SessionState,
        tracker: GuardTracker,
        recorder: Recorder,
        agent: SessionAgent,
        gaps: Callable[[], list[float]],
        home: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.state = state
        self.tracker = tracker
        self.recorder = recorder
        self.agent = agent
        self.gaps = gaps  # the user's expected turn gaps (the turn-end runner's)
        self.home = home  # the model the user left for this one, while away (None: none)
        self.reads = 0
        self.plan: PrefixKeep | None = None  # the last decision
        self._context: int | None = None  # the context the next turn carries
        self._ended: float | None = None  # when the last turn ended (None: a turn runs)
        self._memo: tuple[tuple[int, float], WireRequest | None, float | None] | None = None
        self._note_builders: dict[str, Builder] = {}  # the note's own builder, by model
        # The user prompts counted so far: (the transcript, messages counted, prompts). The
        # transcript only grows; a new one (a fork, a compaction) is counted afresh.
        self._counted: tuple[Transcript, int, int] | None = None

    def _prompts(self, transcript: Transcript) -> int:
        """User prompts in `transcript` (user messages with no tool result), counting only
        the messages added since the last call: read at every turn's end, a count of them all
        decoded the whole conversation each time."""
        held = self._counted
        start, count = (held[1], held[2]) if held is not None and held[0] is transcript else (0, 0)
        if start > len(transcript):
            start, count = 0, 0
        for i in range(start, len(transcript)):
            m = transcript[i]
            if m.role == "user" and not m.has_tool_result():
                count += 1
        self._counted = (transcript, len(transcript), count)
        return count

    def turn_started(self) -> None:
        self._ended = None
        self._memo = None

    def turn_ended(self, now: float, context: int) -> None:
        """The model answered; the context the next turn carries is `context` tokens."""
        self._ended = now
        self._context = context
        self._memo = None

    def growth(self) -> float:
        """Tokens the context grows per user turn: the conversation past the prefix over the
        user prompts it holds (a compacted conversation counts from its summary on, which sits
        in the prefix; a resumed one holds every turn since)."""
        s = self.state
        prompts = self._prompts(s.transcript)
        if self._context is None or not prompts or not s.requests:
            return 0.0
        return max(self._context - _prefix_end(s.requests[-1]), 0) / prompts

    def on_model(self, model: str | None = None) -> float:
        """The chance that the compaction is made on `model` (default: the session's model
        now): the share of the session's requests sent on it, by the rule of succession (a
        model the user moved to for a turn holds few of them; the first model, most)."""
        s = self.state
        model = model or s.model
        here = sum(1 for r in s.requests if r.model == model)
        return (here + 1) / (len(s.requests) + 2)

    def target(self) -> str:
        """The model whose prefix entry the read keeps: the one the user left for this turn,
        while they are on another (its entry expires during the excursion, unread), else the
        session's model."""
        home = self.home()
        return home if home is not None and home != self.state.model else self.state.model

    def _limit(self) -> float | None:
        """The compaction threshold in tokens (None: the session does not compact)."""
        s = self.state
        price = self.agent.prices.lookup(self.target())
        at = s.settings.compact_at
        if at is None or price is None or price.context_window is None:
            return None
        return at * price.context_window

    def _request(self) -> WireRequest | None:
        """The prefix read for this session now, if one may be worth sending."""
        s = self.state
        if self.agent.policy.idle != "auto" or s.provider.api != "anthropic":
            return None
        if self._ended is None or not s.requests or self._limit() is None:
            return None
        last = s.requests[-1]
        if last.model != s.model or last.meta.get("prefix") not in (None, s.prefix.fingerprint):
            return None
        model = self.target()
        if model != s.model:
            home = self.agent.prices.lookup(model)
            if home is None or home.provider != "anthropic":
                return None  # the user left a model of another provider
            if not any(
                r.model == model and r.meta.get("prefix") in (None, s.prefix.fingerprint)
                for r in s.requests
            ):
                return None  # the home model never held this prefix: nothing of it to keep
        # An anchored prefix (a session that compacts): the read carries the prefix's marks at
        # 1 hour, so it writes the anchor line's entry at 1 hour from the 5-minute entry before it.
        settings = s.settings.with_(prefix_ttl="1h") if self._anchor() else s.settings
        # A builder of its own, never the session's: the note is a one-message transcript, and
        # built on the session's builder it replaced that builder's memo of the conversation,
        # so the next turn's request rebuilt every message's units again.
        builder = self._note_builders.get(model)
        if builder is None:
            builder = make_builder(s.provider.api, model)
            self._note_builders = {model: builder}  # the newest model's only
        built = builder.build_request(s.prefix, Transcript([Message.user(NOTE)]), settings, s.info)
        # The note is not marked: an entry on it would be the furthest one the next read finds,
        # and its 5 minutes, not the prefix entry's life, would time the reads.
        return ping_request(without_message_breakpoints(built))

    def _anchor(self) -> bool:
        """Does the session's prefix end with an anchor line (`anchored_system`), on a cache
        with a 1-hour TTL?"""
        s = self.state
        if s.settings.compact_at is None or s.settings.effective_prefix_ttl != "5m":
            return False
        return anchored_system(s.prefix, "1h")[1] is not None

    def due_at(self) -> float | None:
        """When the next prefix read goes out (None: none is planned): `MARGIN` seconds before
        the entry expires, if the plan says that read pays."""
        if self._ended is None:
            return None
        key = (self.tracker.guard.requests, self._ended)
        if self._memo is not None and self._memo[0] == key:
            return self._memo[2]
        request = self._request()
        due: float | None = None
        if request is not None:
            now = self.state.clock.now()
            expires = self.tracker.guard.warm_until(request, now)
            if expires is not None:
                due = max(expires - MARGIN, now)
                if not self._pays(due, request):
                    due = None
        self._memo = (key, request, due)
        return due

    def _pays(self, at: float, request: WireRequest) -> bool:
        s = self.state
        price = self.agent.prices.lookup(request.model)
        limit = self._limit()
        if price is None or limit is None or self._ended is None or self._context is None:
            return False
        prefix_end = _prefix_end(s.requests[-1])
        anchor = 0
        if self._anchor():
            last = [u for u in request.units if u.section != "messages"][-1]
            anchor = last.tokens if last.breakpoint == "1h" else 0
        self.plan = plan_prefix_keep(
            self.gaps(),
            away=at - self._ended,
            turns_left=turns_to_compaction(self._context, limit, self.growth()),
            prefix_tokens=prefix_end,
            price=price,
            margin=MARGIN,
            anchor=anchor,
            on_model=self.on_model(request.model),
        )
        return self.plan.send

    async def tick(self) -> list[Event]:
        """Send the prefix read if it is due (the caller holds the keep-alive turn)."""
        due = self.due_at()
        now = self.state.clock.now()
        if due is None or now < due or self._memo is None or self._memo[1] is None:
            return []
        request = self._memo[1]
        guard = self.tracker.guard
        pred = guard.predict(request, now)
        if pred.read <= 0:
            return []
        events: list[Event] = []
        s = self.state
        provider = s.provider if request.model == s.model else self.agent.provider(request.model)
        try:
            reply = await provider.complete(request, events)
        except ProviderError as exc:
            self._ended = None  # no retry every tick: the next turn plans again
            events.append(ProviderFault(exc.status, f"prefix keep-alive read: {exc}", 1, False))
            return events
        finally:
            if provider is not s.provider:
                await provider.aclose()
        # Aside: the next turn continues the conversation, not this read.
        guard.observe(
            request, pred, reply.usage, now, request_index=len(self.state.ledger), aside=True
        )
        row = self.state.ledger.record(
            request,
            reply.usage,
            time=now,
            previous=self.state.requests[-1],
            predicted_read=pred.read,
            meta={"kind": "ping", "keep": "prefix"},
        )
        self.recorder.ping(request, row)
        self.reads += 1
        self._memo = None
        events.append(KeepAlivePing(reply.usage.cache_read, row.cost or Decimal(0)))
        return events

"""Drive a scenario through prefixlock and through peer clients, against one emulator each.

Everything runs on the emulator's ManualClock: an idle gap of forty minutes is a clock advance,
not a wait. prefixlock is an `Agent` with no settings beyond the suite's compaction threshold:
its `CachePolicy()` decides at each event (the end of a turn: prefixlock.guard.turn_end), and
this side only runs the clock through a gap, calling the session's `keepalive_tick()` when the
session says something is due (`s.pings.next_ping_at()`), as `run_keepalive` would in real time.
The user's moves are the user's: a switch of model is made (quoted first, as the API requires
while the cache is warm), an MCP server's new tool list is offered to the session. A peer is a
separate process (its own interpreter and packages: see prefixlock.versus.peers) speaking a line
protocol: this side is the user and the tool server (it sends each turn's prompt, model and tool
list, and answers tool calls from the emulator's workspace), so every client does the same work.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .scenario import Scenario

if TYPE_CHECKING:
    from ..billing.prices import PriceTable
    from ..clock import ManualClock
    from ..emulator import Emulator
    from ..emulator.model import Script
    from ..guard.policy import CachePolicy
    from ..prefix import FrozenPrefix
    from ..settings import Settings
    from ..tools import Tool, ToolSpec

START = 1_800_000_000.0
KEY = "versus-key"


@dataclass
class Billed:
    """One request as the emulator billed it, with the scenario turn and event it belongs to."""

    turn: int
    event: str
    cost: Decimal
    read: int
    written: int
    uncached: int
    ping: bool = False


@dataclass
class ClientRun:
    client: str
    scenario: str
    requests: list[Billed]
    trace: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    compacted: list[int] = field(default_factory=list)  # turns the client compacted before
    # Turns after a switch of model (either way) whose work on the new model went without the
    # conversation (`switch_context_misses`): a real model could not have answered them.
    contextless: list[int] = field(default_factory=list)

    def relabel(self, scenario: Scenario) -> None:
        """Take the events of `scenario` (the same turns, with compactions marked)."""
        for r in self.requests:
            r.event = scenario.turns[r.turn].event
        for row in self.trace:
            row["event"] = scenario.turns[int(row["turn"])].event

    @property
    def cost(self) -> Decimal:
        return sum((r.cost for r in self.requests), Decimal(0))

    def by_event(self) -> dict[str, Decimal]:
        out: dict[str, Decimal] = {}
        for r in self.requests:
            out[r.event] = out.get(r.event, Decimal(0)) + r.cost
        return out


# The wire APIs a provider's clients are billed on (OpenAI clients use either).
APIS: dict[str, tuple[str, ...]] = {
    "anthropic": ("anthropic",),
    "openai": ("openai-chat", "openai-responses"),
}


def _served(emu: Emulator, provider: str) -> list[Any]:
    """The requests `emu` answered in full on `provider`'s APIs, in arrival order."""
    apis = APIS[provider]
    return [r for r in emu.served() if r.api in apis]


def _is_ping(api: str, body: dict[str, Any]) -> bool:
    """A keep-alive ping as prefixlock.guard.keepalive sends it (its smallest output)."""
    from ..guard.keepalive import RESPONSES_MIN_OUTPUT

    if api == "anthropic":
        return bool(body.get("max_tokens") == 0)
    if api == "openai-responses":
        opts = body.get("prompt_cache_options")
        prewarm = isinstance(opts, dict) and opts.get("prewarm") is True
        return prewarm or body.get("max_output_tokens") == RESPONSES_MIN_OUTPUT
    return bool(body.get("max_completion_tokens") == 1)


def _bill(
    emu: Emulator, prices: PriceTable, turn_of: Sequence[int], scenario: Scenario, client: str
) -> tuple[list[Billed], list[dict[str, Any]]]:
    from ..billing.usage import parse_usage

    rows: list[Billed] = []
    trace: list[dict[str, Any]] = []
    for seq, rec in enumerate(_served(emu, scenario.provider)):
        usage = parse_usage(rec.api, rec.usage or {})
        cost = prices.require(str(rec.model)).cost(usage)
        turn = turn_of[seq]
        ping = _is_ping(rec.api, rec.body)
        event = scenario.turns[turn].event
        rows.append(
            Billed(
                turn,
                event,
                cost,
                usage.cache_read,
                usage.cache_write_5m + usage.cache_write_1h,
                usage.uncached_input,
                ping,
            )
        )
        trace.append(
            {
                "client": client,
                "scenario": scenario.name,
                "seq": seq,
                "turn": turn,
                "event": event,
                "time": rec.time,
                "model": rec.model,
                "body": rec.body,
                "usage": usage.to_dict(),
                "cost": str(cost),
            }
        )
    return rows, trace


def _script(scenario: Scenario) -> Script:
    """The emulator's script for `scenario`: the built-in session's turns, and its wide turns."""
    from ..emulator import BUILTIN

    return scenario.script(BUILTIN)


def _tool_dicts() -> list[dict[str, Any]]:
    from ..canonical import canonical_json
    from ..emulator.workspace import TOOL_SPECS

    return [json.loads(canonical_json(spec.to_dict())) for spec in TOOL_SPECS]


def _delegate_spec() -> ToolSpec:
    from ..tools import ToolSpec
    from .scenario import DELEGATE_TOOL

    return ToolSpec(
        DELEGATE_TOOL["name"], DELEGATE_TOOL["description"], DELEGATE_TOOL["input_schema"]
    )


def subagent_start(parent: FrozenPrefix) -> dict[str, Any]:
    """What a peer's subagents get (the `subagent` field of the start message): the system
    prompt and tools prefixlock's delegator gives a subagent of the scenario's agent under
    `parent`, so every client's subagents send the same prefix."""
    from ..canonical import canonical_json
    from ..delegation import find_delegator, subagent_prefix
    from .scenario import SUBAGENT_AGENT

    sub = subagent_prefix(find_delegator(), SUBAGENT_AGENT, parent)
    if sub is None:
        raise RuntimeError("the delegator cannot say what prefix its subagents get")
    return {
        "agent": SUBAGENT_AGENT,
        "system": "\n\n".join(sub.system),
        "tools": [json.loads(canonical_json(spec.to_dict())) for spec in sub.tools],
    }


# Time to first token while a subagents turn runs (seconds on the emulator's clock): a cache
# write becomes readable only when the response that made it starts, so requests sent together
# on a cold prefix all miss it, and a request sent after a response started reads it.
FIRST_TOKEN_SECONDS = 1.0
# Real seconds the requests in flight must stay the same before the clock moves on: parallel
# requests are sent within milliseconds of each other, so all of them are held by then.
SETTLE_SECONDS = 0.2


@contextlib.contextmanager
def first_token_latency(emu: Emulator, clock: ManualClock) -> Iterator[None]:
    """While the block runs, every response starts FIRST_TOKEN_SECONDS after its request (on
    the clock), and the clock moves on once the requests in flight have settled: what is sent
    together overlaps, what waits for a response does not."""
    import threading
    import time

    emu.inject("latency", count=1_000_000, seconds=FIRST_TOKEN_SECONDS)
    stop = threading.Event()

    def tick() -> None:
        seen, since = 0, time.monotonic()
        while not stop.is_set():
            n = emu.in_flight
            if n != seen:
                seen, since = n, time.monotonic()
            elif n and time.monotonic() - since >= SETTLE_SECONDS:
                clock.advance(FIRST_TOKEN_SECONDS)
                seen = 0
            stop.wait(0.005)

    ticker = threading.Thread(target=tick, name="first-token", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        emu.clear_faults()


def run_prefixlock(
    scenario: Scenario,
    prices: PriceTable,
    policy: CachePolicy,
    settings: Settings | None = None,
) -> ClientRun:
    """The scenario through prefixlock's Agent, every decision the product's."""
    import asyncio

    from ..agent import Agent
    from ..clock import ManualClock
    from ..delegation import find_delegator
    from ..emulator import Emulator, EmulatorConfig
    from ..emulator.workspace import Workspace, demo_prefix
    from ..settings import Settings
    from .scenario import COMPACT_TOKENS, RESUME, SUBAGENTS

    if settings is None:
        # The product's own auto-compaction, at the suite's explicit threshold (README.md).
        window = prices.require(scenario.base_model).context_window or 1_000_000
        settings = Settings(compact_at=COMPACT_TOKENS / window)
    # prefixlock: ignore[PL101] the emulator's clock; the workspace's tool definitions never read it
    clock = ManualClock(START)
    turn_of: list[int] = []
    compacted: list[int] = []
    notes: list[str] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        Emulator.start(
            config=EmulatorConfig(), clock=clock, prices=prices, script=_script(scenario)
        ) as emu,
    ):
        workspace = Workspace(clock)
        tools = {t.name: t for t in workspace.tools()}
        # The model's `delegate` calls run in the delegator; every peer offers the same tool.
        extra: list[Tool | ToolSpec] = [_delegate_spec()]
        first = scenario.turns[0].model
        agent = Agent(
            demo_prefix(workspace).replace(tools=[*tools.values(), *extra]),
            model=first,
            api_key=KEY,
            base_url=emu.base_url,
            clock=clock,
            prices=prices,
            settings=settings,
            store=Path(tmp) / "sessions.db",
            delegator=find_delegator(),
            policy=policy,
        )

        def mark(turn: int, before: int) -> None:
            turn_of.extend([turn] * (len(_served(emu, scenario.provider)) - before))

        async def idle(s: Any, seconds: float, turn: int) -> None:
            """The user is away: the clock runs; the session sends what its policy planned
            (a turn end's 1-hour write, or pings) when it says it is due."""
            end = clock.now() + seconds
            while clock.now() < end:
                due = s.pings.next_ping_at()
                step = end - clock.now() if due is None else max(min(due, end) - clock.now(), 0)
                clock.advance(step)
                before = len(_served(emu, scenario.provider))
                await s.keepalive_tick()
                mark(turn, before)
                if due is not None and clock.now() < due and step == 0:
                    clock.advance(1.0)
                if due is not None and s.pings.next_ping_at() == due and clock.now() >= due:
                    clock.advance(1.0)  # nothing more is due at this instant

        async def drive() -> None:
            async with contextlib.AsyncExitStack() as stack:
                s = await stack.enter_async_context(agent.session(f"versus-{scenario.name}"))
                for t in scenario.turns:
                    if t.index > 0:
                        if t.event == RESUME:
                            await stack.aclose()  # the process ends; the user comes back later
                            clock.advance(t.gap_before)
                            s = await stack.enter_async_context(agent.resume(s.id))
                        else:
                            await idle(s, t.gap_before, t.index)
                    if t.tools is not None:  # a tool server started or stopped
                        listed: list[Tool | ToolSpec] = [*(tools[n] for n in t.tools), *extra]
                        quote = s.quote_tools(listed)
                        s.change_tools(listed, quote=quote)
                        notes.append(f"turn {t.index + 1} tools: {quote.summary()}")
                    if s.model != t.model:
                        # The user moves to another model: quoted, then made.
                        quote = s.quote_switch(t.model, next_message=t.prompt)
                        s.switch_model(t.model, quote=quote)
                        notes.append(f"turn {t.index + 1} switched: {quote.summary()}")
                    before = len(_served(emu, scenario.provider))
                    compactions = s.compactions
                    with (
                        first_token_latency(emu, clock)
                        if t.event == SUBAGENTS
                        else contextlib.nullcontext()
                    ):
                        async for _event in s.send(t.prompt):
                            pass
                    mark(t.index, before)
                    if s.compactions > compactions:
                        compacted.append(t.index)
                        notes.append(f"turn {t.index + 1}: compacted (Settings.compact_at)")

        asyncio.run(drive())
        rows, trace = _bill(emu, prices, turn_of, scenario, "prefixlock")
    missed = switch_context_misses(scenario, trace)
    return ClientRun("prefixlock", scenario.name, rows, trace, notes, compacted, missed)


class PeerError(Exception):
    """A peer process failed or broke the protocol."""


class PeerProcess:
    """A peer's process and its pipes. It serves one session after another
    (`peer_protocol.serve`): importing a framework costs a peer 1.5-2.6 s of CPU, about a
    third of a session's, so a process is kept for the next session of the same command
    (`_LIVE`). Its stderr goes to a file: a pipe nobody reads would fill up over many sessions
    and stall the peer."""

    def __init__(self, name: str, command: Sequence[str]) -> None:
        self.name = name
        self.err = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
        )

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise self._stopped() from None

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise self._stopped()
        data: dict[str, Any] = json.loads(line)
        return data

    def _stopped(self) -> PeerError:
        """The process ended: the error names the peer and the last line it wrote to stderr."""
        self.proc.wait()
        self.err.seek(0)
        tail = self.err.read().strip().splitlines()[-1:] or ["no output"]
        return PeerError(f"peer {self.name} stopped: {tail[0]}")

    def close(self) -> None:
        """End the process: closing its stdin ends it; one that does not is killed."""
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


# Live peer processes of this process, by command, between sessions.
_LIVE: dict[tuple[str, ...], PeerProcess] = {}


def close_peers() -> None:
    """End every kept peer process (at exit, and when a run of the suite is over)."""
    while _LIVE:
        _LIVE.popitem()[1].close()


atexit.register(close_peers)


def run_peer(
    scenario: Scenario, prices: PriceTable, name: str, command: Sequence[str]
) -> ClientRun:
    """The scenario through a peer process (`command` starts it; see prefixlock.versus.peers)."""
    from ..clock import ManualClock
    from ..emulator import Emulator, EmulatorConfig
    from ..emulator.workspace import Workspace, demo_prefix, system_prompt
    from .scenario import COMPACT_TOKENS, DELEGATE_TOOL, SUBAGENTS

    # prefixlock: ignore[PL101] the emulator's clock; the workspace's tool definitions never read it
    clock = ManualClock(START)
    turn_of: list[int] = []
    tools = _tool_dicts()
    by_name = {t["name"]: t for t in tools}
    order = [t["name"] for t in tools]
    with Emulator.start(
        config=EmulatorConfig(), clock=clock, prices=prices, script=_script(scenario)
    ) as emu:
        workspace = Workspace(clock)
        parent = demo_prefix(workspace).replace(tools=[*workspace.tools(), _delegate_spec()])
        sub_start = subagent_start(parent)
        peer = _LIVE.pop(tuple(command), None) or PeerProcess(name, command)
        send, read = peer.send, peer.read
        try:
            send(
                {
                    "op": "start",
                    "system": system_prompt(),
                    "base_url": emu.base_url,
                    "api_key": KEY,
                    "compact_tokens": COMPACT_TOKENS,
                    "session": scenario.name,
                    # A local tool the peer adds after the server's tools; its calls run the
                    # peer's own subagents, with this system prompt and these (server) tools.
                    "delegate_tool": DELEGATE_TOOL,
                    "subagent": sub_start,
                }
            )
            for t in scenario.turns:
                if t.index > 0:
                    clock.advance(t.gap_before)
                if t.tools is not None:  # a tool server started or stopped
                    order = list(t.tools)
                before = len(_served(emu, scenario.provider))
                with (
                    first_token_latency(emu, clock)
                    if t.event == SUBAGENTS
                    else contextlib.nullcontext()
                ):
                    send(
                        {
                            "op": "turn",
                            "prompt": t.prompt,
                            "model": t.model,
                            "tools": [by_name[n] for n in order],
                        }
                    )
                    while True:
                        msg = read()
                        if msg["op"] == "done":
                            break
                        content = workspace.run(str(msg["name"]), dict(msg["input"]))
                        send({"op": "result", "content": content})
                turn_of.extend([t.index] * (len(_served(emu, scenario.provider)) - before))
            send({"op": "end"})
            if read()["op"] != "closed":
                raise PeerError(f"peer {name} did not close its session")
            _LIVE[tuple(command)] = peer  # the next session of this command reuses it
        except BaseException:
            peer.close()
            raise
        rows, trace = _bill(emu, prices, turn_of, scenario, name)
    missed = switch_context_misses(scenario, trace)
    compacted = shrunk(trace, subagent_system=str(sub_start["system"]))
    return ClientRun(name, scenario.name, rows, trace, compacted=compacted, contextless=missed)


def shrunk(trace: Sequence[dict[str, Any]], *, subagent_system: str = "") -> list[int]:
    """The turns where a peer compacted: a request of the main conversation carried fewer
    messages than the one before (its summary request, or its first request on the shortened
    history). On the Responses API the count starts at the input's latest `compaction` item,
    which is what the model sees (`since_compaction`): openai-agents appends the server's
    compaction item to its whole history, so its input never gets shorter. A subagent's
    requests (their system prompt is `subagent_system`) are another conversation and are
    skipped: their short histories are no compaction."""
    from ..emulator.responses_state import since_compaction

    out: list[int] = []
    before: int | None = None
    latest: Any = None  # the latest compaction item the main conversation carried
    previous: int | None = None  # the turn of the main conversation's request before this one
    for row in trace:
        body = row["body"]
        # In, not at the start: a framework may put its own preamble first (pydantic-ai does).
        if subagent_system and subagent_system.strip()[:200] in _system_text(body):
            continue
        items = body.get("messages") or body.get("input") or ()
        rest = since_compaction(items) if isinstance(items, list) else [None]
        n = len(rest)
        item = rest[0] if rest and _is_compaction(rest[0]) else None
        turn = int(row["turn"])
        if before is not None and n < before:
            # A new server-side compaction item came in the reply to the request before this
            # one, which the compaction pass was billed on: when that request ended its turn,
            # the compaction is that turn's, not this one's.
            at = previous if item is not None and item != latest and previous is not None else turn
            if at not in out:
                out.append(at)
        before, latest, previous = n, item, turn
    return out


def _is_compaction(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "compaction"


def _system_text(body: dict[str, Any]) -> str:
    """A request's system prompt on any of the wire APIs (Anthropic `system`, Responses
    `instructions`, Chat Completions' leading system or developer message), stripped."""

    def text(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "".join(str(p.get("text", "")) for p in value if isinstance(p, dict))
        return ""

    if "system" in body:
        return text(body["system"]).strip()
    if "instructions" in body:
        return text(body["instructions"]).strip()
    messages = body.get("messages") or body.get("input") or ()
    if isinstance(messages, list) and messages and isinstance(messages[0], dict):
        first = messages[0]
        if first.get("role") in ("system", "developer"):
            return text(first.get("content")).strip()
    return ""


def switch_context_misses(scenario: Scenario, trace: Sequence[dict[str, Any]]) -> list[int]:
    """The turns after a switch of model (away or back) whose first request on the new model
    did not carry the conversation (`carries_context`). Every turn's prompt refers to the work
    before it ("Run the tests again", "the rounding helper"): a client that hands such a turn
    to a context-free subagent on a cheaper model gets the same scripted calls from the
    emulator, where a real model would not know what "again" means; the suite counts that
    turn as not done, so it cannot look cheap."""
    out: list[int] = []
    for t in scenario.turns[1:]:
        if t.model == scenario.turns[t.index - 1].model:
            continue
        first = next(
            (row for row in trace if int(row["turn"]) == t.index and row["model"] == t.model),
            None,
        )
        if first is None or not carries_context(first["body"]):
            out.append(t.index)
    return out


def carries_context(body: dict[str, Any]) -> bool:
    """Does a request carry the conversation before its last user message: an earlier message
    (system and developer messages aside), the summary of a compaction (prefixlock puts it in
    the system prompt), or an earlier response's state on the server (Responses API)?"""
    from ..emulator.model import summary_text
    from .scenario import SUMMARY_TOKENS

    if body.get("previous_response_id") or body.get("conversation"):
        return True
    items = body.get("messages") or body.get("input") or ()
    if isinstance(items, list):
        said = [m for m in items if not (isinstance(m, dict) and m.get("role") in _SYSTEM_ROLES)]
        if len(said) > 1:
            return True
    marker = summary_text(SUMMARY_TOKENS)[:40]
    return any(marker in text for text in _texts(body.get("system")) + _texts(items))


_SYSTEM_ROLES = ("system", "developer")


def _texts(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _texts(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _texts(v)]
    return []

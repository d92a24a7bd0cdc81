"""Drive a scenario through prefixlock and through peer clients, against one emulator each.

Everything runs on the emulator's ManualClock: an idle gap of forty minutes is a clock advance,
not a wait. prefixlock is driven as a user would drive it: its guard's quotes and the user's
`CachePolicy` (prefixlock.guard.policy) decide at each event, with keep-alive pings sent by the
session's own `keepalive_tick()` while the clock runs through a gap. A peer is a separate process
(its own interpreter and packages: see prefixlock.versus.peers) speaking a line protocol: this
side is the user and the tool server (it sends each turn's prompt, model and tool list, and
answers tool calls from the emulator's workspace), so every client does the same work.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .scenario import Scenario, shuffled

if TYPE_CHECKING:
    from ..billing.prices import PriceTable
    from ..clock import ManualClock
    from ..emulator import Emulator
    from ..emulator.model import Script
    from ..guard.policy import CachePolicy, IdlePlan
    from ..prefix import FrozenPrefix
    from ..settings import Settings
    from ..tools import Tool, ToolSpec

START = 1_800_000_000.0
KEY = "versus-key"
# What a user turn writes to the cache (its new messages and tool results): the built-in
# session's mean is 1,730 tokens; a user plans with a round figure like this one.
TURN_TOKENS = 2_000  # any non-empty key works with the emulator


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
APIS = {"anthropic": ("anthropic",), "openai": ("openai-chat", "openai-responses")}


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


PLAN_TURNS = 100  # the idle plan prices the rates over this many turns
SESSION_TURNS = 32  # the built-in session's user turns
SESSIONS_PER_PLAN = round(PLAN_TURNS / SESSION_TURNS)


def expected_gaps() -> list[float]:
    """The idle gaps of PLAN_TURNS user turns at the documented rates (from the rates, not from
    a session's draws: the policy does not see the future), every idle bucket equally often."""
    from . import scenario as sc

    gaps = [sc.THINK_SECONDS] * PLAN_TURNS
    idle = round(PLAN_TURNS * sc.IDLE_RATE)
    for i in range(idle):
        gaps[i] = sc.IDLE_BUCKETS[i % len(sc.IDLE_BUCKETS)]
    long_idle = round(PLAN_TURNS * sc.LONG_IDLE_RATE)
    for i in range(idle, idle + long_idle):
        gaps[i] = sc.LONG_IDLE_SECONDS
    resumes = SESSIONS_PER_PLAN  # one resume per session
    for i in range(idle + long_idle, idle + long_idle + resumes):
        gaps[i] = sc.RESUME_SECONDS
    return gaps


def idle_plan(prices: PriceTable, policy: CachePolicy, model: str | None = None) -> IdlePlan:
    """The session's idle plan from the expected gaps and the prices of `model` (default: the
    Anthropic scenarios' base model)."""
    from ..emulator.workspace import Workspace, demo_prefix
    from ..guard.policy import plan_idle
    from .scenario import BASE_MODEL

    prefix_tokens = demo_prefix(Workspace()).tokens
    return plan_idle(
        expected_gaps(),
        turns=PLAN_TURNS,
        context_tokens=prefix_tokens * 3 // 2,  # a typical context mid-session (prefix + talk)
        written_per_turn=TURN_TOKENS,
        cold_tokens=prefix_tokens * SESSIONS_PER_PLAN,  # each session's first write
        price=prices.require(model or BASE_MODEL),
        mode=policy.idle,
    )


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

    plan = idle_plan(prices, policy, scenario.base_model)
    if settings is None:
        # The product's own auto-compaction, at the suite's explicit threshold (README.md).
        window = prices.require(scenario.base_model).context_window or 1_000_000
        settings = Settings(compact_at=COMPACT_TOKENS / window)
    base = settings
    chosen = plan.settings(base)  # the 1-hour TTL or the day-long retention, if chosen
    # prefixlock: ignore[PL101] the emulator's clock; the workspace's tool definitions never read it
    clock = ManualClock(START)
    turn_of: list[int] = []
    compacted: list[int] = []
    notes = [f"idle plan {plan.reason}"]
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
            settings=chosen,
            store=Path(tmp) / "sessions.db",
            delegator=find_delegator(),
        )

        def mark(turn: int, before: int) -> None:
            turn_of.extend([turn] * (len(_served(emu, scenario.provider)) - before))

        async def idle(s: Any, seconds: float, turn: int) -> None:
            """The user is away: the clock runs; the session's keep-alive pings when due."""
            end = clock.now() + seconds
            while clock.now() < end:
                due = s.pings.next_ping_at() if s.pings.keepalive is not None else None
                step = end - clock.now() if due is None else max(min(due, end) - clock.now(), 0)
                clock.advance(step)
                before = len(_served(emu, scenario.provider))
                await s.keepalive_tick()
                mark(turn, before)
                if due is not None and clock.now() < due and step == 0:
                    clock.advance(1.0)

        def keepalive(s: Any) -> None:
            if plan.mode == "pings":
                s.enable_keepalive(Decimal("1000"), max_idle=plan.max_idle)

        async def drive() -> None:
            async with contextlib.AsyncExitStack() as stack:
                s = await stack.enter_async_context(agent.session(f"versus-{scenario.name}"))
                keepalive(s)
                for t in scenario.turns:
                    if t.index > 0:
                        if t.event == RESUME:
                            await stack.aclose()  # the process ends; the user comes back later
                            clock.advance(t.gap_before)
                            s = await stack.enter_async_context(agent.resume(s.id))
                            keepalive(s)
                        else:
                            await idle(s, t.gap_before, t.index)
                    if t.tool_order_seed is not None:  # an MCP server reconnected
                        order = shuffled(sorted(tools), t.tool_order_seed)
                        listed: list[Tool | ToolSpec] = [*(tools[n] for n in order), *extra]
                        quote = s.quote_tools(listed)
                        s.change_tools(listed, quote=quote)
                        notes.append(f"turn {t.index + 1} tools: {quote.summary()}")
                    delegate_to: str | None = None
                    if s.model != t.model:
                        run_len = 1
                        for later in scenario.turns[t.index + 1 :]:
                            if later.model != t.model:
                                break
                            run_len += 1
                        quote = s.quote_switch(t.model, next_message=t.prompt)
                        action = policy.switch_action(quote, run_len)
                        if action == "switch":
                            s.switch_model(t.model, quote=quote)
                        elif action == "delegate":
                            # The turn's work runs in a subagent on the user's model; the warm
                            # conversation gets the call and the summary (Session.delegate).
                            delegate_to = t.model
                        verb = {"switch": "switched", "stay": "stayed", "delegate": "delegated"}[
                            action
                        ]
                        notes.append(f"turn {t.index + 1} {verb}: {quote.summary()}")
                    before = len(_served(emu, scenario.provider))
                    compactions = s.compactions
                    if delegate_to is not None:
                        result = await s.delegate(
                            t.prompt, agent=policy.delegate_agent, model=delegate_to
                        )
                        if not result.ok:
                            raise RuntimeError(f"turn {t.index + 1}: {result.summary}")
                    else:
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
    return ClientRun("prefixlock", scenario.name, rows, trace, notes, compacted)


class PeerError(Exception):
    """A peer process failed or broke the protocol."""


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
        proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None

        def send(obj: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(obj) + "\n")
            proc.stdin.flush()

        def read() -> dict[str, Any]:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line:
                err = proc.stderr.read() if proc.stderr else ""
                tail = err.strip().splitlines()[-1:] or ["no output"]
                raise PeerError(f"peer {name} stopped: {tail[0]}")
            data: dict[str, Any] = json.loads(line)
            return data

        sub_start = subagent_start(parent)
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
                if t.tool_order_seed is not None:
                    order = shuffled(sorted(by_name), t.tool_order_seed)
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
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        rows, trace = _bill(emu, prices, turn_of, scenario, name)
    compacted = shrunk(trace, subagent_system=str(sub_start["system"]))
    return ClientRun(name, scenario.name, rows, trace, compacted=compacted)


def shrunk(trace: Sequence[dict[str, Any]], *, subagent_system: str = "") -> list[int]:
    """The turns where a peer compacted: a request of the main conversation carried fewer
    messages than the one before (its summary request, or its first request on the shortened
    history). A subagent's requests (their system prompt is `subagent_system`) are another
    conversation and are skipped: their short histories are no compaction."""
    out: list[int] = []
    before: int | None = None
    for row in trace:
        body = row["body"]
        # In, not at the start: a framework may put its own preamble first (pydantic-ai does).
        if subagent_system and subagent_system.strip()[:200] in _system_text(body):
            continue
        items = body.get("messages") or body.get("input") or ()
        n = len(items) if isinstance(items, list) else 1
        if before is not None and n < before and int(row["turn"]) not in out:
            out.append(int(row["turn"]))
        before = n
    return out


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

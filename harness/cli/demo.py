"""`prefixlock demo`: what prompt caching is worth, measured offline in under a minute.

The same scripted coding session (the emulator's built-in one: 32 user turns, 100+ requests, a
22K-token system prompt and tools) runs twice, through prefixlock's Agent and through a
deliberately naive client written directly on the official SDK (`anthropic`, or `openai` with
`--provider openai`: current time in the system prompt, tools in a new order every request, no
cache breakpoints and no cache key, a mid-session model switch), each against two emulator
configurations: a cache-aware server and a crude one (random
routing over several machines, little cache capacity). Both clients switch model at the same
turn, so the difference is cache behaviour only. Everything runs in-process on a ManualClock:
no key, no network, no real waiting.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..billing.prices import PriceTable
    from ..billing.usage import Usage
    from ..emulator import Emulator, EmulatorConfig, RecordedRequest


@dataclass(frozen=True)
class Flavor:
    """Which provider's wire format and models the demo runs on."""

    provider: str  # anthropic | openai
    api: str  # the wire API both clients use
    base_model: str
    switch_model: str


FLAVORS = {
    "anthropic": Flavor("anthropic", "anthropic", "claude-sonnet-4-6", "claude-haiku-4-5"),
    "openai": Flavor("openai", "openai-chat", "gpt-5.4", "gpt-5.4-mini"),
}
SWITCH_AT = 15  # the model switch happens before this user turn (0-based): mid-session
THINK_SECONDS = 45.0  # the user reads the answer and types the next prompt
START = 1_800_000_000.0
DEMO_KEY = "demo-key"  # any non-empty key works with the emulator
SERVERS = ("cache-aware", "crude")
CLIENTS = ("prefixlock", "naive")


@dataclass
class RequestCost:
    """One request as the server billed it."""

    seq: int
    turn: int  # user turn (0-based) the request belongs to
    model: str
    usage: Usage
    cost: Decimal
    causes: tuple[str, ...] = ()


@dataclass
class Run:
    """One client against one server configuration."""

    client: str
    server: str
    requests: list[RequestCost]
    trace: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cost(self) -> Decimal:
        return sum((r.cost for r in self.requests), Decimal(0))

    @property
    def hit_rate(self) -> float:
        read = sum(r.usage.cache_read for r in self.requests)
        total = sum(r.usage.input_total for r in self.requests)
        return read / total if total else 0.0

    @property
    def input_tokens(self) -> int:
        return sum(r.usage.input_total for r in self.requests)

    def turn_cost(self, turn: int) -> Decimal:
        return sum((r.cost for r in self.requests if r.turn == turn), Decimal(0))


@dataclass
class SwitchNote:
    """The warning prefixlock raised before the model switch."""

    old_model: str
    new_model: str
    tokens_rebilled: int
    dollars: Decimal | None
    summary: str
    source: str  # "guard" (Session.quote_switch) or "emulator" (computed from served usage)


@dataclass
class DemoResult:
    runs: dict[tuple[str, str], Run]
    switch: SwitchNote | None
    prompts: tuple[str, ...]
    prefix_tokens: int
    flavor: Flavor = FLAVORS["anthropic"]
    switch_at: int = SWITCH_AT  # 0-based user turn before which both clients switch model

    def run(self, client: str, server: str) -> Run:
        return self.runs[(client, server)]

    @property
    def margin(self) -> Decimal:
        """How many times cheaper prefixlock is than the naive client on the cache-aware server."""
        ours = self.run("prefixlock", "cache-aware").cost
        theirs = self.run("naive", "cache-aware").cost
        return theirs / ours if ours else Decimal(0)

    def to_dict(self) -> dict[str, Any]:
        cells = {
            client: {
                server: {
                    "hit_rate": round(self.run(client, server).hit_rate, 4),
                    "cost": str(self.run(client, server).cost.quantize(Decimal("0.000001"))),
                    "requests": len(self.run(client, server).requests),
                    "input_tokens": self.run(client, server).input_tokens,
                }
                for server in SERVERS
            }
            for client in CLIENTS
        }
        ours, theirs = self.run("prefixlock", "cache-aware"), self.run("naive", "cache-aware")
        return {
            "session": {
                "user_turns": len(self.prompts),
                "requests": len(ours.requests),
                "prefix_tokens": self.prefix_tokens,
                "provider": self.flavor.provider,
                "models": [self.flavor.base_model, self.flavor.switch_model],
                "switch_before_turn": self.switch_at + 1,
            },
            "cells": cells,
            "margin": {
                "times_cheaper": str(self.margin.quantize(Decimal("0.01"))),
                "dollars_saved": str((theirs.cost - ours.cost).quantize(Decimal("0.000001"))),
            },
            "switch_warning": None
            if self.switch is None
            else {
                "old_model": self.switch.old_model,
                "new_model": self.switch.new_model,
                "tokens_rebilled": self.switch.tokens_rebilled,
                "dollars": None if self.switch.dollars is None else str(self.switch.dollars),
                "summary": self.switch.summary,
                "source": self.switch.source,
            },
            "turns": [
                {
                    "turn": t + 1,
                    "naive": str(theirs.turn_cost(t).quantize(Decimal("0.000001"))),
                    "prefixlock": str(ours.turn_cost(t).quantize(Decimal("0.000001"))),
                    "causes": _turn_causes(theirs, t),
                }
                for t in range(len(self.prompts))
            ],
        }


# ---- accounting from what the server saw ------------------------------------------------------


def _bill(
    emu: Emulator, prices: PriceTable, turn_of: Sequence[int], session_id: str, flavor: Flavor
) -> tuple[list[RequestCost], list[dict[str, Any]]]:
    from ..billing.usage import parse_usage

    rows: list[RequestCost] = []
    trace: list[dict[str, Any]] = []
    served: list[RecordedRequest] = emu.served(flavor.api)
    for seq, rec in enumerate(served):
        usage = parse_usage(flavor.api, rec.usage or {})
        model = str(rec.model)
        cost = prices.require(model).cost(usage)
        rows.append(
            RequestCost(seq, turn_of[seq] if seq < len(turn_of) else -1, model, usage, cost)
        )
        trace.append(
            {
                "session_id": session_id,
                "seq": seq,
                "time": rec.time,
                "provider": flavor.provider,
                "api": flavor.api,
                "model": model,
                "path": rec.path,
                "body": rec.body,
                "usage": usage.to_dict(),
                "raw_usage": rec.usage,
                "cost": str(cost),
                "cache_key": rec.body.get("prompt_cache_key"),
            }
        )
    return rows, trace


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [str(t.get("name") or t.get("function", {}).get("name")) for t in body["tools"]]


def _system_of(body: dict[str, Any]) -> Any:
    return body["system"] if "system" in body else body["messages"][0]["content"]


def _naive_causes(bodies: Sequence[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Why each naive request re-billed its prefix (compared with the one before it)."""
    out: list[tuple[str, ...]] = []
    prev: dict[str, Any] | None = None
    for body in bodies:
        causes = ["no breakpoints" if "system" in body else "no cache key"]
        if prev is not None:
            if body["model"] != prev["model"]:
                causes.append("model switch")
            if _system_of(body) != _system_of(prev):
                causes.append("time in system")
            if _tool_names(body) != _tool_names(prev):
                causes.append("tools shuffled")
        out.append(tuple(causes))
        prev = body
    return out


def _turn_causes(run: Run, turn: int) -> list[str]:
    seen: dict[str, None] = {}
    for r in run.requests:
        if r.turn == turn:
            for c in r.causes:
                seen[c] = None
    return list(seen)


# ---- the two clients ---------------------------------------------------------------------------


def _run_prefixlock(
    config: EmulatorConfig,
    prices: PriceTable,
    prompts: Sequence[str],
    flavor: Flavor,
    switch_at: int = SWITCH_AT,
) -> tuple[Run, SwitchNote | None]:
    import asyncio

    from ..agent import Agent
    from ..clock import ManualClock
    from ..emulator import Emulator
    from ..emulator.workspace import Workspace, demo_prefix

    clock = ManualClock(START)
    turn_of: list[int] = []
    note: SwitchNote | None = None
    with Emulator.start(config=config, clock=clock, prices=prices) as emu:
        workspace = Workspace(clock)
        agent = Agent(
            demo_prefix(workspace),
            model=_on_api(flavor, flavor.base_model),
            api_key=DEMO_KEY,
            base_url=emu.base_url,
            clock=clock,
            prices=prices,
        )

        async def drive() -> SwitchNote | None:
            switch: SwitchNote | None = None
            async with agent.session(session_id="demo-prefixlock") as s:
                for turn, prompt in enumerate(prompts):
                    if turn == switch_at:
                        switch = _switch(s, flavor, prompt)
                    before = len(emu.served())
                    async for _event in s.send(prompt):
                        pass
                    turn_of.extend([turn] * (len(emu.served()) - before))
                    clock.advance(THINK_SECONDS)
            return switch

        note = asyncio.run(drive())
        rows, trace = _bill(emu, prices, turn_of, "demo-prefixlock", flavor)
    return Run("prefixlock", "", rows, trace), note


def _on_api(flavor: Flavor, model: str) -> str:
    """`model` on the flavor's wire API, which both clients use (prefixlock's default for an
    OpenAI model is the Responses API; the naive client speaks Chat Completions)."""
    return model if flavor.api == "anthropic" else f"{flavor.api}:{model}"


def _switch(session: Any, flavor: Flavor, next_prompt: str) -> SwitchNote:
    """Switch the session's model the prefixlock way: quote first, then switch with the quote."""
    model = _on_api(flavor, flavor.switch_model)
    quote = session.quote_switch(model, next_message=next_prompt)
    session.switch_model(model, quote=quote)
    return SwitchNote(
        quote.old_model,
        quote.new_model,
        quote.tokens_rebilled,
        quote.dollars,
        quote.summary(),
        "guard",
    )


def _plain(block: Any) -> dict[str, Any]:
    """An SDK content block as the plain dict the API accepts back."""
    data: dict[str, Any] = block.model_dump(exclude_none=True)
    keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input")}
    return {k: data[k] for k in keep.get(data.get("type", ""), tuple(data)) if k in data}


def _stamp(now: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _run_naive(
    config: EmulatorConfig,
    prices: PriceTable,
    prompts: Sequence[str],
    flavor: Flavor,
    switch_at: int = SWITCH_AT,
    *,
    hints_only: bool = False,
    fixes: frozenset[str] | None = None,
) -> Run:
    """The same session written the way many first agents are: every habit that breaks caching.

    `hints_only`: a client that keeps its prefix stable (no time stamp, tools in one order) and
    only sets no cache hints (no breakpoints, no cache key), as many agents one cannot change.
    `fixes`: the client talks to the emulator through `prefixlock proxy` with these repairs
    (an empty set: the proxy only observes).
    """
    import anthropic
    import openai

    from ..clock import ManualClock
    from ..emulator import Emulator
    from ..emulator.workspace import TOOL_SPECS, Workspace, system_prompt

    clock = ManualClock(START)
    rng = random.Random(7)
    from ..canonical import canonical_json

    # Plain JSON data (the specs hold frozen mappings).
    anthropic_tools = [json.loads(canonical_json(spec.to_dict())) for spec in TOOL_SPECS]
    openai_tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["input_schema"],
            },
        }
        for t in anthropic_tools
    ]
    handbook = system_prompt()
    bodies: list[dict[str, Any]] = []
    turn_of: list[int] = []
    with contextlib.ExitStack() as stack:
        emu = stack.enter_context(Emulator.start(config=config, clock=clock, prices=prices))
        base_url = emu.base_url
        if fixes is not None:
            from ..proxy.server import Proxy, ProxyConfig

            proxy = stack.enter_context(
                Proxy.start(
                    ProxyConfig(upstream=emu.base_url, fixes=fixes), clock=clock, prices=prices
                )
            )
            base_url = proxy.base_url
        workspace = Workspace(clock)
        a_client = anthropic.Anthropic(api_key=DEMO_KEY, base_url=base_url, max_retries=2)
        o_client = openai.OpenAI(api_key=DEMO_KEY, base_url=base_url + "/v1", max_retries=2)
        messages: list[dict[str, Any]] = []

        def anthropic_step(model: str, system: str) -> list[tuple[str, str, dict[str, Any]]]:
            order = list(anthropic_tools)
            if not hints_only:
                rng.shuffle(order)
            body: dict[str, Any] = {
                "model": model,
                "max_tokens": 4096,
                "system": system,
                "tools": order,
                "messages": list(messages),
            }
            reply = a_client.messages.create(**body)
            bodies.append(body)
            content = [_plain(b) for b in reply.content]
            messages.append({"role": "assistant", "content": content})
            uses = [
                (b["id"], b["name"], dict(b["input"])) for b in content if b["type"] == "tool_use"
            ]
            if uses:
                messages.append(
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": i,
                                "content": workspace.run(n, a),
                            }
                            for i, n, a in uses
                        ],
                    }
                )
            return uses

        def openai_step(model: str, system: str) -> list[tuple[str, str, dict[str, Any]]]:
            order = list(openai_tools)
            if not hints_only:
                rng.shuffle(order)
            # No prompt_cache_key: requests are routed by their first tokens only.
            body: dict[str, Any] = {
                "model": model,
                "tools": order,
                "messages": [{"role": "system", "content": system}, *messages],
            }
            reply = o_client.chat.completions.create(**body)
            bodies.append(body)
            msg = reply.choices[0].message
            calls = [c for c in msg.tool_calls or [] if c.type == "function"]
            out: dict[str, Any] = {"role": "assistant", "content": msg.content}
            if calls:
                out["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in calls
                ]
            messages.append(out)
            uses = [(c.id, c.function.name, dict(json.loads(c.function.arguments))) for c in calls]
            for i, n, a in uses:
                messages.append({"role": "tool", "tool_call_id": i, "content": workspace.run(n, a)})
            return uses

        step = anthropic_step if flavor.provider == "anthropic" else openai_step
        try:
            for turn, prompt in enumerate(prompts):
                model = flavor.switch_model if turn >= switch_at else flavor.base_model
                messages.append({"role": "user", "content": prompt})
                for _step in range(25):
                    stamp = "" if hints_only else f"Current time: {_stamp(clock.now())}\n\n"
                    uses = step(model, stamp + handbook)
                    turn_of.append(turn)
                    if not uses:
                        break
                clock.advance(THINK_SECONDS)
        finally:
            a_client.close()
            o_client.close()
        rows, trace = _bill(emu, prices, turn_of, "demo-naive", flavor)
    for row, causes in zip(rows, _naive_causes(bodies), strict=False):
        row.causes = causes
    return Run("naive", "", rows, trace)


def server_configs() -> dict[str, EmulatorConfig]:
    from ..emulator import EmulatorConfig

    return {"cache-aware": EmulatorConfig(), "crude": EmulatorConfig.crude()}


def run_demo(
    prompts: Sequence[str] | None = None, provider: str = "anthropic", switch_at: int = SWITCH_AT
) -> DemoResult:
    """Run the four sessions and return their figures (no printing).

    `prompts` defaults to the built-in session; `switch_at` is the 0-based user turn before which
    both clients switch model (past the last turn: no switch).
    """
    from ..billing.prices import PriceTable
    from ..emulator import BUILTIN_PROMPTS
    from ..emulator.workspace import Workspace, demo_prefix

    prompts = tuple(prompts if prompts is not None else BUILTIN_PROMPTS)
    flavor = FLAVORS[provider]
    prices = PriceTable.builtin()
    runs: dict[tuple[str, str], Run] = {}
    switch: SwitchNote | None = None
    for server, config in server_configs().items():
        ours, note = _run_prefixlock(config, prices, prompts, flavor, switch_at)
        ours.server = server
        runs[("prefixlock", server)] = ours
        if server == "cache-aware":
            switch = note
        theirs = _run_naive(config, prices, prompts, flavor, switch_at)
        theirs.server = server
        runs[("naive", server)] = theirs
    return DemoResult(runs, switch, prompts, demo_prefix(Workspace()).tokens, flavor, switch_at)


# ---- the proxy variant (`prefixlock demo --proxy`) --------------------------------------------

PROXY_ROWS = (
    ("prefixlock", "prefixlock's own client"),
    ("no-hints", "no cache hints (stable prefix, no breakpoints, no cache key)"),
    ("no-hints+proxy", "the same through prefixlock proxy --fix"),
    ("naive", "the naive client (time in system, shuffled tools, no hints)"),
    ("naive+proxy", "the naive client through prefixlock proxy --fix"),
)


@dataclass
class ProxyDemoResult:
    """Clients you cannot change, direct and through the proxy, against prefixlock's own."""

    runs: dict[tuple[str, str], Run]
    prompts: tuple[str, ...]
    flavor: Flavor
    servers: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.flavor.provider,
            "user_turns": len(self.prompts),
            "rows": {
                row: {
                    server: {
                        "hit_rate": round(self.runs[(row, server)].hit_rate, 4),
                        "cost": str(self.runs[(row, server)].cost.quantize(Decimal("0.000001"))),
                        "requests": len(self.runs[(row, server)].requests),
                    }
                    for server in self.servers
                }
                for row, _ in PROXY_ROWS
            },
        }


def run_proxy_demo(
    prompts: Sequence[str] | None = None,
    provider: str = "anthropic",
    switch_at: int = SWITCH_AT,
    servers: Sequence[str] = SERVERS,
) -> ProxyDemoResult:
    """The built-in session by prefixlock, and by two clients one cannot change, each direct and
    through the proxy with its default repairs."""
    from ..billing.prices import PriceTable
    from ..emulator import BUILTIN_PROMPTS
    from ..proxy.repair import DEFAULT_FIXES

    prompts = tuple(prompts if prompts is not None else BUILTIN_PROMPTS)
    flavor = FLAVORS[provider]
    prices = PriceTable.builtin()
    fixes = frozenset(DEFAULT_FIXES)
    configs = server_configs()
    runs: dict[tuple[str, str], Run] = {}
    for server in servers:
        config = configs[server]
        ours = _run_prefixlock(config, prices, prompts, flavor, switch_at)[0]
        runs[("prefixlock", server)] = ours
        for row, hints_only, via in (
            ("no-hints", True, None),
            ("no-hints+proxy", True, fixes),
            ("naive", False, None),
            ("naive+proxy", False, fixes),
        ):
            runs[(row, server)] = _run_naive(
                config, prices, prompts, flavor, switch_at, hints_only=hints_only, fixes=via
            )
    for (row, server), run in runs.items():
        run.client, run.server = row, server
    return ProxyDemoResult(runs, prompts, flavor, tuple(servers))


def render_proxy(result: ProxyDemoResult, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    console.print(
        f"[bold]prefixlock demo --proxy[/bold]: the same {len(result.prompts)}-turn session "
        f"({result.flavor.provider}), by clients you cannot change, direct and through "
        "`prefixlock proxy --fix` (cache-key, breakpoints, second-breakpoint)."
    )
    table = Table(title="Hit rate and dollars, client x server")
    table.add_column("client")
    for server in result.servers:
        table.add_column(f"{server} server", justify="right")
    for row, label in PROXY_ROWS:
        cells = [
            f"{result.runs[(row, s)].hit_rate:6.1%}  {_money(result.runs[(row, s)].cost)}"
            for s in result.servers
        ]
        table.add_row(label, *cells)
    console.print(table)
    console.print(
        "The proxy only inserts cache hints, never content: it brings a client that merely sets "
        "none to prefixlock's level, but a prefix that changes every request (a time stamp in "
        "the system prompt, tools in a new order) is the client's to fix."
    )


# ---- output -----------------------------------------------------------------------------------


def trace_dir(directory: str | Path) -> Path:
    """Create `directory` for the traces (checked before the demo runs, not after); a path that
    cannot hold them is a one-line ConfigError naming it."""
    from ..errors import ConfigError

    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileExistsError):
            reason = "exists and is not a directory"
        raise ConfigError(f"cannot write traces there: {reason}", where=str(directory)) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ConfigError("cannot write traces there: permission denied", where=str(directory))
    return out


def write_traces(result: DemoResult, directory: str | Path) -> list[Path]:
    """Each run's requests as JSONL in the trace format (one request a line), written atomically:
    each file goes to a temporary name beside it and is renamed into place when complete."""
    from ..atomicfile import replacing_text
    from ..errors import ConfigError

    out = trace_dir(directory)
    written: list[Path] = []
    for (client, server), run in sorted(result.runs.items()):
        path = out / f"{client}-{server}.jsonl"
        try:
            with replacing_text(path) as fh:
                for line in run.trace:
                    fh.write(json.dumps(line, sort_keys=True) + "\n")
        except OSError as exc:
            raise ConfigError(
                f"cannot write traces: {exc.strerror or exc}", where=str(path)
            ) from None
        written.append(path)
    return written


def _money(d: Decimal) -> str:
    return f"${d:.4f}"


def render(result: DemoResult, console: Any = None) -> None:
    """Print the 2x2 table, the switch warning, and the naive client's losses turn by turn."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    ours, theirs = result.run("prefixlock", "cache-aware"), result.run("naive", "cache-aware")
    flavor, before = result.flavor, result.switch_at + 1
    models = (
        f"{flavor.base_model}, switching to {flavor.switch_model} before turn {before}"
        if result.switch_at < len(result.prompts)
        else f"{flavor.base_model} throughout (no model switch)"
    )
    console.print(
        f"[bold]prefixlock demo[/bold]: one scripted coding session, {len(result.prompts)} user "
        f"turns, {len(ours.requests)} requests, {result.prefix_tokens:,}-token system prompt + "
        f"tools; {models}."
    )
    table = Table(title="Hit rate and dollars, client x server")
    table.add_column("client")
    for server in SERVERS:
        table.add_column(f"{server} server", justify="right")
    for client in CLIENTS:
        cells = [
            f"{result.run(client, s).hit_rate:6.1%}  {_money(result.run(client, s).cost)}"
            for s in SERVERS
        ]
        table.add_row(client, *cells)
    console.print(table)
    if result.switch is not None:
        console.print(
            f"[yellow]Switch warning[/yellow] raised by prefixlock before turn {before} "
            f"({result.switch.source}): {result.switch.summary}"
        )
    turns = Table(title="Where the naive client lost money (cache-aware server)")
    turns.add_column("turn", justify="right")
    turns.add_column("reqs", justify="right")
    turns.add_column("naive", justify="right")
    turns.add_column("prefixlock", justify="right")
    turns.add_column("lost", justify="right")
    turns.add_column("why")
    for t in range(len(result.prompts)):
        n = theirs.turn_cost(t)
        p = ours.turn_cost(t)
        count = sum(1 for r in theirs.requests if r.turn == t)
        turns.add_row(
            str(t + 1),
            str(count),
            _money(n),
            _money(p),
            _money(n - p),
            ", ".join(_turn_causes(theirs, t)),
        )
    console.print(turns)
    saved = theirs.cost - ours.cost
    crude = result.run("prefixlock", "crude")
    console.print(
        f"On the cache-aware server prefixlock paid {_money(ours.cost)} against the naive client's "
        f"{_money(theirs.cost)}: {result.margin:.1f}x cheaper, {_money(saved)} saved on one "
        f"session ({ours.hit_rate:.1%} vs {theirs.hit_rate:.1%} of input read from cache). "
        f"On the crude server prefixlock paid {_money(crude.cost)} "
        f"({crude.hit_rate:.1%} read): server design matters too. The naive client pays about the "
        f"same on both servers: its prefix changes on every request, so no server can help it."
    )


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--provider",
        choices=sorted(FLAVORS),
        default="anthropic",
        help="wire format and models both clients use (default: anthropic)",
    )
    p.add_argument(
        "--trace-dir", metavar="DIR", help="write each run's requests as JSONL traces into DIR"
    )
    p.add_argument(
        "--proxy",
        action="store_true",
        help="clients you cannot change, direct and through `prefixlock proxy --fix`",
    )
    p.add_argument(
        "--versus",
        choices=["peers"],
        help="sessions with idle gaps, model switches, tool-server changes and a resume, through "
        "prefixlock and through peer frameworks configured per their docs (each in its own venv)",
    )
    p.add_argument(
        "--peers",
        metavar="NAMES",
        help="with --versus: comma-separated peers (default: all those of --provider; anthropic: "
        "anthropic-sdk, pydantic-ai, langchain; openai: openai-sdk, openai-agents, "
        "pydantic-ai-openai, langchain-openai)",
    )
    p.add_argument(
        "--pairs",
        type=int,
        metavar="N",
        help="with --versus: run N seed pairs (seeds 1..2N) and print the median, 10th "
        "percentile and worst of prefixlock's margin per event row and in total, against the "
        "cheapest peer row and against each peer row (default 1)",
    )
    p.add_argument(
        "--seeds",
        metavar="A-B",
        help="with --versus: run the seed pairs from seed A to seed B instead (A odd, B even: "
        "9-28 is the pairs (9, 10) ... (27, 28)); not with --pairs",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="J",
        help="with --versus: clients run at once, each in its own process (default: CPUs)",
    )
    p.add_argument(
        "--idle",
        choices=["auto", "pings", "1h", "24h", "off"],
        default="auto",
        help="with --versus: prefixlock's idle policy (CachePolicy.idle; default auto; 1h is "
        "Anthropic's 1-hour TTL, 24h OpenAI's extended retention)",
    )
    p.add_argument(
        "--pacing",
        choices=["chat", "coding"],
        default="chat",
        help="with --versus: the gaps before user turns (default chat: a chat service's trace, "
        "most under 5 minutes; coding: the public coding-agent sample logs' gaps, most past 5 "
        "minutes; docs/turn-gaps.md)",
    )
    p.add_argument(
        "--switch",
        choices=["auto", "quote", "always"],
        default="auto",
        help="with --versus: prefixlock's model-switch policy (CachePolicy.switch; default "
        "auto: switch, stay or delegate by the quote)",
    )


def _run(args: argparse.Namespace) -> int:
    if args.versus:
        from ..versus.cli import run_versus_command

        return run_versus_command(args)
    if args.proxy:
        from ..errors import ConfigError

        if args.trace_dir:
            raise ConfigError("not available with --proxy", where="--trace-dir")
        proxied = run_proxy_demo(provider=args.provider)
        if args.json:
            print(json.dumps(proxied.to_dict(), indent=2))
        else:
            render_proxy(proxied)
        return 0
    if args.trace_dir:
        trace_dir(args.trace_dir)  # a bad --trace-dir fails now, not after the whole demo
    result = run_demo(provider=args.provider)
    if args.trace_dir:
        write_traces(result, args.trace_dir)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        render(result)
        if args.trace_dir:
            print(
                f"traces written to {args.trace_dir} (try: prefixlock lint "
                f"{Path(args.trace_dir) / 'naive-cache-aware.jsonl'})"
            )
    return 0

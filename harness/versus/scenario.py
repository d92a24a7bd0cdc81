"""Scripted sessions with the events real sessions have, as plain data (pure: no I/O).

A scenario is the built-in coding session's user turns (`prefixlock.emulator.BUILTIN_PROMPTS`,
so the emulator's scripted model answers every client the same way), each with what happens
just before it: how long the user was away (a gap drawn from a public production trace's
user-turn gaps), which model the user picked, whether a tool server started or stopped (its
tools added to or removed from the list), whether the session was closed and resumed. Rates
and where they come from: README.md beside this module. Every client (prefixlock and the peers)
is driven through exactly these turns; only the client's own cache behaviour differs.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..emulator.model import Script

BASE_MODEL = "claude-sonnet-4-6"
# The model of a switch: the sample logs' only switches go up (claude-sonnet-4 to claude-opus-4
# and back in ccusage's fixture, gpt-5.2-codex to gpt-5.3-codex in its Codex one), so the user
# picks the bigger model for one turn and comes back.
SWITCH_MODEL = "claude-opus-4-6"

# Event names, in the order the result tables list them.
STEADY = "steady"  # the user came back within the 5-minute TTL
IDLE = "idle-gap"  # the user was away longer than the 5-minute TTL (but under an hour)
LONG_IDLE = "idle-over-1h"  # away past any TTL (lunch, a meeting)
SWITCH = "model-switch"  # one turn on another model, and the turn back
MCP = "mcp-change"  # a tool server started or stopped: its tools are added or removed
WIDE = "wide-turn"  # one reply calls 12 tools in parallel: the next request adds 25 blocks
RESUME = "resume"  # the client process ended; the session is continued next day
# The client's context passed its compaction threshold: the turn (and the summary request the
# client sends before it) where a client that compacts does so. Which turn that is depends on
# the context size, so it is marked after prefixlock's run (`mark_compactions`), where the
# product's own `Settings(compact_at=...)` fired, and the peers are driven with that mark.
COMPACT = "compaction"
# An extra user turn that asks for side tasks run in parallel by subagents on one cold prefix.
SUBAGENTS = "subagents"
EVENTS = (STEADY, IDLE, LONG_IDLE, SWITCH, MCP, WIDE, SUBAGENTS, COMPACT, RESUME)

# An explicit compaction threshold in input tokens (an assumption, README.md): the built-in
# session peaks near 60K tokens, far below sonnet-4-6's 1M window, so the suite plays it as if
# its window were ~52K and compacts at Claude Code's recorded 77.6% of the window.
COMPACT_TOKENS = 40_000
# A real model's summary of a ~40K-token coding session (an assumption inside the range that
# recorded compactions show: README.md): the emulator answers every client's summary request
# with this many output tokens, the same text whoever asks.
SUMMARY_TOKENS = 2_500

# The gap before each user turn (seconds): 40 quantiles of the user-turn gaps in the test half
# of Mooncake's conversation trace (1,924 gaps; `python -m prefixlock.versus.rates`,
# docs/turn-gaps.md). The product's default gaps come from the other half.
TURN_GAPS: tuple[float, ...] = (
    15.0, 24.0, 33.0, 39.0, 45.0, 48.0, 54.0, 57.0, 60.0, 66.0,
    69.0, 75.0, 78.0, 81.0, 87.0, 93.0, 99.0, 108.0, 114.0, 123.0,
    132.0, 141.0, 153.0, 165.0, 174.0, 186.0, 201.0, 222.0, 240.0, 255.0,
    279.0, 306.0, 342.0, 378.0, 414.0, 468.0, 525.0, 594.0, 732.0, 1533.0,
)  # fmt: skip
# Coding-agent pacing (`--pacing coding`): the six user-turn gaps of the public Claude Code and
# Codex sample logs that `prefixlock analyze` reads (docs/turn-gaps.md), five of them past the
# 5-minute TTL and two past the hour. Six typed gaps are no distribution: the suite draws from
# them to check the defaults where most turns follow a long gap, as a coding agent's user
# reviewing changes leaves them, not to replace the chat pacing above.
CODING_TURN_GAPS: tuple[float, ...] = (120.0, 480.0, 600.0, 1200.0, 9000.0, 74700.0)
PACINGS: dict[str, tuple[float, ...]] = {"chat": TURN_GAPS, "coding": CODING_TURN_GAPS}
TTL_SECONDS = 300.0  # a gap past this is an idle gap (Anthropic's default TTL)
# An inserted (wide or subagents) turn's gap: one of the steady gaps, so that its row holds
# what the event costs and an idle gap's cost stays in the idle rows.
STEADY_GAPS = tuple(g for g in TURN_GAPS if g <= TTL_SECONDS)
HOUR = 3600.0


@dataclass(frozen=True)
class Rates:
    """How often each drawn event comes, per user turn (README.md gives each one's source;
    none is forced: a session without a draw has no such turn)."""

    switch: float = 0.04  # assumption: the logs show switches, too few for a rate
    mcp: float = 0.02  # assumption: no log records a tool server starting or stopping
    wide: float = 0.0  # the logs' widest reply calls 3 tools (7 blocks): none passes 20 blocks
    subagents: float = 0.03  # assumption: one real session, whose one prompt used subagents


LOG_RATES = Rates()
RESUME_SECONDS = 14 * 3600.0

# The tool server that starts and stops mid-session: its one tool (the workspace's
# `write_file`, which the script never calls) leaves the list when it stops and comes back
# after the other server's tools when it starts again.
SECOND_SERVER_TOOLS = ("write_file",)

# The wide turn: the user asks for an overview and the model reads twelve files in one reply
# (parallel tool use). Its next request adds 1 assistant message of 13 blocks (text + 12
# tool_use) and 1 user message of 12 tool_result blocks: 25 blocks, past the 20-block lookback.
WIDE_PROMPT = (
    "Read all the invoice modules and their main tests at once, then tell me how they fit together."
)
WIDE_FILES = (
    "invoice/__init__.py",
    "invoice/convert.py",
    "invoice/credit_notes.py",
    "invoice/discounts.py",
    "invoice/models.py",
    "invoice/money.py",
    "invoice/rates.py",
    "invoice/reports.py",
    "invoice/tax.py",
    "invoice/totals.py",
    "tests/conftest.py",
    "tests/test_totals.py",
)

# The subagents turn: the model hands four independent checks to four subagents in one reply
# (four parallel `delegate` calls). Every subagent is the same agent: one system prompt and one
# tool list, not yet cached (a cold prefix), each with its own task; each plays its task's
# scripted steps (read-only tools, so the order they run in changes nothing), and its answer is
# the tool_result the parent's next request carries.
SUBAGENT_AGENT = "general"  # the built-in agent that inherits the session's tools
SUBAGENTS_PROMPT = (
    "Before the release, hand these four side checks to subagents in parallel and give me "
    "their findings."
)
SUBAGENT_TASKS: tuple[tuple[str, tuple[tuple[str, dict[str, str]], ...], str], ...] = (
    (
        "Side check 1 of 4: list every place under invoice/ that rounds with round() and say "
        "whether it rounds money.",
        (
            ("grep", {"pattern": "round(", "path": "invoice"}),
            ("read_file", {"path": "invoice/credit_notes.py"}),
        ),
        "invoice/credit_notes.py:9 rounds a credit note's total with round(); it is money.",
    ),
    (
        "Side check 2 of 4: read invoice/tax.py and list the tax rates it defines, with their "
        "regions.",
        (("read_file", {"path": "invoice/tax.py"}),),
        "invoice/tax.py defines the VAT rates per region; Jersey is zero-rated.",
    ),
    (
        "Side check 3 of 4: which tests in tests/test_totals.py and tests/test_discounts.py "
        "cover vouchers?",
        (
            ("grep", {"pattern": "voucher", "path": "tests"}),
            ("read_file", {"path": "tests/test_discounts.py"}),
        ),
        "The voucher cases are in tests/test_discounts.py; tests/test_totals.py has none.",
    ),
    (
        "Side check 4 of 4: find where fetch_rates is called and whether any caller still uses "
        "the old name.",
        (
            ("grep", {"pattern": "fetch_rates", "path": "."}),
            ("read_file", {"path": "invoice/rates.py"}),
        ),
        "fetch_rates is defined in invoice/rates.py and called from invoice/convert.py.",
    ),
)
# The `delegate` tool every client's session offers (the same schema for all): a task, and the
# agent that runs it (one agent here, as in Claude Code's general-purpose Task subagent).
DELEGATE_TOOL: dict[str, Any] = {
    "name": "delegate",
    "description": (
        "Hand a self-contained task to a subagent that works with its own context and the same "
        "tools, and returns only its final answer. Call it several times in one reply to run "
        "independent tasks in parallel."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "agent": {
                "type": "string",
                "enum": [SUBAGENT_AGENT],
                "description": "which subagent runs it",
            },
            "task": {"type": "string", "description": "the task, self-contained"},
        },
        "required": ["task"],
    },
}


@dataclass(frozen=True)
class Turn:
    """One user turn and what happens just before it."""

    index: int  # 0-based user turn
    prompt: str
    event: str = STEADY
    gap_before: float = 45.0  # seconds since the previous turn ended
    model: str = BASE_MODEL
    tools: tuple[str, ...] | None = None  # a tool server started or stopped: the new list
    script_turn: int | None = None  # 0-based turn of the base script it plays (None: index)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "prompt": self.prompt,
            "event": self.event,
            "gap_before": self.gap_before,
            "model": self.model,
            "tools": None if self.tools is None else list(self.tools),
            "script_turn": self.script_turn,
        }


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: tuple[Turn, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    provider: str = "anthropic"  # whose API and models it runs on (`on_provider`)

    def events(self) -> dict[str, int]:
        out = {e: 0 for e in EVENTS}
        for t in self.turns:
            out[t.event] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "provider": self.provider,
            "turns": [t.to_dict() for t in self.turns],
        }

    @property
    def base_model(self) -> str:
        """The model the session runs on between model switches."""
        return PROVIDER_MODELS[self.provider][0]

    def script(self, base: Script) -> Script:
        """The emulator's script for this session: each turn plays its turn of `base` (the
        built-in session), a wide turn its twelve parallel reads, by the turn's number here."""
        from ..emulator.model import Call, Rule, Step, Summary

        rules = []
        for t in self.turns:
            if t.event == WIDE:
                first, *more = WIDE_FILES
                steps = [
                    Step(
                        text="Reading them all at once.",
                        tool="read_file",
                        input={"path": first},
                        parallel=[Call(tool="read_file", input={"path": p}) for p in more],
                    ),
                    Step(
                        text="They fit together: models and money at the bottom, rates and "
                        "tax above them, totals, discounts and credit notes on top."
                    ),
                ]
            elif t.event == SUBAGENTS:
                (first_task, _, _), *more_tasks = SUBAGENT_TASKS
                steps = [
                    Step(
                        text="Handing the four checks to subagents at once.",
                        tool="delegate",
                        input={"task": first_task, "agent": SUBAGENT_AGENT},
                        parallel=[
                            Call(tool="delegate", input={"task": task, "agent": SUBAGENT_AGENT})
                            for task, _, _ in more_tasks
                        ],
                    ),
                    Step(
                        text="All four checks are back: money is rounded by hand in one place "
                        "(credit notes), the tax table and the voucher tests are in "
                        "order, and nothing calls the old fetch_rates name."
                    ),
                ]
            else:
                own = t.index if t.script_turn is None else t.script_turn
                steps = list(base.rules[own].steps)
            # Matched by the prompt's text, not the turn number: after a compaction the history
            # has fewer user turns, and the turn must still play its own steps. A request no
            # rule matches gets the script's default text; a compaction's summary request, a
            # summary of SUMMARY_TOKENS.
            rules.append(Rule(match=rf"\A{re.escape(t.prompt)}\Z", steps=steps))
        if any(t.event == SUBAGENTS for t in self.turns):
            # Each subagent's conversation starts with its task: its steps are found by it.
            for task, calls, answer in SUBAGENT_TASKS:
                sub_steps = [
                    Step(text=f"Checking with {name}.", tool=name, input=dict(args))
                    for name, args in calls
                ]
                sub_steps.append(Step(text=answer))
                rules.append(Rule(match=rf"\A{re.escape(task)}\Z", steps=sub_steps))
        return base.model_copy(
            update={
                "rules": rules,
                "prompts": [t.prompt for t in self.turns],
                "summary": Summary(tokens=SUMMARY_TOKENS),
            }
        )


def scripted(
    prompts: tuple[str, ...],
    seed: int,
    name: str,
    rates: Rates = LOG_RATES,
    tools: tuple[str, ...] = (),
    gaps: tuple[float, ...] = TURN_GAPS,
) -> Scenario:
    """A session over `prompts` with events drawn at `rates` (seeded: the same seed is the same
    session). Every gap is drawn from `gaps` (the chat pacing, `TURN_GAPS`, unless given); a gap
    past the TTL makes an idle turn, one past the hour a long idle turn. One
    resume a session, the next day, at a seeded turn. `tools`: the server's tool list (the
    workspace's, by default), which a tool-server event changes."""
    from ..emulator.workspace import TOOL_SPECS

    rng = random.Random(seed)
    n = len(prompts)
    listed = tools or tuple(t.name for t in TOOL_SPECS)
    resume_at = rng.randrange(2, n - 1)
    # Wide and subagents turns come from their own streams, so that one rate changed leaves the
    # other draws as they were.
    wide_rng = random.Random(seed * 7919 + 1)
    sub_rng = random.Random(seed * 7919 + 2)
    turns: list[Turn] = []
    seen: set[str] = set()
    for i, prompt in enumerate(prompts):
        # A prompt the user types twice ("Run the whole suite.") says so the second time: the
        # emulator's script finds each turn's steps by the prompt's text (`Scenario.script`).
        prompt = f"{prompt.rstrip('.')} again." if prompt in seen else prompt
        seen.add(prompt)
        if i > 1 and wide_rng.random() < rates.wide:
            gap = rng.choice(STEADY_GAPS)
            turns.append(Turn(len(turns), WIDE_PROMPT, WIDE, gap))
        if i > 1 and sub_rng.random() < rates.subagents:
            gap = rng.choice(STEADY_GAPS)
            turns.append(Turn(len(turns), SUBAGENTS_PROMPT, SUBAGENTS, gap))
        gap = rng.choice(gaps)
        event = STEADY
        if i == resume_at:
            event, gap = RESUME, RESUME_SECONDS
        elif i > 0 and gap > HOUR:
            event = LONG_IDLE
        elif i > 0 and gap > TTL_SECONDS:
            event = IDLE
        changed: tuple[str, ...] | None = None
        model = BASE_MODEL
        if event == STEADY and i > 0:
            r = rng.random()
            back = turns and turns[-1].model == SWITCH_MODEL
            if r < rates.switch and not back:
                event, model = SWITCH, SWITCH_MODEL
            elif r < rates.switch + rates.mcp:
                event = MCP
                if set(SECOND_SERVER_TOOLS) <= set(listed):  # the second server stops
                    listed = tuple(t for t in listed if t not in SECOND_SERVER_TOOLS)
                else:  # it starts again: its tools come after the first server's
                    listed = (*listed, *SECOND_SERVER_TOOLS)
                changed = listed
        turns.append(
            Turn(
                index=len(turns),
                prompt=prompt,
                event=event,
                gap_before=gap if i > 0 else 0.0,
                model=model,
                tools=changed,
                script_turn=i,
            )
        )
    # The turn that comes back to the base model is part of the switch: there a client pays
    # for what the excursion changed (writing the other model's turn into the base model's
    # cache), so the event's row counts both turns.
    for k in range(1, len(turns)):
        if turns[k - 1].model == SWITCH_MODEL and turns[k].event == STEADY:
            turns[k] = replace(turns[k], event=SWITCH)
    return Scenario(name, tuple(turns))


def suite(
    prompts: tuple[str, ...],
    seeds: tuple[int, ...] = (1, 2),
    rates: Rates = LOG_RATES,
    gaps: tuple[float, ...] = TURN_GAPS,
) -> tuple[Scenario, ...]:
    """The benchmark's sessions: one per seed over the same prompts, paced by `gaps`."""
    return tuple(scripted(prompts, seed, f"session-{seed}", rates, gaps=gaps) for seed in seeds)


def pair_seeds(pairs: int) -> tuple[int, ...]:
    """The seeds of `pairs` seed pairs: (1, 2), (3, 4), ... (every draw, none picked)."""
    return tuple(range(1, 2 * pairs + 1))


def seed_range(text: str) -> tuple[int, ...]:
    """The seeds of `A-B` (`--seeds`): whole seed pairs, as `pair_seeds` lays them out, so
    that `9-28` plays the same pairs (9, 10) ... (27, 28) as a `--pairs 14` run does. Raises
    ValueError saying what is wrong."""
    a, sep, b = text.partition("-")
    if not sep or not a.strip().isdigit() or not b.strip().isdigit():
        raise ValueError(f"--seeds takes a range A-B of seeds (e.g. 9-28), not {text!r}")
    first, last = int(a), int(b)
    if first < 1 or last < first:
        raise ValueError(f"--seeds {text}: the range must go up from seed 1 or later")
    if first % 2 == 0 or last % 2 == 1:
        raise ValueError(
            f"--seeds {text}: seeds come in pairs (1, 2), (3, 4) ...: start on an odd seed "
            "and end on an even one"
        )
    return tuple(range(first, last + 1))


def mark_compactions(scenario: Scenario, turns: set[int]) -> Scenario:
    """`scenario` with the turns in `turns` (0-based: where each client compacted), whatever
    their other event, and the steady turns between the first and the last of them marked as
    compaction turns: every client's summary request and the write of its compacted context
    fall in the row, whichever turn its own threshold fired on (README.md). A compaction on an
    idle-gap turn was counted in the idle-gap row before, for that client only, so the
    compaction row compared one client's summary with another's plain turn."""
    if not turns:
        return scenario
    first, last = min(turns), max(turns)
    out = [
        replace(t, event=COMPACT)
        if t.index in turns or (first <= t.index <= last and t.event == STEADY)
        else t
        for t in scenario.turns
    ]
    return replace(scenario, turns=tuple(out))


# The models of each provider's scenarios: the main one, and the one a model switch picks for
# one turn. Anthropic: up to opus, as the logs' switches go. OpenAI: gpt-5-mini, because no
# OpenAI model above gpt-5 has a context window in the price table (the product's compaction
# threshold is a fraction of the window; README.md says what each event means there).
PROVIDER_MODELS = {
    "anthropic": (BASE_MODEL, SWITCH_MODEL),
    "openai": ("gpt-5", "gpt-5-mini"),
}


def on_provider(scenario: Scenario, provider: str) -> Scenario:
    """`scenario` on `provider`'s models: the same turns, events and gaps; a switch turn on
    that provider's other model."""
    if provider not in PROVIDER_MODELS:
        raise ValueError(f"no scenario models for provider {provider!r}")
    base, cheaper = PROVIDER_MODELS[provider]
    turns = tuple(
        replace(t, model=cheaper if t.model == SWITCH_MODEL else base) for t in scenario.turns
    )
    return replace(scenario, turns=turns, provider=provider)

"""The emulator's scripted model: deterministic replies and tool calls from a script.

A script is a list of rules. A rule applies to a user turn (by its number, 1-based, counting user
messages that carry text) or to the latest user text (`match`, a case-insensitive regular
expression), and holds the steps the model takes for that turn: each step is one reply, with an
optional tool call. The step number is how many assistant replies follow the latest user text, so
an agent loop (tool call -> tool result -> next request) walks through the steps, and the reply
depends on the request body only: retries, parallel clients and restarts all get the same answer.

`BUILTIN` is a realistic coding session (explore, read files, edit, run tests) used by the demo
and by anyone who does not bring a script.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from ..tokenizer import count_tokens


class Step(BaseModel):
    """One model reply: text, and optionally one tool call."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)


class Rule(BaseModel):
    """Steps for a user turn number, or for user text matching `match`."""

    model_config = ConfigDict(extra="forbid")

    turn: int | None = Field(default=None, ge=1)
    match: str | None = None
    steps: list[Step] = Field(min_length=1)

    @pydantic.field_validator("match")
    @classmethod
    def _valid_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
        return value


class Script(BaseModel):
    """A whole script; `prompts` are the user messages of the session it was written for."""

    model_config = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    default: str = "Understood. Nothing else to do here."

    @classmethod
    def load(cls, path: str | Path) -> Script:
        """Read a YAML or JSON script; a mistake names the file and the field."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read script: {exc.strerror}", where=str(p)) from None
        try:
            if p.suffix.lower() == ".json":
                data = json.loads(text)
            else:
                import yaml

                data = yaml.safe_load(text)
        except Exception as exc:  # JSON and YAML raise different types; both are user errors
            raise ConfigError(f"cannot parse script: {exc}", where=str(p)) from None
        try:
            return cls.model_validate(data or {})
        except pydantic.ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
            raise ConfigError(err["msg"], where=f"{p}: {loc}") from None


@dataclass(frozen=True)
class Conversation:
    """What the model needs from a request, whatever the wire format."""

    user_turn: int  # number of user messages with text (1-based turn of the latest)
    user_text: str  # text of the latest user message with text
    step: int  # assistant replies since that message
    tools: tuple[str, ...]  # tool names the request offers


@dataclass(frozen=True)
class ToolCallOut:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    """The model's answer to one request."""

    text: str
    tool_calls: tuple[ToolCallOut, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def output_tokens(self) -> int:
        n = count_tokens(self.text)
        for call in self.tool_calls:
            n += count_tokens(call.name) + count_tokens(json.dumps(call.input, sort_keys=True)) + 4
        return max(n, 1)


class ScriptedModel:
    """Answers requests from a script, deterministically."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script if script is not None else BUILTIN

    def _rule(self, conv: Conversation) -> Rule | None:
        for rule in self.script.rules:
            if rule.match is not None and re.search(rule.match, conv.user_text, re.I):
                return rule
        for rule in self.script.rules:
            if rule.match is None and rule.turn == conv.user_turn:
                return rule
        return None

    def reply(self, conv: Conversation) -> Reply:
        rule = self._rule(conv)
        if rule is None:
            return Reply(self.script.default)
        if conv.step >= len(rule.steps):
            # Past the script's steps: close the turn rather than loop on tools forever.
            last = rule.steps[-1]
            return Reply(last.text if last.tool is None and last.text else "Done.")
        step = rule.steps[conv.step]
        if step.tool is None:
            return Reply(step.text or "OK.")
        if conv.tools and step.tool not in conv.tools:
            return Reply(f"{step.text} (I would use `{step.tool}`, but it is not available.)")
        seed = f"{conv.user_turn}:{conv.step}:{conv.user_text}".encode()
        call_id = hashlib.sha256(seed).hexdigest()[:20]
        return Reply(step.text, (ToolCallOut(call_id, step.tool, dict(step.input)),))


def _s(text: str, tool: str | None = None, **kw: Any) -> Step:
    return Step(text=text, tool=tool, input=kw)


# The built-in coding session. The tools it calls are those of harness.demo's workspace:
# list_files, read_file, grep, edit_file, run_tests.
BUILTIN_PROMPTS: tuple[str, ...] = (
    "The test suite for the invoice service is failing. Take a look at the repository first.",
    "Find where the rounding of invoice totals happens.",
    "Read the rounding helper and its tests.",
    "Fix the rounding so totals use banker's rounding to the cent.",
    "Run the tests again.",
    "There is also a flaky test about currency conversion. Look into it.",
    "Make the conversion use the fixed rate table instead of the live one in tests.",
    "Run the whole suite once more and summarize what changed.",
    "Are there other places that round money by hand?",
    "Add a changelog entry for these fixes.",
)

_TURNS: list[list[Step]] = [
    [
        _s("Let me look at the layout of the repository.", "list_files", path="."),
        _s("And the source package.", "list_files", path="invoice"),
        _s("Now the failing tests.", "run_tests", target="tests"),
        _s(
            "The suite has two failures: `test_total_rounding` expects 10.12 and gets 10.13, and "
            "`test_convert_eur` fails intermittently. The first looks like a rounding mode issue "
            "in the totals code; the second depends on a live exchange rate."
        ),
    ],
    [
        _s("Searching for rounding calls.", "grep", pattern="round_cents", path="invoice"),
        _s("Checking the decimal context settings too.", "grep", pattern="ROUND_", path="invoice"),
        _s(
            "Totals are rounded in `invoice/money.py` by `round_cents()`, which uses "
            "`ROUND_HALF_UP`; `invoice/totals.py` calls it once per line and again on the sum."
        ),
    ],
    [
        _s("Reading the helper.", "read_file", path="invoice/money.py"),
        _s("Reading the totals module.", "read_file", path="invoice/totals.py"),
        _s("Reading the tests that pin the behaviour.", "read_file", path="tests/test_totals.py"),
        _s(
            "`round_cents()` rounds half up, and `invoice_total()` rounds every line before "
            "summing, so half-cent lines accumulate. The tests expect banker's rounding applied "
            "once, to the final sum."
        ),
    ],
    [
        _s(
            "Switching the rounding mode to banker's rounding.",
            "edit_file",
            path="invoice/money.py",
            old="ROUND_HALF_UP",
            new="ROUND_HALF_EVEN",
        ),
        _s(
            "Rounding once, on the sum.",
            "edit_file",
            path="invoice/totals.py",
            old="sum(round_cents(line.amount) for line in lines)",
            new="round_cents(sum(line.amount for line in lines))",
        ),
        _s(
            "Both edits are in: `round_cents()` now uses `ROUND_HALF_EVEN` and the total is "
            "rounded once after summing the exact line amounts."
        ),
    ],
    [
        _s("Running the totals tests.", "run_tests", target="tests/test_totals.py"),
        _s("And the full suite.", "run_tests", target="tests"),
        _s(
            "`test_totals.py` passes now (12 passed). The full suite still shows the flaky "
            "`test_convert_eur`, unrelated to rounding."
        ),
    ],
    [
        _s("Reading the conversion test.", "read_file", path="tests/test_convert.py"),
        _s("Reading the converter.", "read_file", path="invoice/convert.py"),
        _s("Where do the rates come from?", "grep", pattern="fetch_rates", path="."),
        _s(
            "`convert()` calls `fetch_rates()`, which downloads today's rates; the test asserts "
            "a fixed result, so it fails whenever the live EUR rate moves. `invoice/rates.py` "
            "already has a `FIXED_RATES` table meant for tests."
        ),
    ],
    [
        _s(
            "Letting the converter take a rate table.",
            "edit_file",
            path="invoice/convert.py",
            old="def convert(amount, currency):",
            new="def convert(amount, currency, rates=None):",
        ),
        _s(
            "Using the fixed table in the test.",
            "edit_file",
            path="tests/test_convert.py",
            old="convert(Decimal('10.00'), 'EUR')",
            new="convert(Decimal('10.00'), 'EUR', rates=FIXED_RATES)",
        ),
        _s("Checking the conversion tests.", "run_tests", target="tests/test_convert.py"),
        _s("The conversion test now uses `FIXED_RATES` and passes deterministically."),
    ],
    [
        _s("Running everything.", "run_tests", target="tests"),
        _s(
            "All 41 tests pass. Changes: `round_cents()` uses banker's rounding; "
            "`invoice_total()` rounds once on the exact sum; `convert()` accepts a rate table and "
            "its test uses `FIXED_RATES`, so it no longer depends on the network."
        ),
    ],
    [
        _s("Searching for hand-rolled rounding.", "grep", pattern="quantize(", path="."),
        _s(
            "Only `invoice/money.py` calls `quantize()`; every other module goes through "
            "`round_cents()`, so the fix covers them all."
        ),
    ],
    [
        _s("Reading the changelog.", "read_file", path="CHANGELOG.md"),
        _s(
            "Adding the entry.",
            "edit_file",
            path="CHANGELOG.md",
            old="## Unreleased\n",
            new="## Unreleased\n- Totals use banker's rounding once on the sum.\n"
            "- Currency conversion tests use the fixed rate table.\n",
        ),
        _s("The changelog has an entry under Unreleased for both fixes."),
    ],
]

BUILTIN = Script(
    rules=[Rule(turn=i + 1, steps=steps) for i, steps in enumerate(_TURNS)],
    prompts=list(BUILTIN_PROMPTS),
)


def builtin_requests_per_session() -> int:
    """How many requests one pass through the built-in session makes (one per step)."""
    return sum(len(steps) for steps in _TURNS)

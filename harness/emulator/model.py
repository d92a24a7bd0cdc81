"""The emulator's scripted model: deterministic replies and tool calls from a script.

A script is a list of rules. A rule applies to a user turn (by its number, 1-based, counting user
messages that carry text) or to the latest user text (`match`, a case-insensitive regular
expression), and holds the steps the model takes for that turn: each step is one reply, with an
optional tool call. The step number is how many assistant replies follow the latest user text, so
an agent loop (tool call -> tool result -> next request) walks through the steps, and the reply
depends on the request body only: retries, parallel clients and restarts all get the same answer.

`BUILTIN` is a realistic coding session of 32 user turns (explore, read files, edit, run tests,
fix, re-run, review, document) used by the demo and by anyone who does not bring a script.
A script with `explore: true` answers the turns no rule covers by exploring with whatever tools
the request offers (`prefixlock.emulator.explore`); `EXPLORER` is such a script with no rules, used
by `prefixlock run` on the emulator.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from ..tokenizer import count_tokens
from ._files import read_data


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
    """A whole script; `prompts` are the user messages of the session it was written for.

    As a file (`prefixlock serve --script FILE`, YAML or JSON, checked field by field)::

        default: "Done."                  # the reply to a turn no rule covers
        rules:
          - match: "deploy"               # a regular expression on the user's latest text
            steps:                        # (case-insensitive); match rules are tried first
              - text: "Not on a Friday."
          - turn: 2                       # the 2nd user message (1-based)
            steps:                        # one step per request of the turn, in order; a
              - text: "Running them."     # step with `tool` replies with that tool call
                tool: run_tests           # (when the request offers the tool)
                input: {target: tests}
              - text: "All green."
    """

    model_config = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    default: str = "Understood. Nothing else to do here."
    # A turn no rule covers is explored with whatever tools the request offers
    # (prefixlock.emulator.explore) instead of getting `default`.
    explore: bool = False

    @classmethod
    def load(cls, path: str | Path) -> Script:
        """Read a YAML or JSON script; a mistake names the file and the field."""
        p = Path(path)
        data = read_data(p, "script")
        if data is not None and not isinstance(data, dict):
            raise ConfigError("expected a mapping with rules and prompts", where=str(p))
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
    # Tool results since the latest user text, in order (what the tools returned to the model).
    results: tuple[str, ...] = ()
    # Input schema of each offered tool, by name (where the wire format carries one).
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def offered_tools(
    specs: Iterable[Any], schema_key: str
) -> tuple[tuple[str, ...], dict[str, Mapping[str, Any]]]:
    """`Conversation.tools` and `.schemas` from a request's tool specs (non-mappings skipped);
    `schema_key` names where the wire format keeps the input schema."""
    found = [s for s in specs if isinstance(s, Mapping)]
    names = tuple(str(s.get("name")) for s in found)
    schemas = {
        str(s.get("name")): s[schema_key] for s in found if isinstance(s.get(schema_key), Mapping)
    }
    return names, schemas


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
        if rule is None and self.script.explore:
            return self._explore(conv)
        if rule is None:
            return Reply(self.script.default)
        if conv.step >= len(rule.steps):
            # Past the script's steps: close the turn rather than loop on tools forever.
            last = rule.steps[-1]
            return Reply(last.text if last.tool is None and last.text else "Done.")
        step = rule.steps[conv.step]
        if step.tool is None:
            return Reply(step.text or "OK.")
        if step.tool not in conv.tools:  # a model can only call the tools it is offered
            return Reply(f"{step.text} (I would use `{step.tool}`, but it is not available.)")
        seed = f"{conv.user_turn}:{conv.step}:{conv.user_text}".encode()
        call_id = hashlib.sha256(seed).hexdigest()[:20]
        return Reply(step.text, (ToolCallOut(call_id, step.tool, dict(step.input)),))

    def _explore(self, conv: Conversation) -> Reply:
        from . import explore

        results = conv.results[: conv.step]
        call = explore.next_call(conv.user_text, conv.tools, conv.schemas, results)
        if call is None:
            return Reply(explore.answer(conv.user_text, conv.tools, conv.schemas, results))
        name, args = call
        seed = f"{conv.user_turn}:{conv.step}:{conv.user_text}".encode()
        call_id = hashlib.sha256(seed).hexdigest()[:20]
        return Reply(f"Calling {name}.", (ToolCallOut(call_id, name, args),))


def _s(text: str, tool: str | None = None, **kw: Any) -> Step:
    return Step(text=text, tool=tool, input=kw)


# The built-in coding session. The tools it calls are those of prefixlock.demo's workspace:
# list_files, read_file, grep, edit_file, run_tests, git_diff.
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
    "A customer in Jersey was charged 20% VAT, but Jersey is zero-rated. Find where tax is "
    "computed.",
    "Write a failing test for it first.",
    "Now fix it.",
    "Run the whole suite.",
    "Show me the diff so far.",
    "Vouchers are taken off after tax, but the contract says they come off the net amount. "
    "Look at the discounts module.",
    "Change it so vouchers come off the net before tax, and update the test that pins the old "
    "order.",
    "Does anything else depend on the old order?",
    "Fix the report so its columns add up, without duplicating the voucher rule.",
    "Add type hints to invoice/totals.py.",
    "Rename fetch_rates to fetch_live_rates everywhere; the old name hides that it calls the "
    "network.",
    "The half-cent lines come from a fixture in conftest. Is it still right after the rounding "
    "change?",
    "A refund's credit note came out one cent off. Look at the credit notes code.",
    "Add a regression test with the amounts from the ticket (0.10, 0.20 and 2.675), then fix it.",
    "Run the whole suite.",
    "Review all the changes for anything risky before I open the pull request.",
    "Add a test for a voucher bigger than the order.",
    "Update the README: how to run the tests, and that they never reach the network.",
    "Add changelog entries for the tax, voucher and credit note fixes.",
    "Final run of the whole suite.",
    "Write a commit message for all of this.",
    "Thanks. Anything you would flag for the next person who works on this?",
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
            "`ROUND_HALF_UP`; `invoice/totals.py` calls it on every line before summing."
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
            "Importing banker's rounding.",
            "edit_file",
            path="invoice/money.py",
            old="from decimal import ROUND_HALF_UP, Decimal",
            new="from decimal import ROUND_HALF_EVEN, Decimal",
        ),
        _s(
            "Using it in `round_cents()`.",
            "edit_file",
            path="invoice/money.py",
            old="rounding=ROUND_HALF_UP",
            new="rounding=ROUND_HALF_EVEN",
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
            old="def convert(amount, currency):\n    rates = fetch_rates()\n",
            new="def convert(amount, currency, rates=None):\n    if rates is None:\n"
            "        rates = fetch_rates()\n",
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
    # 11: a new bug report
    [
        _s("Searching for the tax functions.", "grep", pattern="def tax", path="invoice"),
        _s("Reading the tax module.", "read_file", path="invoice/tax.py"),
        _s(
            "Tax is computed in `invoice/tax.py`: `tax_for()` multiplies by `tax_rate(region)`. "
            "`ZERO_RATED` lists Jersey (`JE`), Guernsey and Gibraltar, but `tax_rate()` never "
            "consults it, so those regions fall through to the 20% default."
        ),
    ],
    [
        _s("Reading the tax tests.", "read_file", path="tests/test_tax.py"),
        _s(
            "Adding a test for a zero-rated region.",
            "edit_file",
            path="tests/test_tax.py",
            old="    assert tax_for(Decimal('100.00'), region) == Decimal(expected)\n",
            new="    assert tax_for(Decimal('100.00'), region) == Decimal(expected)\n\n\n"
            "def test_zero_rated_region():\n"
            "    assert tax_for(Decimal('100.00'), 'JE') == Decimal('0.00')\n",
        ),
        _s("Running it to see it fail.", "run_tests", target="tests/test_tax.py"),
        _s(
            "`test_zero_rated_region` fails as expected: Jersey gets 20.00 of tax on 100.00 "
            "instead of 0.00. The other 9 tax tests pass."
        ),
    ],
    [
        _s(
            "Checking `ZERO_RATED` before the rate table.",
            "edit_file",
            path="invoice/tax.py",
            old="    return RATES.get(region, Decimal('0.20'))\n",
            new="    if region in ZERO_RATED:\n        return Decimal('0')\n"
            "    return RATES.get(region, Decimal('0.20'))\n",
        ),
        _s("Running the tax tests.", "run_tests", target="tests/test_tax.py"),
        _s("`tax_rate()` returns 0 for zero-rated regions now; all 10 tax tests pass."),
    ],
    [
        _s("Running the whole suite.", "run_tests", target="tests"),
        _s("All 42 tests pass (41 before, plus the new zero-rated test)."),
    ],
    [
        _s("Listing the changed files.", "git_diff"),
        _s(
            "Changed so far: `invoice/money.py` (banker's rounding), `invoice/totals.py` (round "
            "once, on the sum), `invoice/convert.py` and `tests/test_convert.py` (injectable rate "
            "table, fixed rates in the test), `invoice/tax.py` and `tests/test_tax.py` "
            "(zero-rated regions), and `CHANGELOG.md`."
        ),
    ],
    # 16: vouchers
    [
        _s("Reading the discounts module.", "read_file", path="invoice/discounts.py"),
        _s("Reading its test.", "read_file", path="tests/test_discounts.py"),
        _s(
            "`discounted_total()` adds tax on the full net amount and subtracts the voucher from "
            "the gross, so tax is charged on money the customer never pays. `test_voucher` pins "
            "that: 100.00 net, a 10.00 voucher, DE -> 109.00. Under the contract it is "
            "(100.00 - 10.00) x 1.19 = 107.10."
        ),
    ],
    [
        _s(
            "Taking the voucher off the net amount first.",
            "edit_file",
            path="invoice/discounts.py",
            old="    gross = net + tax_for(net, region)\n    return gross - voucher\n",
            new="    taxable = max(net - voucher, Decimal('0'))\n"
            "    return taxable + tax_for(taxable, region)\n",
        ),
        _s(
            "Updating the expected total.",
            "edit_file",
            path="tests/test_discounts.py",
            old="== Decimal('109.00')",
            new="== Decimal('107.10')",
        ),
        _s("Running the discount tests.", "run_tests", target="tests/test_discounts.py"),
        _s(
            "Vouchers now come off the net amount and tax is charged on what remains; "
            "`test_voucher` expects 107.10 and all 7 discount tests pass."
        ),
    ],
    [
        _s("Searching for callers.", "grep", pattern="discounted_total", path="."),
        _s("Reading the report module.", "read_file", path="invoice/reports.py"),
        _s(
            "One: `invoice/reports.py`. `report_line()` takes the total from "
            "`discounted_total()` but computes its tax column on the full net amount, so for "
            "invoices with a voucher net + tax no longer equals the total."
        ),
    ],
    [
        _s(
            "Giving the voucher rule a name.",
            "edit_file",
            path="invoice/discounts.py",
            old="def discounted_total(net, voucher, region):\n",
            new="def taxable_amount(net, voucher):\n"
            '    """The amount tax is charged on: net minus the voucher, never below zero."""\n'
            "    return max(net - voucher, Decimal('0'))\n\n\n"
            "def discounted_total(net, voucher, region):\n",
        ),
        _s(
            "Using it in the total.",
            "edit_file",
            path="invoice/discounts.py",
            old="    taxable = max(net - voucher, Decimal('0'))\n",
            new="    taxable = taxable_amount(net, voucher)\n",
        ),
        _s(
            "Importing it in the report.",
            "edit_file",
            path="invoice/reports.py",
            old="from .discounts import discounted_total\n",
            new="from .discounts import discounted_total, taxable_amount\n",
        ),
        _s(
            "Taxing the same amount in the report.",
            "edit_file",
            path="invoice/reports.py",
            old="    tax = tax_for(invoice.net, invoice.region)\n",
            new="    tax = tax_for(taxable_amount(invoice.net, invoice.voucher), invoice.region)\n",
        ),
        _s("Running the suite.", "run_tests", target="tests"),
        _s(
            "`taxable_amount()` in `invoice/discounts.py` is now the one place the voucher rule "
            "lives; `discounted_total()` and `report_line()` both use it, so the report's columns "
            "add up. All 42 tests pass."
        ),
    ],
    # 20: housekeeping
    [
        _s("Reading the data classes.", "read_file", path="invoice/models.py"),
        _s(
            "Importing the types.",
            "edit_file",
            path="invoice/totals.py",
            old="from .money import round_cents\n",
            new="from collections.abc import Iterable\nfrom decimal import Decimal\n\n"
            "from .models import Line\nfrom .money import round_cents\n",
        ),
        _s(
            "Annotating the function.",
            "edit_file",
            path="invoice/totals.py",
            old="def invoice_total(lines):",
            new="def invoice_total(lines: Iterable[Line]) -> Decimal:",
        ),
        _s("Running the totals tests.", "run_tests", target="tests/test_totals.py"),
        _s(
            "`invoice_total()` is annotated as `(lines: Iterable[Line]) -> Decimal`, using the "
            "`Line` data class from `invoice/models.py`; the 12 totals tests pass."
        ),
    ],
    [
        _s("Finding every use.", "grep", pattern="fetch_rates", path="."),
        _s(
            "Renaming the definition.",
            "edit_file",
            path="invoice/rates.py",
            old="def fetch_rates():",
            new="def fetch_live_rates():",
        ),
        _s(
            "Renaming the import.",
            "edit_file",
            path="invoice/convert.py",
            old="from .rates import fetch_rates\n",
            new="from .rates import fetch_live_rates\n",
        ),
        _s(
            "Renaming the call.",
            "edit_file",
            path="invoice/convert.py",
            old="        rates = fetch_rates()\n",
            new="        rates = fetch_live_rates()\n",
        ),
        _s("Running the suite.", "run_tests", target="tests"),
        _s(
            "`fetch_rates` is now `fetch_live_rates` in `invoice/rates.py` and its two uses in "
            "`invoice/convert.py`; nothing else referred to it. All 42 tests pass."
        ),
    ],
    [
        _s("Reading the fixtures.", "read_file", path="tests/conftest.py"),
        _s(
            "Yes. `lines_with_half_cents` holds 2.505, 2.50 and 5.12: the exact sum is 10.125, "
            "which banker's rounding takes to 10.12, the value the test expects. Rounding each "
            "line half up first would give 10.13, the old failure, so the fixture still pins "
            "exactly the behaviour we changed."
        ),
    ],
    # 23: credit notes
    [
        _s("Reading the credit notes module.", "read_file", path="invoice/credit_notes.py"),
        _s("Looking for other float arithmetic.", "grep", pattern="float(", path="invoice"),
        _s(
            "`credit_total()` sums the amounts as floats and rounds with `round()`, which breaks "
            "the rule that money is always Decimal: 2.675 is stored as 2.67499..., so a "
            "half-cent can round the wrong way. It is the only float arithmetic in `invoice/`."
        ),
    ],
    [
        _s("Reading the credit note tests.", "read_file", path="tests/test_credit_notes.py"),
        _s(
            "Adding the ticket's amounts as a test.",
            "edit_file",
            path="tests/test_credit_notes.py",
            old="Decimal('-7.50')\n",
            new="Decimal('-7.50')\n\n\ndef test_credit_total_float_drift():\n"
            "    lines = [Line(Decimal('0.10')), Line(Decimal('0.20')), Line(Decimal('2.675'))]\n"
            "    assert credit_total(lines) == Decimal('-2.98')\n",
        ),
        _s("Running it to see it fail.", "run_tests", target="tests/test_credit_notes.py"),
        _s(
            "It fails with -2.97. Switching to the money helper.",
            "edit_file",
            path="invoice/credit_notes.py",
            old="from decimal import Decimal\n",
            new="from .money import round_cents\n",
        ),
        _s(
            "Summing in Decimal.",
            "edit_file",
            path="invoice/credit_notes.py",
            old="    total = sum(float(line.amount) for line in lines)\n"
            "    return -Decimal(str(round(total, 2)))\n",
            new="    return -round_cents(sum(line.amount for line in lines))\n",
        ),
        _s("Running the credit note tests.", "run_tests", target="tests/test_credit_notes.py"),
        _s(
            "The regression test failed first (-2.97 instead of -2.98); `credit_total()` now sums "
            "Decimal amounts and rounds with `round_cents()`, and all 6 credit note tests pass."
        ),
    ],
    [
        _s("Running the whole suite.", "run_tests", target="tests"),
        _s("All 43 tests pass."),
    ],
    [
        _s("Listing what changed.", "git_diff"),
        _s("Re-reading the voucher code.", "read_file", path="invoice/discounts.py"),
        _s(
            "Nothing risky in the rounding, tax, rename or credit note changes. One thing to "
            "decide: `taxable_amount()` clamps at zero, so a voucher larger than the order makes "
            "the invoice free and the rest of the voucher silently disappears. That matches the "
            "contract as I read it, but no test pins it."
        ),
    ],
    [
        _s(
            "Pinning the clamp.",
            "edit_file",
            path="tests/test_discounts.py",
            old="Decimal('107.10')\n",
            new="Decimal('107.10')\n\n\ndef test_voucher_bigger_than_order():\n"
            "    assert discounted_total(Decimal('5.00'), Decimal('10.00'), 'DE') == "
            "Decimal('0.00')\n",
        ),
        _s("Running the discount tests.", "run_tests", target="tests/test_discounts.py"),
        _s("`test_voucher_bigger_than_order` pins a zero total; all 8 discount tests pass."),
    ],
    # 28: docs and wrap-up
    [
        _s("Reading the README.", "read_file", path="README.md"),
        _s(
            "Adding a testing section.",
            "edit_file",
            path="README.md",
            old="Run `pytest` to test; `make lint` to lint.\n",
            new="Run `pytest` to test; `make lint` to lint.\n\n## Tests\n\n"
            "`pytest` runs the whole suite offline: tests never reach the network. Exchange "
            "rates come from `FIXED_RATES`, and fixtures live in `tests/conftest.py`.\n",
        ),
        _s(
            "The README has a Tests section: how to run them, and that they use `FIXED_RATES` "
            "and the fixtures in `tests/conftest.py` instead of the network."
        ),
    ],
    [
        _s("Reading the changelog.", "read_file", path="CHANGELOG.md"),
        _s(
            "Adding the entries.",
            "edit_file",
            path="CHANGELOG.md",
            old="- Currency conversion tests use the fixed rate table.\n",
            new="- Currency conversion tests use the fixed rate table.\n"
            "- Zero-rated regions (JE, GG, GI) are charged no VAT.\n"
            "- Vouchers come off the net amount before tax; reports tax the same amount.\n"
            "- Credit note totals are computed in Decimal (no float drift).\n",
        ),
        _s("Three entries under Unreleased: zero-rated VAT, vouchers before tax, credit notes."),
    ],
    [
        _s("Running the whole suite.", "run_tests", target="tests"),
        _s("All 44 tests pass."),
    ],
    [
        _s("Collecting the changed files.", "git_diff"),
        _s(
            "Fix invoice rounding, VAT, vouchers and credit notes\n\n"
            "- Totals use banker's rounding once, on the exact sum.\n"
            "- convert() takes a rate table; tests use FIXED_RATES (no network).\n"
            "- fetch_rates is renamed fetch_live_rates.\n"
            "- Zero-rated regions are charged no VAT.\n"
            "- Vouchers come off the net before tax (taxable_amount), reports tax that amount.\n"
            "- Credit notes sum Decimal amounts instead of floats.\n"
            "- invoice_total() has type hints; README and CHANGELOG updated.\n\n"
            "Tests: 44 passed (3 new)."
        ),
    ],
    [
        _s(
            "Three things: `fetch_live_rates()` is still untested and has no timeout; the other "
            "platform components round money with their own helpers, so the banker's rounding "
            "change does not reach them; and the voucher clamp should be confirmed with "
            "whoever owns the contract."
        ),
    ],
]

BUILTIN = Script(
    rules=[Rule(turn=i + 1, steps=steps) for i, steps in enumerate(_TURNS)],
    prompts=list(BUILTIN_PROMPTS),
)


# For clients whose tools the built-in session does not know (`prefixlock run`): every turn
# explores with the offered tools and summarizes what they returned.
EXPLORER = Script(explore=True)


def builtin_requests_per_session() -> int:
    """How many requests one pass through the built-in session makes (one per step)."""
    return sum(len(steps) for steps in _TURNS)

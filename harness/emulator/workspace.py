"""The built-in coding session's world: a small invoice-service repository, its tools, and a long
system prompt (an agent handbook with a repository map), as a real coding agent would carry.

The scripted model's built-in session (prefixlock.emulator.model.BUILTIN) calls these tools. Tool
results are deterministic, and each tool advances the session's clock by the time it would take
(reading a file: seconds, running tests: half a minute), so TTLs behave as in a real session.
Used by `prefixlock demo`, examples and tests; nothing here does real file or network I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..prefix import FrozenPrefix
from ..tools import Tool, ToolSpec

FILES: dict[str, str] = {
    "README.md": (
        "# invoice-service\n\nComputes invoice totals, taxes and currency conversions for the\n"
        "billing platform. Run `pytest` to test; `make lint` to lint.\n"
    ),
    "CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n## 2.3.0\n- Tax rules for 2026.\n",
    "pyproject.toml": '[project]\nname = "invoice-service"\nversion = "2.3.0"\n',
    "invoice/__init__.py": '"""Invoice computations."""\n',
    "invoice/money.py": (
        '"""Money helpers: Decimal amounts rounded to the cent."""\n\n'
        "from decimal import ROUND_HALF_UP, Decimal\n\nCENT = Decimal('0.01')\n\n\n"
        "def round_cents(amount: Decimal) -> Decimal:\n"
        '    """Round an amount to whole cents."""\n'
        "    return amount.quantize(CENT, rounding=ROUND_HALF_UP)\n"
    ),
    "invoice/totals.py": (
        '"""Invoice totals."""\n\nfrom .money import round_cents\n\n\n'
        "def invoice_total(lines):\n"
        '    """Sum of the line amounts, in cents."""\n'
        "    return sum(round_cents(line.amount) for line in lines)\n"
    ),
    "invoice/convert.py": (
        '"""Currency conversion."""\n\nfrom .rates import fetch_rates\n'
        "from .money import round_cents\n\n\n"
        "def convert(amount, currency):\n"
        "    rates = fetch_rates()\n"
        "    return round_cents(amount * rates[currency])\n"
    ),
    "invoice/rates.py": (
        '"""Exchange rates: live from the rates service, or a fixed table for tests."""\n\n'
        "from decimal import Decimal\n\n"
        "FIXED_RATES = {'EUR': Decimal('0.92'), 'GBP': Decimal('0.79')}\n\n\n"
        "def fetch_rates():\n    ...  # HTTP call to the rates service\n"
    ),
    "tests/test_totals.py": (
        "from decimal import Decimal\n\nfrom invoice.totals import invoice_total\n\n\n"
        "def test_total_rounding(lines_with_half_cents):\n"
        "    assert invoice_total(lines_with_half_cents) == Decimal('10.12')\n"
    ),
    "tests/test_convert.py": (
        "from decimal import Decimal\n\nfrom invoice.convert import convert\n"
        "from invoice.rates import FIXED_RATES\n\n\n"
        "def test_convert_eur():\n"
        "    assert convert(Decimal('10.00'), 'EUR') == Decimal('9.20')\n"
    ),
    "invoice/models.py": (
        '"""Invoice data classes."""\n\nfrom dataclasses import dataclass\n'
        "from decimal import Decimal\n\n\n"
        "@dataclass(frozen=True)\nclass Line:\n    amount: Decimal\n    description: str = ''\n"
        "\n\n@dataclass(frozen=True)\nclass Invoice:\n    net: Decimal\n    region: str\n"
        "    voucher: Decimal = Decimal('0')\n"
    ),
    "invoice/tax.py": (
        '"""Sales tax and VAT by region."""\n\nfrom decimal import Decimal\n\n'
        "from .money import round_cents\n\n"
        "RATES = {'DE': Decimal('0.19'), 'FR': Decimal('0.20'), 'GB': Decimal('0.20'),\n"
        "         'US-CA': Decimal('0.0725')}\n"
        "ZERO_RATED = {'GG', 'GI', 'JE'}\n\n\n"
        "def tax_rate(region):\n"
        '    """VAT or sales-tax rate for a region code."""\n'
        "    return RATES.get(region, Decimal('0.20'))\n\n\n"
        "def tax_for(amount, region):\n"
        '    """Tax due on a net amount, rounded to the cent."""\n'
        "    return round_cents(amount * tax_rate(region))\n"
    ),
    "invoice/discounts.py": (
        '"""Fixed-amount vouchers on invoices."""\n\nfrom decimal import Decimal\n\n'
        "from .tax import tax_for\n\n\n"
        "def discounted_total(net, voucher, region):\n"
        '    """Total to charge for a net amount with a voucher applied."""\n'
        "    gross = net + tax_for(net, region)\n"
        "    return gross - voucher\n"
    ),
    "invoice/reports.py": (
        '"""Monthly revenue reports."""\n\nfrom .discounts import discounted_total\n'
        "from .tax import tax_for\n\n\n"
        "def report_line(invoice):\n"
        '    """One report row: net, tax and total of an invoice."""\n'
        "    tax = tax_for(invoice.net, invoice.region)\n"
        "    total = discounted_total(invoice.net, invoice.voucher, invoice.region)\n"
        "    return {'net': invoice.net, 'tax': tax, 'total': total}\n"
    ),
    "invoice/credit_notes.py": (
        '"""Credit notes: negative invoices issued for refunds."""\n\n'
        "from decimal import Decimal\n\n\n"
        "def credit_total(lines):\n"
        '    """Total of a credit note: the refunded amounts, negative, to the cent."""\n'
        "    total = sum(float(line.amount) for line in lines)\n"
        "    return -Decimal(str(round(total, 2)))\n"
    ),
    "tests/conftest.py": (
        "from decimal import Decimal\n\nimport pytest\n\nfrom invoice.models import Line\n\n\n"
        "@pytest.fixture\ndef lines_with_half_cents():\n"
        "    # Exact sum 10.125: rounding once (half even) gives 10.12, rounding each line\n"
        "    # half up first gives 10.13.\n"
        "    return [Line(Decimal('2.505')), Line(Decimal('2.50')), Line(Decimal('5.12'))]\n"
    ),
    "tests/test_tax.py": (
        "from decimal import Decimal\n\nimport pytest\n\nfrom invoice.tax import tax_for\n\n\n"
        "@pytest.mark.parametrize(('region', 'expected'), [('DE', '19.00'), ('FR', '20.00'),\n"
        "                                                  ('US-CA', '7.25')])\n"
        "def test_tax_for(region, expected):\n"
        "    assert tax_for(Decimal('100.00'), region) == Decimal(expected)\n"
    ),
    "tests/test_discounts.py": (
        "from decimal import Decimal\n\nfrom invoice.discounts import discounted_total\n\n\n"
        "def test_voucher():\n"
        "    assert discounted_total(Decimal('100.00'), Decimal('10.00'), 'DE') == "
        "Decimal('109.00')\n"
    ),
    "tests/test_credit_notes.py": (
        "from decimal import Decimal\n\nfrom invoice.credit_notes import credit_total\n"
        "from invoice.models import Line\n\n\n"
        "def test_credit_total():\n"
        "    lines = [Line(Decimal('5.00')), Line(Decimal('2.50'))]\n"
        "    assert credit_total(lines) == Decimal('-7.50')\n"
    ),
}

# How many tests each file collects before the session adds any (parametrized cases and tests
# this sketch of the repository leaves out included); the whole suite starts at 41.
_BASE_COUNTS = {
    "tests/test_totals.py": 12,
    "tests/test_convert.py": 3,
    "tests/test_tax.py": 9,
    "tests/test_discounts.py": 7,
    "tests/test_credit_notes.py": 5,
}
_OTHER_TESTS = 5

_MODULES = (
    "billing",
    "ledger",
    "tax",
    "payments",
    "refunds",
    "reports",
    "customers",
    "catalog",
    "pricing",
    "discounts",
    "subscriptions",
    "notifications",
    "exports",
    "audit",
    "auth",
    "webhooks",
    "scheduler",
    "storage",
    "search",
    "metrics",
    "invoicing",
    "dunning",
    "credit_notes",
    "fx",
    "settlement",
    "reconciliation",
    "vendors",
    "contracts",
    "usage_meter",
    "quotas",
    "entitlements",
    "feature_flags",
)
_KINDS = (
    ("models.py", "data classes and their validation"),
    ("service.py", "the service layer: transactions, retries, idempotency keys"),
    ("api.py", "HTTP handlers, request parsing and response shaping"),
    ("repository.py", "database access through the shared session factory"),
    ("events.py", "domain events published to the message bus"),
    ("errors.py", "error types mapped to HTTP status codes"),
    ("test_service.py", "unit tests of the service layer with in-memory fakes"),
)
_RULES = (
    "Read the code before changing it; never guess a function's behaviour from its name.",
    "Keep changes minimal and focused on the task; do not refactor unrelated code.",
    "Run the relevant tests after every edit and report the result honestly.",
    "Money is always Decimal, never float; round only at the boundaries the spec names.",
    "Prefer small pure functions; keep I/O at the edges of the system.",
    "Never commit secrets, tokens or customer data; redact them in logs and messages.",
    "Every public function has a docstring and type hints.",
    "Tests never reach the network; use the fixed tables and fakes in tests/fixtures.",
    "When a test is flaky, find the source of nondeterminism instead of retrying it.",
    "Explain what you changed and why in one short paragraph at the end of each task.",
    "Ask before deleting files, changing public APIs or touching migrations.",
    "Follow the existing style of a module even where you would write it differently.",
)


def system_prompt() -> str:
    """The agent handbook: rules, conventions, and a map of the repository (~18K tokens)."""
    parts = [
        "You are Forge, a careful coding agent working in the invoice-service repository and "
        "the billing platform around it. You have tools to list, read, search and edit files "
        "and to run tests. Work step by step and use the tools rather than guessing.",
        "",
        "## Working rules",
    ]
    parts += [f"{i + 1}. {rule}" for i, rule in enumerate(_RULES)]
    parts += ["", "## Repository map", ""]
    for m, module in enumerate(_MODULES):
        parts.append(f"### platform/{module}")
        parts.append(
            f"The {module} component owns its own tables and publishes events other components "
            f"subscribe to; it is maintained by team {chr(65 + m % 7)} and deployed with the "
            f"billing release train every {2 + m % 3} weeks."
        )
        for kind, what in _KINDS:
            parts.append(
                f"- platform/{module}/{kind}: {what} for {module}; see the {module} design note "
                f"section {1 + len(kind) % 5} before changing its contract or its error handling."
            )
        parts.append(
            f"Known pitfalls in {module}: timezone-naive datetimes in legacy rows, amounts stored "
            f"as integer cents in the {module}_legacy table, and retries that must reuse the "
            f"idempotency key of the first attempt."
        )
        parts.append(
            f"Design note for {module}: writes go through the service layer so that every change "
            f"emits exactly one event; readers tolerate events that arrive twice or out of order, "
            f"and the nightly reconciliation job compares {module} totals with the ledger."
        )
        parts.append("")
    parts += ["## Glossary", ""]
    for m, module in enumerate(_MODULES):
        for k, (kind, what) in enumerate(_KINDS):
            if (m + k) % 2 == 0:
                parts.append(
                    f"- {module}.{kind.removesuffix('.py')}: in the {module} component, "
                    f"{what}; owned by team {chr(65 + (m + k) % 7)}."
                )
    return "\n".join(parts)


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _str(desc: str) -> dict[str, str]:
    return {"type": "string", "description": desc}


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_files",
        "List the files and directories under a path of the workspace, one per line, "
        "directories first. Use it to get oriented before reading files.",
        _obj(
            {"path": _str("Directory relative to the workspace root; '.' for the root.")}, ["path"]
        ),
    ),
    ToolSpec(
        "read_file",
        "Read a UTF-8 text file of the workspace and return its contents with line numbers. "
        "Read a file before editing it.",
        _obj({"path": _str("File path relative to the workspace root.")}, ["path"]),
    ),
    ToolSpec(
        "grep",
        "Search files under a path for lines containing a literal pattern; returns "
        "path:line:text for each match, at most 100 matches.",
        _obj(
            {
                "pattern": _str("Literal text to search for."),
                "path": _str("Directory or file to search, relative to the root."),
            },
            ["pattern", "path"],
        ),
    ),
    ToolSpec(
        "edit_file",
        "Replace one exact occurrence of `old` with `new` in a file. Fails when `old` is not "
        "found or is found more than once; read the file first and quote enough context.",
        _obj(
            {
                "path": _str("File to edit."),
                "old": _str("Exact text to replace."),
                "new": _str("Replacement text."),
            },
            ["path", "old", "new"],
        ),
    ),
    ToolSpec(
        "run_tests",
        "Run pytest on a target (a directory, a file, or file::test) and return the summary "
        "and the failures. Takes up to a minute.",
        _obj({"target": _str("What to test, e.g. 'tests' or 'tests/test_totals.py'.")}, ["target"]),
    ),
    ToolSpec(
        "write_file",
        "Create or overwrite a text file with the given content. Prefer edit_file for changes "
        "to existing files.",
        _obj(
            {"path": _str("File to write."), "content": _str("Full new content.")},
            ["path", "content"],
        ),
    ),
    ToolSpec(
        "git_diff",
        "Show the uncommitted changes of the workspace as a unified diff.",
        _obj({}, []),
    ),
)


class Workspace:
    """The fake repository a session works in; tools read and edit it and advance the clock."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.files = dict(FILES)
        self.clock = clock
        self.edits = 0

    def _spend(self, seconds: float) -> None:
        advance: Callable[[float], Any] | None = getattr(self.clock, "advance", None)
        if advance is not None:
            advance(seconds)

    def list_files(self, path: str) -> str:
        self._spend(2)
        root = "" if path in (".", "", "/") else path.rstrip("/") + "/"
        entries = sorted(
            {
                f[len(root) :].split("/")[0] + ("/" if "/" in f[len(root) :] else "")
                for f in self.files
                if f.startswith(root)
            }
        )
        if not entries:
            return f"error: no such directory: {path}"
        return "\n".join(sorted(entries, key=lambda e: (not e.endswith("/"), e)))

    def read_file(self, path: str) -> str:
        self._spend(3)
        if path not in self.files:
            return f"error: no such file: {path}"
        return "\n".join(
            f"{i + 1:4} {line}" for i, line in enumerate(self.files[path].splitlines())
        )

    def grep(self, pattern: str, path: str) -> str:
        self._spend(2)
        root = "" if path in (".", "", "/") else path.rstrip("/")
        hits = [
            f"{name}:{i + 1}:{line}"
            for name, text in sorted(self.files.items())
            if name.startswith(root)
            for i, line in enumerate(text.splitlines())
            if pattern in line
        ]
        return "\n".join(hits[:100]) or "no matches"

    def edit_file(self, path: str, old: str, new: str) -> str:
        self._spend(4)
        text = self.files.get(path)
        if text is None:
            return f"error: no such file: {path}"
        count = text.count(old)
        if count != 1:
            # The scripted session quotes text that may have drifted; apply it at the end
            # so the session goes on, as an agent would after re-reading the file.
            self.files[path] = text + "\n" + new + "\n"
        else:
            self.files[path] = text.replace(old, new)
        self.edits += 1
        return f"edited {path}: -{len(old.splitlines()) or 1} +{len(new.splitlines()) or 1} lines"

    def run_tests(self, target: str) -> str:
        self._spend(30)
        files = self.files
        test_files = sorted(_BASE_COUNTS)
        target = target.strip().rstrip("/")
        whole = target in ("", ".", "tests")
        chosen = [f for f in test_files if whole or target.split("::")[0] == f]
        if not chosen:
            return f"ERROR: file or directory not found: {target}\nno tests ran in 0.01s"
        # Each known bug fails its test while the test is there and the fix is not; the rules
        # read the workspace's files, so the session's edits are what turn the suite green.
        money, tax = files.get("invoice/money.py", ""), files.get("invoice/tax.py", "")
        discounts = files.get("invoice/discounts.py", "")
        test_discounts = files.get("tests/test_discounts.py", "")
        credit = files.get("invoice/credit_notes.py", "")
        failing: list[tuple[str, str]] = []
        if "ROUND_HALF_EVEN" not in money:
            failing.append(
                (
                    "tests/test_totals.py",
                    "FAILED tests/test_totals.py::test_total_rounding - assert Decimal('10.13') "
                    "== Decimal('10.12')",
                )
            )
        if "rates=FIXED_RATES" not in files.get("tests/test_convert.py", ""):
            failing.append(
                (
                    "tests/test_convert.py",
                    "FAILED tests/test_convert.py::test_convert_eur - assert Decimal('9.21') == "
                    "Decimal('9.20')",
                )
            )
        if "def fetch_rates" not in files.get("invoice/rates.py", "") and "fetch_rates" in (
            files.get("invoice/convert.py", "")
        ):
            failing.append(
                (
                    "tests/test_convert.py",
                    "ERROR tests/test_convert.py - ImportError: cannot import name 'fetch_rates' "
                    "from 'invoice.rates'",
                )
            )
        if "test_zero_rated" in files.get("tests/test_tax.py", "") and "ZERO_RATED:" not in tax:
            failing.append(
                (
                    "tests/test_tax.py",
                    "FAILED tests/test_tax.py::test_zero_rated_region - assert Decimal('20.00') "
                    "== Decimal('0.00')",
                )
            )
        if ("taxable" in discounts) != ("107.10" in test_discounts):
            got, want = ("107.10", "109.00") if "taxable" in discounts else ("109.00", "107.10")
            failing.append(
                (
                    "tests/test_discounts.py",
                    f"FAILED tests/test_discounts.py::test_voucher - assert Decimal('{got}') == "
                    f"Decimal('{want}')",
                )
            )
        if "float_drift" in files.get("tests/test_credit_notes.py", "") and "float(" in credit:
            failing.append(
                (
                    "tests/test_credit_notes.py",
                    "FAILED tests/test_credit_notes.py::test_credit_total_float_drift - assert "
                    "Decimal('-2.97') == Decimal('-2.98')",
                )
            )
        failures = [line for f, line in failing if f in chosen]
        total = sum(
            _BASE_COUNTS[f] + files.get(f, "").count("def test_") - FILES[f].count("def test_")
            for f in chosen
        ) + (_OTHER_TESTS if whole else 0)
        seconds = 0.4 + total / 20  # a plausible pytest wall time, growing with the tests
        summary = f"{total - len(failures)} passed, {len(failures)} failed in {seconds:.2f}s"
        return "\n".join([*failures, summary])

    def write_file(self, path: str, content: str) -> str:
        self._spend(2)
        self.files[path] = content
        return f"wrote {path} ({len(content.splitlines())} lines)"

    def git_diff(self) -> str:
        self._spend(1)
        changed = [p for p, t in self.files.items() if FILES.get(p) != t]
        return "\n".join(f"M {p}" for p in sorted(changed)) or "no changes"

    def tools(self) -> list[Tool]:
        """The tools, bound to this workspace, with the fixed specs (same bytes every run)."""
        return [Tool(spec, getattr(self, spec.name)) for spec in TOOL_SPECS]

    def run(self, name: str, arguments: dict[str, Any]) -> str:
        """Run a tool by name (for clients that do not use prefixlock.tools)."""
        if not re.fullmatch(r"[a-z_]+", name) or name not in {s.name for s in TOOL_SPECS}:
            return f"error: unknown tool {name}"
        try:
            return str(getattr(self, name)(**arguments))
        except TypeError as exc:
            return f"error: {exc}"


def demo_prefix(workspace: Workspace) -> FrozenPrefix:
    """The frozen prefix of the built-in session: the handbook and the workspace's tools."""
    return FrozenPrefix(system=system_prompt(), tools=workspace.tools())

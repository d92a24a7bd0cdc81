"""Values followed across the modules of a linted project: a clock read, git output or a prompt
constant made in one file and written into a system prompt in another, in Python and in
TypeScript; what is imported from outside the linted folders is not followed."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths
from prefixlock.policies.findings import Finding


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _lint(*paths: Path) -> list[Finding]:
    return lint_paths([str(p) for p in paths], LintConfig(), jobs=1).findings


def _where(found: list[Finding]) -> list[tuple[str, int, str]]:
    return [(Path(f.path).name, f.line, f.code) for f in found]


_SEND = "    return client.messages.create(model='m', system=sp, messages=messages)\n"
# A helper whose name says nothing of a clock: only following the value finds one.
_CLOCK = "import time\n\ndef stamp():\n    return time.strftime('%H:%M:%S')\n"


def test_python_module_imported_as_a_name(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/helpers.py": _CLOCK,
            "app/agent.py": (
                "import app.helpers as h\n"
                "from . import helpers\n"
                "def run(client, messages):\n"
                "    sp = 'You are a bot. ' + h.stamp()\n" + _SEND + "def run2(client, messages):\n"
                "    sp = 'You are a bot. ' + helpers.stamp()\n" + _SEND
            ),
        },
    )
    found = _lint(tmp_path)
    assert _where(found) == [("agent.py", 4, "PL101"), ("agent.py", 7, "PL101")]
    assert "time.strftime() (made in app.helpers, line 4)" in found[0].message
    assert "(made in helpers, line 4)" in found[1].message


def test_python_value_followed_through_two_modules(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/clock.py": _CLOCK,
            "app/header.py": (
                "from .clock import stamp\n\ndef header(name):\n    return f'{name} @ {stamp()}'\n"
            ),
            "app/agent.py": (
                "from .header import header\n"
                "def run(client, messages):\n"
                "    sp = 'You are a bot. ' + header('x')\n" + _SEND
            ),
        },
    )
    found = _lint(tmp_path)
    assert _where(found) == [("agent.py", 3, "PL101")]
    # The line named is where the clock is read, in the module that reads it.
    assert "(made in clock, line 4)" in found[0].message


def test_python_imported_constant(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/consts.py": (
                "import datetime\n"
                "BANNER = f'Session started {datetime.datetime.now():%Y-%m-%d %H:%M}'\n"
                "STABLE = 'Be brief.'\n"
            ),
            "app/agent.py": (
                "from app import consts\n"
                "from app.consts import BANNER, STABLE\n"
                "def run(client, messages):\n"
                "    sp = f'You are a bot. {STABLE} {BANNER}'\n"
                + _SEND
                + "def run2(client, messages):\n"
                "    sp = 'Bot. ' + consts.BANNER\n" + _SEND
            ),
        },
    )
    found = _lint(tmp_path)
    assert _where(found) == [("agent.py", 4, "PL101"), ("agent.py", 7, "PL101")]
    # Read once, when the other module is imported: a note, as a clock read at import here.
    assert {f.severity for f in found} == {"note"}
    assert "(made in app.consts, line 2)" in found[0].message


def test_python_stable_constant_and_a_clock_only_logged(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/utils.py": (
                "from datetime import datetime\n"
                "RULES = 'Be brief. Cite sources.'\n"
                "def current():\n"
                "    return datetime.now().isoformat()\n"
            ),
            "app/agent.py": (
                "import logging\n"
                "from .utils import RULES, current\n"
                "log = logging.getLogger(__name__)\n"
                "def run(client, messages):\n"
                "    log.info('request at %s', current())\n"
                "    sp = f'You are helpful. {RULES}'\n" + _SEND
            ),
        },
    )
    assert _lint(tmp_path) == []


def test_python_import_outside_the_linted_folder_is_not_followed(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "lib/clock.py": _CLOCK,
            "app/agent.py": (
                "from lib.clock import stamp\n"
                "def run(client, messages):\n"
                "    sp = 'You are a bot. ' + stamp()\n" + _SEND
            ),
        },
    )
    assert _lint(tmp_path / "app") == []
    assert _where(_lint(tmp_path)) == [("agent.py", 3, "PL101")]
    # Inside the project the linted folder is part of (a folder with a project file), it is.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert _where(_lint(tmp_path / "app")) == [("agent.py", 3, "PL101")]


_TS_SEND = "  return client.messages.create({ model: 'm', system, messages, max_tokens: 10 });\n}\n"


def _ts_agent(imports: str, expr: str) -> str:
    return (
        f"{imports}\n"
        "export async function run(client: any, messages: any[]) {\n"
        f"  const system = 'You are helpful. ' + {expr};\n" + _TS_SEND
    )


def test_ts_renamed_export_and_reexport_through_an_index(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a/prompts.ts": "const made = new Date().toISOString();\nexport { made as HEADER };\n",
            "a/agent.ts": _ts_agent('import { HEADER } from "./prompts";', "HEADER"),
            "b/fmt.ts": "export function fmt(): string {\n  return new Date().toString();\n}\n",
            "b/index.ts": 'export { fmt as label } from "./fmt";\n',
            "b/agent.ts": _ts_agent('import { label } from ".";', "label()"),
            "c/lib/util/clock.ts": "export const header = () => `${new Date().toString()}`;\n",
            "c/lib/util/index.ts": 'export * from "./clock";\n',
            "c/agent.ts": _ts_agent('import { header } from "./lib/util/index.js";', "header()"),
        },
    )
    found = [f for f in _lint(tmp_path) if f.line == 3]
    assert [(Path(f.path).parent.name, f.code) for f in found] == [
        ("a", "PL101"),
        ("b", "PL101"),
        ("c", "PL101"),
    ]
    assert "line 1 of" in found[0].message and "prompts.ts" in found[0].message
    assert "line 2 of" in found[1].message and "fmt.ts" in found[1].message
    assert "clock.ts" in found[2].message


def test_ts_stable_constant_and_a_clock_only_logged(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "util.ts": (
                'export const RULES = "Be brief.";\n'
                "export function current(): string { return new Date().toISOString(); }\n"
            ),
            "agent.ts": (
                'import { RULES, current } from "./util";\n'
                "export async function run(client: any, messages: any[]) {\n"
                "  console.log(`request at ${current()}`);\n"
                "  const system = `You are helpful. ${RULES}`;\n" + _TS_SEND
            ),
        },
    )
    assert _lint(tmp_path) == []


def test_ts_helper_read_afresh_on_each_run(tmp_path: Path) -> None:
    # A helper module changed between two runs in one process is read again.
    _write(
        tmp_path,
        {
            "util.ts": "export function current(): string { return new Date().toString(); }\n",
            "agent.ts": _ts_agent('import { current } from "./util";', "current()"),
        },
    )
    assert [f.code for f in _lint(tmp_path) if f.line == 3] == ["PL101"]
    (tmp_path / "util.ts").write_text('export function current(): string { return "v1"; }\n')
    assert _lint(tmp_path) == []

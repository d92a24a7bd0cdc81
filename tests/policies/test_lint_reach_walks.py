"""The request-reach index (`pycheck.reach`, `jscheck.reach`) reads each function's body once,
not once a finding: a finding's callers are looked up in what each function calls, worked out
once. Counted, not timed, on files of n and 2n functions each with a finding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from prefixlock.policies.jscheck import check_js
from prefixlock.policies.jscheck import reach as js_reach
from prefixlock.policies.pycheck import check_python
from prefixlock.policies.pycheck import reach as py_reach


def _py(n: int) -> str:
    return "from datetime import datetime\n\n" + "".join(
        f"def build_system_prompt_{i}():\n"
        f"    return f'You are agent {i}. Today is {{datetime.now()}}'\n\n"
        for i in range(n)
    )


def _ts(n: int) -> str:
    return "".join(
        f"function buildSystemPrompt{i}() {{\n"
        f"  return `You are agent {i}. Today is ${{new Date().toISOString()}}`;\n"
        "}\n"
        f"function use{i}() {{ return helper{i}(buildSystemPrompt{i}()); }}\n"
        for i in range(n)
    )


def _count(
    module: Any,
    name: str,
    run: Callable[[str], list[Any]],
    text: Callable[[int], str],
    monkeypatch: pytest.MonkeyPatch,
) -> list[float]:
    real = getattr(module, name)
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    out = []
    for n in (10, 20):
        calls.clear()
        found = run(text(n))
        assert len(found) >= n  # a finding per function: each was followed
        out.append(len(calls) / n)
    return out


def test_python_each_functions_body_is_read_once_whatever_the_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    per = _count(py_reach, "_own_nodes", lambda t: check_python("a.py", t), _py, monkeypatch)
    assert per[0] == per[1]


def test_typescript_each_functions_body_is_read_once_whatever_the_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    per = _count(js_reach._Index, "_own", lambda t: check_js("a.ts", t), _ts, monkeypatch)
    assert per[0] == per[1]

"""gpt-5.6 prompt caching in the linter: `prompt_cache_breakpoint` marks and `prompt_cache_options`
in traces, request bodies and Python calls (PL401, PL402, PL406, PL407, PL408).

A session sent the way prefixlock's builder sends it (a mark on the system prompt and one moved
to the newest user message each turn) must come out clean: the mark is not part of the cached
bytes, so moving it is not a history edit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.cli.main import main
from prefixlock.policies.findings import Finding
from prefixlock.policies.pycheck import check_python
from prefixlock.policies.tracecheck import check_trace
from tests.policies.lint_tracegen import MARK, gpt56_bodies, write_raw, write_trace

PRICES = PriceTable.builtin()


def findings(path: Path) -> list[Finding]:
    return check_trace(str(path), PRICES)


def codes(path: Path) -> list[str]:
    return sorted(f.code for f in findings(path))


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses"])
@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_moving_the_tail_mark_is_not_a_history_edit(tmp_path: Path, api: str, mode: str) -> None:
    bodies = gpt56_bodies(5, mode=mode, api=api)
    # The mark moved: the first user message carries one in request 0 and none after.
    first_user = bodies[0]["body"]["messages" if api == "openai-chat" else "input"][1]
    assert "prompt_cache_breakpoint" in first_user["content"][0]
    assert codes(write_trace(tmp_path / "t.jsonl", bodies, api=api)) == []


def test_marks_kept_in_the_history_were_written_when_they_were_newest(tmp_path: Path) -> None:
    # Turn 4 carries six marks (system, five user turns); the implicit mode writes only the
    # latest three explicit ones, but each older one was written by an earlier request.
    bodies = gpt56_bodies(5, keep_marks=True)
    items = bodies[-1]["body"]["messages"]
    assert (
        sum(
            "prompt_cache_breakpoint" in m["content"][0]
            for m in items
            if isinstance(m["content"], list)
        )
        == 6
    )
    assert codes(write_trace(tmp_path / "t.jsonl", bodies)) == []
    # The same last request alone: its history is unknown, the two earliest marks are not
    # written by it.
    alone = write_raw(tmp_path / "one.jsonl", bodies[-1:])
    (f,) = findings(alone)
    assert (f.code, f.severity) == ("PL401", "warning")
    assert "input item(s) 0 (system), 1 (user) are wasted" in f.message


def _five_examples(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t == 2:
        examples = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Example {k}.", "prompt_cache_breakpoint": dict(MARK)}
                ],
            }
            for k in range(5)
        ]
        body["messages"][1:1] = examples


def test_marks_no_request_writes_are_reported_once(tmp_path: Path) -> None:
    bodies = gpt56_bodies(4, mutate=_five_examples)
    found = [f for f in findings(write_trace(tmp_path / "t.jsonl", bodies)) if f.code == "PL401"]
    assert len(found) == 1
    assert found[0].severity == "warning"
    assert "request 2:" in found[0].message
    # system, then examples 0-4, then the marked newest question: seven explicit marks, of
    # which the question is the implicit breakpoint's own write; the latest three of the
    # other six are written.
    assert "0 (system), 1 (user), 2 (user) are wasted" in found[0].message


def test_explicit_mode_without_a_mark_caches_nothing(tmp_path: Path) -> None:
    bodies = gpt56_bodies(3, mode="explicit")
    for b in bodies:
        b["body"]["messages"][0]["content"][0].pop("prompt_cache_breakpoint")
        b["body"]["messages"][-1]["content"][0].pop("prompt_cache_breakpoint")
    (f,) = findings(write_trace(tmp_path / "t.jsonl", bodies))
    assert f.code == "PL406" and "nothing is cached" in f.message
    # The implicit mode places its own breakpoint: no finding.
    for b in bodies:
        b["body"]["prompt_cache_options"]["mode"] = "implicit"
    assert codes(write_trace(tmp_path / "i.jsonl", bodies)) == []


def test_assistant_mark_and_retention_with_ttl(tmp_path: Path) -> None:
    def mutate(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["prompt_cache_retention"] = "24h"
        if t >= 1:  # the first answer, marked, from the request that first sends it on
            body["messages"][2] = {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Answer 0.", "prompt_cache_breakpoint": dict(MARK)}
                ],
            }

    assert codes(write_trace(tmp_path / "t.jsonl", gpt56_bodies(3, mutate=mutate))) == [
        "PL407",
        "PL408",
    ]
    # Retention alone (older models, or no TTL in the options) is not this rule's business.
    bodies = gpt56_bodies(
        3,
        mutate=lambda t, b, r: b.update(
            prompt_cache_retention="24h", prompt_cache_options={"mode": "implicit"}
        ),
    )
    assert codes(write_trace(tmp_path / "r.jsonl", bodies)) == []


def test_older_models_know_no_breakpoints(tmp_path: Path) -> None:
    bodies = gpt56_bodies(
        3,
        mutate=lambda t, b, r: b.update(model="gpt-5.4", prompt_cache_options={"mode": "explicit"}),
    )
    for b in bodies:
        b["body"]["messages"][0]["content"][0].pop("prompt_cache_breakpoint")
        b["body"]["messages"][-1]["content"][0].pop("prompt_cache_breakpoint")
    assert "PL406" not in codes(write_trace(tmp_path / "t.jsonl", bodies))


def test_request_body_file(tmp_path: Path) -> None:
    body = gpt56_bodies(1, mode="explicit")[0]["body"]
    body["messages"][0]["content"][0].pop("prompt_cache_breakpoint")
    body["messages"][-1]["content"][0].pop("prompt_cache_breakpoint")
    path = tmp_path / "req.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    assert main(["lint", str(path), "--format", "json"]) == 1
    assert main(["lint", str(path), "--ignore", "PL406"]) == 0


PY_CALL = """
MARK = {{"mode": "explicit"}}
RULES = "Cite the file and line of every claim. " * 100


def ask(client, q):
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {{"role": "system", "content": [
                {{"type": "text", "text": RULES, "prompt_cache_breakpoint": MARK}}]}},
{examples}
            {{"role": "user", "content": q}},
        ],
        prompt_cache_options={options},
    )
"""


def _py(n_examples: int, options: str) -> list[Finding]:
    examples = "\n".join(
        f'            {{"role": "user", "content": [{{"type": "text", "text": "e{k}", '
        f'"prompt_cache_breakpoint": MARK}}]}},'
        for k in range(n_examples)
    )
    return check_python("a.py", PY_CALL.format(examples=examples, options=options))


@pytest.mark.parametrize(
    ("n", "options", "expected"),
    [
        (2, '{"mode": "implicit"}', []),  # three explicit marks: all written
        (3, '{"mode": "implicit"}', ["PL401"]),  # four: the system's is not
        (3, '{"mode": "explicit"}', []),  # explicit mode writes four
        (4, '{"mode": "explicit"}', ["PL401"]),
        (9, "OPTIONS", []),  # the mode is not known: nothing said
    ],
)
def test_python_mark_count(n: int, options: str, expected: list[str]) -> None:
    found = _py(n, options)
    assert [f.code for f in found] == expected
    for f in found:
        assert f.severity == "warning"
        assert f.line == 11  # the system prompt's mark, the first one never written


def test_python_explicit_mode_with_messages_built_elsewhere_is_not_judged() -> None:
    src = PY_CALL.replace('{{"role": "system"', '*history, {{"role": "system"').replace(
        '"prompt_cache_breakpoint": MARK}}]}},\n{examples}', "}}]}},"
    )
    assert [
        f.code
        for f in check_python("a.py", src.format(examples="", options='{"mode": "explicit"}'))
    ] == []
    without = src.replace("*history, ", "")
    assert [
        f.code
        for f in check_python("a.py", without.format(examples="", options='{"mode": "explicit"}'))
    ] == ["PL406"]


@pytest.mark.parametrize("code", ["PL407", "PL408"])
def test_new_rules_are_explained(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--explain", code]) == 0
    out = capsys.readouterr().out
    for heading in ("## What it does", "## Why it matters", "## Example", "## Fix"):
        assert heading in out
    assert "openai SDK" in out

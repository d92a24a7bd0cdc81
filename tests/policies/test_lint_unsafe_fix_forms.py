"""`--unsafe-fixes` moves a volatile line out of a system prompt written with `str.format`, a
`+` chain, `"\\n".join([...])` or `%` formatting, as it does for an f-string: the new code is
pinned, compiled, and run before and after against a stub client and a stub clock, so the
prompt no longer holds the value, the user message starts with the moved line, and the two
together are the original text. Forms it cannot rebuild exactly get no fix."""

from __future__ import annotations

import datetime
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from prefixlock.cli.main import main
from prefixlock.policies.engine import lint_source

HEAD = """import datetime

RULES = "Follow the project rules and explain every change before you make it."


"""
T1 = datetime.datetime(2026, 12, 1, 5, 30, 7, 123456)
T2 = datetime.datetime(2026, 12, 2, 17, 4, 59, 1)


@dataclass(frozen=True)
class Case:
    body: str  # def ask(client, question, *extra): ... return client.messages.create(...)
    edits: tuple[tuple[str, str], ...]  # (old, new) text replacements that make the result
    moved: str  # the moved line at T1
    args: tuple[object, ...] = ()  # extra arguments of ask()


CREATE = """    return client.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                  cache_control={"type": "ephemeral"},
                                  system=system, messages=[{"role": "user", "content": question}])
"""
NEW_CONTENT = '"content": question}'

CASES = {
    "format-keywords": Case(
        r"""def ask(client, question):
    system = "Current time: {now}\nYou are a careful coding assistant.\n{rules}".format(
        now=datetime.datetime.now(), rules=RULES)
"""
        + CREATE,
        (
            (
                r""""Current time: {now}\nYou are a careful coding assistant.\n{rules}".format(
        now=datetime.datetime.now(), rules=RULES)""",
                r"f'You are a careful coding assistant.\n{RULES}'",
            ),
            (
                NEW_CONTENT,
                r""""content": f'Current time: {datetime.datetime.now()}\n' + question}""",
            ),
        ),
        f"Current time: {T1}\n",
    ),
    "format-positional-conversion-spec": Case(
        r"""def ask(client, question, project):
    now = datetime.datetime.now()
    system = "You are a careful assistant for {}.\nNow: {!s:>30} ({})\nRules: {}".format(
        project, now, "UTC", RULES)
    messages = [{"role": "user", "content": question}]
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                  cache_control={"type": "ephemeral"},
                                  system=system, messages=messages)
""",
        (
            (
                r""""You are a careful assistant for {}.\nNow: {!s:>30} ({})\nRules: {}".format(
        project, now, "UTC", RULES)""",
                r"f'You are a careful assistant for {project}.\nRules: {RULES}'",
            ),
            (NEW_CONTENT, r""""content": f'Now: {now!s:>30} (UTC)\n' + question}"""),
        ),
        f"Now: {T1!s:>30} (UTC)\n",
        ("prefixlock",),
    ),
    "format-index-reused-name-escaped-braces": Case(
        r"""def ask(client, question):
    now = datetime.datetime.now()
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=100, cache_control={"type": "ephemeral"},
        system="Follow these rules: {1}\nClock: {0:%H:%M:%S} {{local}}\nAgain: {1}".format(
            now, RULES),
        messages=[{"role": "user", "content": question}])
""",
        (
            (
                r""""Follow these rules: {1}\nClock: {0:%H:%M:%S} {{local}}\nAgain: {1}".format(
            now, RULES)""",
                r"f'Follow these rules: {RULES}\nAgain: {RULES}'",
            ),
            (NEW_CONTENT, r""""content": f'Clock: {now:%H:%M:%S} {{local}}\n' + question}"""),
        ),
        "Clock: 05:30:07 {local}\n",
    ),
    "plus-chain": Case(
        r"""def ask(client, question, rules):
    system = ("You are a careful coding assistant.\n" + "Time: " + str(datetime.datetime.now())
              + "\n" + rules)
"""
        + CREATE,
        (
            (
                r""""You are a careful coding assistant.\n" + "Time: " + str(datetime.datetime.now())
              + "\n" + rules""",  # noqa: E501
                r"f'You are a careful coding assistant.\n{rules}'",
            ),
            (NEW_CONTENT, r""""content": f'Time: {str(datetime.datetime.now())}\n' + question}"""),
        ),
        f"Time: {T1}\n",
        ("Answer in English, and keep it short.",),
    ),
    "plus-chain-of-known-text": Case(
        r"""def ask(client, question):
    now = datetime.datetime.now()
    system = "Time: " + f"{now:%H:%M}" + "\nYou are a careful coding assistant.\n" + RULES
"""
        + CREATE,
        (
            (
                r""""Time: " + f"{now:%H:%M}" + "\nYou are a careful coding assistant.\n" + RULES""",  # noqa: E501
                r"f'You are a careful coding assistant.\n{RULES}'",
            ),
            (NEW_CONTENT, r""""content": f'Time: {now:%H:%M}\n' + question}"""),
        ),
        "Time: 05:30\n",
    ),
    "join-list": Case(
        r"""def ask(client, question):
    now = datetime.datetime.now()
    system = "\n".join(["You are a careful coding assistant.", f"Time: {now}", RULES,
                        "Answer briefly."])
"""
        + CREATE,
        (
            (
                r""""\n".join(["You are a careful coding assistant.", f"Time: {now}", RULES,
                        "Answer briefly."])""",
                r"f'You are a careful coding assistant.\n{RULES}\nAnswer briefly.'",
            ),
            (NEW_CONTENT, r""""content": f'Time: {now}\n' + question}"""),
        ),
        f"Time: {T1}\n",
    ),
    "join-tuple-blank-lines": Case(
        r"""def ask(client, question):
    now = datetime.datetime.now()
    system = "\n\n".join(("You are a careful coding assistant.", "Time: " + now.isoformat(),
                          RULES))
"""
        + CREATE,
        (
            (
                r""""\n\n".join(("You are a careful coding assistant.", "Time: " + now.isoformat(),
                          RULES))""",
                r"f'You are a careful coding assistant.\n\n\n{RULES}'",
            ),
            (NEW_CONTENT, r""""content": f"{'Time: ' + now.isoformat()}\n" + question}"""),
        ),
        f"Time: {T1.isoformat()}\n",
    ),
    "percent-tuple": Case(
        r"""def ask(client, question, run, tag):
    now = datetime.datetime.now()
    system = ("You are a careful coding assistant (100%% offline).\n"
              "Time: %s, run %d, tag %r\n%s" % (now, run, tag, RULES))
"""
        + CREATE,
        (
            (
                r""""You are a careful coding assistant (100%% offline).\n"
              "Time: %s, run %d, tag %r\n%s" % (now, run, tag, RULES)""",
                r"f'You are a careful coding assistant (100% offline).\n{RULES}'",
            ),
            (
                NEW_CONTENT,
                r""""content": f'Time: {now!s}, run {int(run)}, tag {tag!r}\n' + question}""",
            ),
        ),
        f"Time: {T1}, run 7, tag 'a'\n",
        (7.9, "a"),
    ),
    "percent-single-value": Case(
        r"""def ask(client, question):
    system = "Time: %s\nYou are a careful coding assistant.\nAnswer briefly." % (
        datetime.datetime.now())
"""
        + CREATE,
        (
            (
                r""""Time: %s\nYou are a careful coding assistant.\nAnswer briefly." % (
        datetime.datetime.now())""",
                r"'You are a careful coding assistant.\nAnswer briefly.'",
            ),
            (NEW_CONTENT, r""""content": f'Time: {datetime.datetime.now()!s}\n' + question}"""),
        ),
        f"Time: {T1}\n",
    ),
}


class StubClient:
    """Records the keyword arguments of messages.create."""

    def __init__(self) -> None:
        self.messages = self

    def create(self, **kw: Any) -> dict[str, Any]:
        return kw


def _run(src: str, when: datetime.datetime, args: tuple[object, ...]) -> tuple[str, str]:
    """The system prompt and the newest user message `ask` sends at time `when`."""
    ns: dict[str, Any] = {}
    exec(compile(src, "a.py", "exec"), ns)
    clock = types.SimpleNamespace(now=lambda: when)
    ns["datetime"] = types.SimpleNamespace(datetime=clock)
    kw = ns["ask"](StubClient(), "Why does the build fail?", *args)
    system, content = kw["system"], kw["messages"][-1]["content"]
    assert isinstance(system, str) and isinstance(content, str)
    return system, content


@pytest.mark.parametrize("name", list(CASES))
def test_moves_the_volatile_line(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES[name]
    src = HEAD + case.body
    expected = src
    for old, new in case.edits:
        assert expected.count(old) == 1, old
        expected = expected.replace(old, new)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(src)
    assert main(["lint", "a.py", "--fix", "--unsafe-fixes", "--no-source"]) == 0
    assert "(1 fixed)" in capsys.readouterr().out
    new = (tmp_path / "a.py").read_text()
    assert new == expected
    compile(new, "a.py", "exec")

    system_before, user_before = _run(src, T1, case.args)
    system_after, user_after = _run(new, T1, case.args)
    assert user_before == "Why does the build fail?"
    # The value is gone from the prompt: it is the same at another time.
    assert _run(src, T2, case.args)[0] != system_before
    assert _run(new, T2, case.args)[0] == system_after
    # The user message starts with the moved line; the two together are the original text.
    assert user_after == case.moved + user_before
    assert case.moved in system_before
    assert system_before.replace(case.moved, "", 1) == system_after
    if system_before.startswith(case.moved):
        assert case.moved + system_after == system_before


def _fix_of(src: str) -> str | None:
    findings = [f for f in lint_source(HEAD + src, "a.py") if f.code == "PL101"]
    assert findings, "the volatile value is still reported"
    return None if findings[0].fix is None else findings[0].fix.description


def test_the_description_says_where_the_new_code_may_differ() -> None:
    plain = "move the volatile line into the newest user message"
    assert _fix_of(CASES["format-keywords"].body) == plain
    assert _fix_of(CASES["plus-chain-of-known-text"].body) == plain
    assert _fix_of(CASES["join-list"].body) == plain
    plus = _fix_of(CASES["plus-chain"].body) or ""
    assert plus.startswith(plain + " (operands of + not known to be str become {x}")
    assert "join items not known to be str" in (_fix_of(CASES["join-tuple-blank-lines"].body) or "")
    percent = _fix_of(CASES["percent-tuple"].body) or ""
    assert "%d becomes {int(x)}" in percent and "single value" not in percent
    assert "the single value after % becomes one field" in (
        _fix_of(CASES["percent-single-value"].body) or ""
    )


REFUSED = {
    "format-attribute-field": '"You are a careful coding assistant.\\nHour: {0.hour}\\n{1}"'
    ".format(datetime.datetime.now(), RULES)",
    "format-index-field": '"You are a careful coding assistant.\\nTime: {t[0]}\\n{r}"'
    ".format(t=[datetime.datetime.now()], r=RULES)",
    "format-double-star": '"You are a careful coding assistant.\\nTime: {now}\\n{rules}"'
    '.format(**{"now": datetime.datetime.now(), "rules": RULES})',
    "format-star-args": '"You are a careful coding assistant.\\nTime: {}\\n{}"'
    ".format(*[datetime.datetime.now(), RULES])",
    "format-call-used-twice": '"You are a careful coding assistant.\\nTime: {0}\\nAgain: {0}\\n'
    'Rules: {1}".format(datetime.datetime.now(), RULES)',
    "format-unused-call": '"You are a careful coding assistant.\\nTime: {0}\\n{1}"'
    ".format(datetime.datetime.now(), RULES, str(object()))",
    "format-nested-spec": '"You are a careful coding assistant.\\nTime: {0:>{1}}\\n{2}"'
    ".format(datetime.datetime.now(), 30, RULES)",
    "format-on-a-name": "RULES.format(datetime.datetime.now())",
    "join-non-constant-separator": 'SEP.join(["You are a careful coding assistant.", '
    'f"Time: {datetime.datetime.now()}", RULES])',
    "join-generator": '"\\n".join(line for line in ["You are a careful coding assistant.", '
    'f"Time: {datetime.datetime.now()}", RULES])',
    "join-starred": '"\\n".join(["You are a careful coding assistant.", '
    '*[f"Time: {datetime.datetime.now()}"], RULES])',
    "percent-mapping-key": '"You are a careful coding assistant.\\nTime: %(now)s\\n%(r)s"'
    ' % {"now": datetime.datetime.now(), "r": RULES}',
    "percent-width": '"You are a careful coding assistant.\\nTime: %30s\\n%s"'
    " % (datetime.datetime.now(), RULES)",
    "percent-float": '"You are a careful coding assistant.\\nTime: %f\\n%s"'
    " % (datetime.datetime.now().timestamp(), RULES)",
    "percent-count-mismatch": '"You are a careful coding assistant.\\nTime: %s\\n%s"'
    " % (datetime.datetime.now(),)",
    "plus-without-any-text": "HEADER + CLOCK_LINE(datetime.datetime.now()) + FOOTER",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_forms_it_cannot_rebuild_get_no_fix(name: str) -> None:
    body = (
        "SEP = HEADER = FOOTER = CLOCK_LINE = None\n\n\ndef ask(client, question):\n"
        f"    system = {REFUSED[name]}\n" + CREATE
    )
    compile(HEAD + body, "a.py", "exec")
    assert _fix_of(body) is None


def test_a_one_line_prompt_is_left_for_a_person() -> None:
    body = (
        'def ask(client, question):\n    system = "Time: {}".format('
        "datetime.datetime.now())\n" + CREATE
    )
    assert _fix_of(body) is None


def test_a_message_list_built_before_the_prompt_gets_no_fix() -> None:
    build_first = """def ask(client, question):
    messages = [{"role": "user", "content": question}]
    now = datetime.datetime.now()
    system = f"You are a careful coding assistant.\\nTime: {now}\\n{RULES}"
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                  cache_control={"type": "ephemeral"},
                                  system=system, messages=messages)
"""
    # The moved `{now}` would be read there before `now` is bound.
    assert _fix_of(build_first) is None
    # Built after the prompt, the same list gets the fix.
    lines = build_first.splitlines(keepends=True)
    assert _fix_of("".join([lines[0], *lines[2:4], lines[1], *lines[4:]])) is not None
    # Written in the call, the list is built with the prompt, whatever the keyword order.
    in_call = """def ask(client, question):
    now = datetime.datetime.now()
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=100, cache_control={"type": "ephemeral"},
        messages=[{"role": "user", "content": question}],
        system="You are a careful coding assistant.\\nTime: {}\\n{}".format(now, RULES))
"""
    assert _fix_of(in_call) is not None

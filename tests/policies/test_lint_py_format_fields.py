"""A keyword `str.format` hands a template that has no `{name}` for it reaches no text (ruff's
F522 reads the same): its value is not in the prompt (`pycheck.taint`, the template's fields
from `pycheck.syntax.format_fields`). The template's text must be known: a string literal, or a
name this file binds only to string literals (and to its own filled text)."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python
from prefixlock.policies.pycheck.syntax import format_fields

# A system prompt filled with the time, from a literal bound to a name first.
_FILLED = (
    "from datetime import datetime\n\n\n"
    "def ask(client, history, question):\n"
    "    system = 'You answer questions about {topic}. It is {now}.'\n"
    "    system = system.format(topic='birds', now=datetime.now())\n"
    "    return client.messages.create(model='m', system=system, messages=history)\n"
)


def _codes(text: str) -> list[str]:
    return [f.code for f in check_python("ask.py", text)]


def test_a_filled_slot_carries_its_value() -> None:
    assert "PL101" in _codes(_FILLED)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the template has no slot for the time: handed in, never written
        (" It is {now}.'", "'"),
        # ... the same written as a literal's own .format
        (
            "    system = 'You answer questions about {topic}. It is {now}.'\n"
            "    system = system.format(",
            "    system = 'You answer questions about {topic}.'.format(",
        ),
    ],
)
def test_a_value_with_no_slot_in_a_known_template_is_not_in_the_prompt(old: str, new: str) -> None:
    text = _FILLED.replace(old, new)
    assert text != _FILLED
    assert "PL101" not in _codes(text)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the name also bound to a text from elsewhere: its slots are unknown
        (
            "{topic}. It is {now}.'\n    system = system.format(",
            "{topic}.'\n    if history:\n        system = load_prompt()\n"
            "    system = system.format(",
        ),
        # a slot inside a format spec: what it fills is not read
        (" It is {now}.'", " It is {when:{width}}.'"),
    ],
)
def test_a_template_whose_slots_are_unknown_keeps_every_value(old: str, new: str) -> None:
    text = _FILLED.replace(old, new)
    assert text != _FILLED
    assert "PL101" in _codes(text)


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("{a.b} and {c[0]} and {{literal}}", {"a", "c"}),
        ("{} {0} {name!r:>10}", {"", "0", "name"}),
        ("no fields", set()),
    ],
)
def test_format_fields_reads_the_names_filled(text: str, fields: set[str]) -> None:
    assert format_fields(text) == frozenset(fields)


@pytest.mark.parametrize("text", ["{x:{width}}", "{unclosed", "}"])
def test_format_fields_cannot_tell(text: str) -> None:
    assert format_fields(text) is None

"""A system message placed after the conversation history (a list display that puts it after
`*history`, a sum `history + [note, user]`, an append to a list already extended with the
history, or a helper's message every call of which lands there) is read after every cached
message: a clock in it is no prefix break. Each suppression has a twin that still reports the
message placed ahead of the history."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(src: str) -> list[str]:
    return [f.code for f in lint_source(src, "agent.py") if f.code.startswith("PL1")]


_HEAD = (
    'from datetime import datetime\nimport openai\n\nPROMPT = "You are a careful assistant."\n\n'
)
_NOTE = '{"role": "system", "content": f"Now: {datetime.now()}"}'


def _send(body: str) -> str:
    return (
        _HEAD
        + "def reply(history, text):\n"
        + body
        + '    return openai.chat.completions.create(model="m", messages=messages)\n'
    )


def test_after_a_spread_history_in_a_display_is_no_break() -> None:
    body = (
        f'    messages = [{{"role": "system", "content": PROMPT}}, *history, {_NOTE},\n'
        '                {"role": "user", "content": text}]\n'
    )
    assert _codes(_send(body)) == []


def test_ahead_of_the_spread_history_is_a_break() -> None:
    body = (
        f'    messages = [{{"role": "system", "content": PROMPT}}, {_NOTE}, *history,\n'
        '                {"role": "user", "content": text}]\n'
    )
    assert _codes(_send(body)) == ["PL101"]


def test_appended_after_the_history_is_extended_in_is_no_break() -> None:
    body = (
        '    messages = [{"role": "system", "content": PROMPT}]\n'
        "    messages.extend(history)\n"
        f"    messages.append({_NOTE})\n"
        '    messages.append({"role": "user", "content": text})\n'
    )
    assert _codes(_send(body)) == []


def test_appended_before_the_history_is_extended_in_is_a_break() -> None:
    body = (
        '    messages = [{"role": "system", "content": PROMPT}]\n'
        f"    messages.append({_NOTE})\n"
        "    messages.extend(history)\n"
        '    messages.append({"role": "user", "content": text})\n'
    )
    assert _codes(_send(body)) == ["PL101"]


def test_appended_to_a_list_without_the_history_is_a_break() -> None:
    body = (
        '    messages = [{"role": "system", "content": PROMPT}]\n'
        f"    messages.append({_NOTE})\n"
        '    messages.append({"role": "user", "content": text})\n'
    )
    assert _codes(_send(body)) == ["PL101"]


def test_after_the_history_in_a_sum_is_no_break() -> None:
    body = f'    messages = history + [{_NOTE}, {{"role": "user", "content": text}}]\n'
    assert _codes(_send(body)) == []


def test_ahead_of_the_history_in_a_sum_is_a_break() -> None:
    body = f'    messages = [{_NOTE}] + history + [{{"role": "user", "content": text}}]\n'
    assert _codes(_send(body)) == ["PL101"]


_HELPER = (
    "def date_note():\n"
    '    return {"role": "system", "content": f"Today is {datetime.now():%Y-%m-%d}."}\n'
    "\n"
)


def test_a_helper_message_placed_only_after_the_history_is_no_break() -> None:
    body = (
        '    messages = [{"role": "system", "content": PROMPT}, *history, date_note(),\n'
        '                {"role": "user", "content": text}]\n'
    )
    assert _codes(_HEAD + _HELPER + _send(body)[len(_HEAD) :]) == []


def test_a_helper_message_also_placed_ahead_is_a_break() -> None:
    body = "    messages = [date_note(), *history]\n    later = [*history, date_note()]\n"
    assert _codes(_HEAD + _HELPER + _send(body)[len(_HEAD) :]) == ["PL102"]


def test_a_helper_message_no_one_here_places_is_judged_as_before() -> None:
    """Its callers are elsewhere: where they put it is not seen."""
    assert _codes(_HEAD + _HELPER) == ["PL102"]

"""A helper that rewrites earlier messages of the list it is given in place (older screenshots
dropped while a budget lasts) is also reported where a loop calls it on the list a request in
the same loop sends: there the rewrite runs on every turn. Each positive has twins that differ
in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SRC = (
    "def _drop_images(messages, keep):\n"
    "    to_remove = count(messages) - keep\n"
    "    for m in messages:\n"
    "        if to_remove > 0:\n"
    "            to_remove -= 1\n"
    '            m["content"] = strip(m["content"])\n'
    "\n"
    "def run(client, messages, keep):\n"
    "    while True:\n"
    "        CALL\n"
    '        r = client.messages.create(model="m", SENT=messages)\n'
    "        messages.append(r)\n"
)


def _src(call: str = "_drop_images(messages, keep)", sent: str = "messages") -> str:
    return _SRC.replace("CALL", call).replace("SENT", sent)


def test_a_rewriter_called_in_the_request_loop_is_reported_at_the_call() -> None:
    assert lines_of(_src(), "PL303") == [6, 10]


def test_given_by_keyword_is_the_same() -> None:
    assert lines_of(_src(call="_drop_images(keep=keep, messages=messages)"), "PL303") == [6, 10]


def test_called_on_another_list_is_reported_where_it_rewrites_only() -> None:
    assert lines_of(_src(call="_drop_images(list(archive), keep)"), "PL303") == [6]


def test_a_loop_that_sends_no_messages_is_reported_where_it_rewrites_only() -> None:
    assert lines_of(_src(sent="input"), "PL303") == [6]


def test_called_once_before_the_loop_is_reported_where_it_rewrites_only() -> None:
    src = _src(call="pass").replace(
        "    while True:", "    _drop_images(messages, keep)\n    while True:"
    )
    assert lines_of(src, "PL303") == [6]


def test_a_helper_that_rewrites_every_message_alike_is_not_reported() -> None:
    src = _src().replace(
        "        if to_remove > 0:\n            to_remove -= 1\n", "        if True:\n"
    )
    assert lines_of(src, "PL303") == []

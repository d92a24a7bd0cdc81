"""The eleventh Python pass: a window is reported only where a request can send it. A history
read to a count or cut to its last messages in a function that answers an HTTP GET (a page of
stored rows handed back to a client) or in a test function sends nothing to a model
(`pycheck.reach`); the same read in a GET handler that sends the window itself, or in a POST
handler or a helper a request path calls, still reports."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_PAGE = (
    "from fastapi import APIRouter\n"
    "router = APIRouter()\n"
    "\n"
    "@router.DECORATOR\n"
    "async def recent(conversation_id: str, db=None):\n"
    "    history = await db.get_messages(num_messages=10)\n"
    "SEND"
    "    return history\n"
)
_SEND = (
    '    messages = [{"role": "system", "content": "You are terse."}] + history\n'
    '    await client.chat.completions.create(model="m", messages=messages)\n'
)


def _page(
    decorator: str = 'get("/conversations/{conversation_id}/messages")', send: str = ""
) -> str:
    return _PAGE.replace("DECORATOR", decorator).replace("SEND", send)


def test_a_get_handler_handing_back_the_last_rows_reports_no_window() -> None:
    assert lines_of(_page(), "PL303", "routes.py") == []


def test_a_flask_route_left_to_get_reports_no_window() -> None:
    assert lines_of(_page('route("/messages")'), "PL303", "routes.py") == []


def test_a_get_handler_that_sends_the_window_still_reports() -> None:
    assert lines_of(_page(send=_SEND), "PL303", "routes.py") != []


def test_a_post_handler_still_reports() -> None:
    assert lines_of(_page('post("/chat")'), "PL303", "routes.py") != []


def test_a_route_that_takes_posts_still_reports() -> None:
    source = _page('route("/chat", methods=["GET", "POST"])')
    assert lines_of(source, "PL303", "routes.py") != []


def test_a_decorator_named_get_without_a_path_is_no_route() -> None:
    assert lines_of(_page("get(cache_key)"), "PL303", "routes.py") != []


_TRIM = (
    "def trim_messages_to_budget(messages, max_history_tokens):\n"
    "    while messages and sum(len(m['content']) for m in messages) > max_history_tokens:\n"
    "        messages = messages[1:]\n"
    "    return messages\n"
    "\n"
    "def FUNCTION():\n"
    "    kept = trim_messages_to_budget([], max_history_tokens=100)\n"
    "    assert kept == []\n"
)


def test_a_test_function_calling_a_trimming_helper_reports_no_window() -> None:
    source = _TRIM.replace("FUNCTION", "test_trim_empty_history")
    assert lines_of(source, "PL303", "tests/test_context.py") == []


def test_the_same_call_in_a_request_path_still_reports() -> None:
    source = _TRIM.replace("FUNCTION", "reply").replace(
        "    assert kept == []\n",
        '    return client.chat.completions.create(model="m", messages=kept)\n',
    )
    assert lines_of(source, "PL303", "agent.py") != []

"""`count_tokens` remembers the counts of texts it has seen (requests repeat their blocks), and
the memo stays within its character budget however many large texts a long session sees."""

from __future__ import annotations

from prefixlock import tokenizer
from prefixlock.tokenizer import count_tokens, pieces


def test_remembered_counts_are_the_counts() -> None:
    text = "def f(x):\n    return x + 1  # café\n" * 40
    assert count_tokens(text) == len(pieces(text))
    assert count_tokens(text) == len(pieces(text))  # from the memo
    assert tokenizer._memo[text] == len(pieces(text))


def test_the_memo_holds_at_most_its_budget_of_text() -> None:
    big = tokenizer._MEMO_CHARS // 5
    for i in range(40):  # 8x the budget of distinct large texts
        text = f"result {i} " + "word " * (big // 5)
        assert count_tokens(text) == len(pieces(text))
        assert tokenizer._memo_size == sum(len(t) for t in tokenizer._memo)
        assert tokenizer._memo_size <= tokenizer._MEMO_CHARS
    huge = "x" * (tokenizer._MEMO_CHARS // 2)  # past a quarter of the budget: not kept
    assert count_tokens(huge) == len(pieces(huge))
    assert huge not in tokenizer._memo


def test_a_conversation_s_messages_are_counted_without_a_copy_in_the_memo() -> None:
    """A message counts its blocks once and keeps the counts: the memo would only hold a copy
    of every message a long chat sends (up to its budget of 4M characters, growing each turn).
    The builders count their wire items the same way; the counts are the same."""
    from prefixlock.prefix import FrozenPrefix
    from prefixlock.providers import SessionInfo, make_builder
    from prefixlock.settings import Settings
    from prefixlock.transcript import Message, Transcript

    text = "a reply seen once in a long chat " * 30
    before = dict(tokenizer._memo)
    t = Transcript([Message.user("question"), Message.assistant(text), Message.user("more")])
    apis = ("anthropic", "openai-chat", "openai-responses")
    reqs = [
        make_builder(api, "m").build_request(FrozenPrefix(), t, Settings(), SessionInfo("s"))
        for api in apis
    ]
    assert t[1].tokens >= len(pieces(text))
    added = [k for k in tokenizer._memo if k not in before]
    assert not any(text in k for k in added), "a message's text is kept in the memo"
    assert all(r.units == r.recomputed_units() for r in reqs)  # the same counts
    assert count_tokens(text, remember=False) == len(pieces(text))
    assert text not in tokenizer._memo

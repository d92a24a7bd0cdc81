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

"""One rule masks an API key in any text (a provider's error, a subagent's task): a real key
wherever it stands, a placeholder key of a few characters only where it stands alone."""

from __future__ import annotations

from prefixlock.redact import redact

KEY = "sk-live-0123456789"


def test_a_real_key_is_masked_wherever_it_stands() -> None:
    text = f"key {KEY}, header Bearer{KEY}, url ?k={KEY}&x"
    out = redact(text, [KEY])
    assert KEY not in out
    assert out == "key ***, header Bearer***, url ?k=***&x"


def test_a_short_key_is_masked_only_where_it_stands_alone() -> None:
    assert redact("model does not exist (key x)", ["x"]) == "model does not exist (key ***)"


def test_each_secret_is_masked_with_the_callers_mask_and_empty_ones_are_skipped() -> None:
    out = redact(f"{KEY} and other-secret-42", [KEY, None, "", "other-secret-42"], "[redacted]")
    assert out == "[redacted] and [redacted]"

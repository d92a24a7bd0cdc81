"""A deterministic offline tokenizer.

The emulator and the simulator need token counts without a network or a vocabulary file. This
tokenizer cuts text the way BPE tokenizers roughly do on English and code (a leading space joins
the word after it, long words split into chunks, digits in groups of three, each other symbol on
its own), which lands near 4 characters a token. Token ids are CRC32 of the piece, so two runs on
two machines give the same ids. Counts reported by a real provider always win over these.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
import zlib

# Every character of the text falls in exactly one piece: line breaks (\r\n too) run together,
# other whitespace (tabs, no-break and other Unicode spaces) runs together, any other symbol
# stands alone. A character no alternative matched would silently count as 0 tokens.
_PIECE = re.compile(r" ?[A-Za-z]{1,5}| ?\d{1,3}|[\r\n]+|[^\S\r\n]+|[^\sA-Za-z\d]")


def pieces(text: str) -> list[str]:
    """The text cut into token pieces; concatenated they give back the text exactly."""
    return _PIECE.findall(text)


# A conversation's requests repeat the same blocks (the emulator counts each cache unit of every
# request), so counts of texts seen lately are remembered: counting was most of the versus
# suite's driver CPU. The memo is bounded by characters, not entries: once it would pass
# `_MEMO_CHARS` it starts again empty, so a long-running agent that sees many large tool
# results holds at most that much text here. (Plain dict operations, each atomic, so threads
# may share it: at worst a count is made twice.)
_MEMO_CHARS = 4_000_000
_memo: dict[str, int] = {}
_memo_size = 0


def count_tokens(text: str, *, remember: bool = True) -> int:
    """Number of tokens in `text`. `remember=False`: a text counted once and its count kept
    by the caller (a conversation's message) is not put in the memo, which would otherwise
    hold a copy of it (a long chat's every message, up to the memo's budget)."""
    global _memo_size
    n = _memo.get(text)
    if n is None:
        n = len(_PIECE.findall(text))
        if remember and len(text) <= _MEMO_CHARS // 4:
            if _memo_size + len(text) > _MEMO_CHARS:
                _memo.clear()
                _memo_size = 0
            _memo[text] = n
            _memo_size += len(text)
    return n


def tokenize(text: str) -> list[int]:
    """Token ids of `text`: stable 32-bit ids, identical on every machine."""
    crc = zlib.crc32
    return [crc(p.encode("utf-8")) for p in _PIECE.findall(text)]

"""Canonical bytes: the one way anything that enters a prefix is serialized.

JSON with sorted keys, fixed separators, no ASCII escaping and no NaN, so that the same inputs
give the same bytes on every machine and in every process. Sets and frozensets are sorted by
their canonical form, since their iteration order changes between runs (hash randomization).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def _normalize(value: Any) -> Any:
    """Turn containers with no stable order into sorted lists; reject what JSON cannot hold."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, got {type(key).__name__}")
            out[key] = _normalize(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_normalize(item) for item in value]
    if isinstance(value, (set, frozenset)):
        items = [_normalize(item) for item in value]
        return sorted(items, key=lambda item: _ENCODER.encode(item))
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def canonical_json(value: Any) -> str:
    """Serialize `value` canonically to text."""
    return _ENCODER.encode(_normalize(value))


def canonical_bytes(value: Any) -> bytes:
    """Serialize `value` canonically to UTF-8 bytes."""
    return canonical_json(value).encode("utf-8")


def canonical_copy(value: Any) -> Any:
    """A plain deep copy of `value` with every object's keys in canonical (sorted) order.

    SDK clients serialize a request body in the dicts' insertion order; a body built from
    canonical copies therefore goes on the wire in the same key order as `canonical_bytes`."""
    return json.loads(canonical_json(value))


def fingerprint(data: bytes) -> str:
    """A short, stable content fingerprint (hex of SHA-256, first 16 bytes)."""
    return hashlib.sha256(data).hexdigest()[:32]


# The bytes of a chain's digest (blake2b); its hex, as `chain_hash` gives it, is twice as long.
DIGEST = 16


def chain_hash(parent: str, data: bytes) -> str:
    """Hash of `data` together with everything before it (`parent`): a chained prefix hash."""
    h = hashlib.blake2b(digest_size=DIGEST)
    h.update(parent.encode("ascii"))
    h.update(b"\x00")
    h.update(data)
    return h.hexdigest()


def chain_digest(parent: bytes | bytearray, data: bytes) -> bytes:
    """`chain_hash` as its 16 bytes, the parent given as its digest (b"" for none): what a
    long-lived table of chains keeps (a hex string cost 81 bytes, these 16)."""
    h = hashlib.blake2b(digest_size=DIGEST)
    h.update(parent.hex().encode("ascii"))
    h.update(b"\x00")
    h.update(data)
    return h.digest()

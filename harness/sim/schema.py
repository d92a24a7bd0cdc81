"""The one shape of `prefixlock sim --json`: a versioned envelope whose `mode` says what ran.

Every file has the same top-level keys (`schema`, `mode`, `trace`, `backend`, `warnings`,
`results`, `lru_curve`, `slo_ttft_s`, `relative_cost`); a key a mode does not produce is null.
`results` is a list in every mode: a replay's configurations (`SimResult`), --max-rate's
capacities, or the matrix's cells. `SCHEMA` is the JSON Schema (draft 2020-12) the tests
validate every mode against; harness/sim/README.md documents each field. The version changes
when a key is removed or changes meaning; adding a key does not change it.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 1
SCHEMA_ID = f"prefixlock.sim/{SCHEMA_VERSION}"
MODES = ("replay", "max-rate", "matrix")

_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_REPLAY_RESULT = {
    "type": "object",
    "required": [
        "config",
        "requests",
        "measured_requests",
        "hit_rate_tokens",
        "hit_rate_blocks",
        "ttft_mean_s",
        "ttft_p90_s",
        "ttft_p99_s",
        "node_utilisation",
        "overloaded",
        "backend",
        "router_used",
        "notes",
        "warnings",
    ],
    "properties": {
        "config": {"type": "object"},
        "requests": {"type": "integer", "minimum": 0},
        "measured_requests": {"type": "integer", "minimum": 0},
        "hit_rate_tokens": {"type": "number", "minimum": 0, "maximum": 1},
        "hit_rate_blocks": {"type": "number", "minimum": 0, "maximum": 1},
        "ttft_mean_s": _NUM,
        "ttft_p90_s": _NUM,
        "ttft_p99_s": _NUM,
        "node_utilisation": {"type": "array", "items": _NUM},
        "overloaded": {"type": "boolean"},
        "backend": {"type": "string"},
        "router_used": {"type": "string"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
}
_POINT = {
    "type": "object",
    "required": ["speedup", "offered_rps", "served_rps", "rejected", "ttft_p90_s", "tpot_p90_s"],
    "properties": {
        "speedup": _NUM,
        "offered_rps": _NUM,
        "served_rps": _NUM,
        "rejected": _NUM,
        "ttft_p90_s": _NUM,
        "tpot_p90_s": _NUM_OR_NULL,
    },
}
_CAPACITY = {
    "type": "object",
    "required": ["config", "max_rps", "speedup", "result", "curve"],
    "properties": {
        "config": {"type": "string"},
        "max_rps": _NUM,
        "speedup": _NUM,
        "result": _REPLAY_RESULT,
        "curve": {"type": "array", "items": _POINT},
    },
}
_CELL = {
    "type": "object",
    "required": ["style", "server", "hit_rate", "dollars", "dollars_without_cache", "requests"],
    "properties": {
        "style": {"type": "string"},
        "server": {"type": "string"},
        "hit_rate": _NUM,
        "dollars": _NUM,
        "dollars_without_cache": _NUM,
        "requests": {"type": "integer"},
    },
}
_TRACE = {
    "type": "object",
    "required": ["name", "requests", "blocks", "block_size", "skipped"],
    "properties": {
        "name": {"type": "string"},
        "requests": {"type": "integer", "minimum": 0},
        "blocks": {"type": "integer", "minimum": 0},
        "block_size": {"type": "integer", "minimum": 1},
        "skipped": {"type": "integer", "minimum": 0},
    },
}
_CURVE = {
    "type": "object",
    "required": ["capacities", "hit_rate_tokens", "hit_rate_blocks", "warmup_unique_blocks"],
    "properties": {
        "capacities": {"type": "array", "items": {"type": "integer"}},
        "hit_rate_tokens": {"type": "array", "items": _NUM},
        "hit_rate_blocks": {"type": "array", "items": _NUM},
        "warmup_unique_blocks": {"type": "integer"},
    },
}


def _mode(name: str, results: dict[str, Any], **nulls: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {
        "mode": {"const": name},
        "results": {"type": "array", "items": results},
    }
    props.update(nulls)
    return {"if": {"properties": {"mode": {"const": name}}}, "then": {"properties": props}}


SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "prefixlock sim --json",
    "type": "object",
    "required": [
        "schema",
        "mode",
        "trace",
        "backend",
        "warnings",
        "results",
        "lru_curve",
        "slo_ttft_s",
        "relative_cost",
    ],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "mode": {"enum": list(MODES)},
        "trace": {"oneOf": [_TRACE, {"type": "null"}]},
        "backend": {"type": ["string", "null"]},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "results": {"type": "array"},
        "lru_curve": {"oneOf": [_CURVE, {"type": "null"}]},
        "slo_ttft_s": _NUM_OR_NULL,
        "relative_cost": {"type": ["object", "null"]},
    },
    "additionalProperties": False,
    "allOf": [
        _mode("replay", _REPLAY_RESULT, slo_ttft_s={"type": "null"}),
        _mode("max-rate", _CAPACITY, lru_curve={"type": "null"}, slo_ttft_s=_NUM),
        _mode("matrix", _CELL, trace={"type": "null"}, lru_curve={"type": "null"}),
    ],
}


def envelope(
    mode: str,
    results: list[Any],
    *,
    trace: dict[str, Any] | None = None,
    backend: str | None = None,
    warnings: list[str] | None = None,
    lru_curve: dict[str, Any] | None = None,
    slo_ttft_s: float | None = None,
    relative_cost: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The --json document of one run, every key present."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    return {
        "schema": SCHEMA_ID,
        "mode": mode,
        "trace": trace,
        "backend": backend,
        "warnings": list(warnings or []),
        "results": results,
        "lru_curve": lru_curve,
        "slo_ttft_s": slo_ttft_s,
        "relative_cost": relative_cost,
    }

"""The other readers through the same model: Gemini CLI chats (document and JSONL), OpenCode
(its SQLite database, read-only, and the legacy JSON storage), prefixlock's own session store
and its JSONL export (a real session against the emulator), and discovery of the standard
locations from the variables that move them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from prefixlock.analyze.analysis import analyze
from prefixlock.analyze.sources import default_roots, find_files
from prefixlock.store.database import SessionStore
from tests.analyze.logkit import CCV, CODEX, at, write
from tests.helpers.guardkit import agent, start_emulator


def _gemini_messages() -> list[dict[str, object]]:
    return [
        {"id": "u1", "type": "user", "timestamp": at(0), "content": "hidden prompt"},
        {"id": "g1", "type": "gemini", "timestamp": at(5), "model": "gemini-2.5-pro",
         "content": "hidden reply", "tokens": {"input": 5000, "output": 200, "cached": 0,
                                               "thoughts": 50, "tool": 0, "total": 5250}},
        {"id": "g2", "type": "gemini", "timestamp": at(60), "model": "gemini-2.5-pro",
         "content": "x", "tokens": {"input": 6000, "output": 100, "cached": 4800,
                                    "thoughts": 0, "tool": 0, "total": 6100}},
    ]  # fmt: skip


def test_gemini_document_cached_is_inside_input(tmp_path: Path) -> None:
    doc = {"sessionId": "g-sess", "projectHash": "abc", "messages": _gemini_messages()}
    f = tmp_path / "chats" / "session-1.json"
    f.parent.mkdir()
    f.write_text(json.dumps(doc))
    rep = analyze([f], jobs=1).report
    rows = rep["requests"]
    assert [(r["uncached_input"], r["cache_read"], r["output"]) for r in rows] == [
        (5000, 0, 250),  # thoughts are billed as output
        (1200, 4800, 100),
    ]
    assert rep["sessions"][0]["human_prompts"] == 1
    assert rows[1]["usd"] is not None  # gemini-2.5-pro: the catalogue's Google models


def test_gemini_jsonl_last_record_of_an_id_wins(tmp_path: Path) -> None:
    msgs = _gemini_messages()
    early = dict(msgs[2], tokens={"input": 10, "output": 1, "cached": 0, "total": 11})
    f = write(
        tmp_path / "session-2.jsonl", [json.dumps(m) for m in (msgs[0], msgs[1], early, msgs[2])]
    )
    rep = analyze([f], jobs=1).report
    assert rep["totals"]["requests"] == 2 and rep["requests"][1]["cache_read"] == 4800


def _opencode_db(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT)")
    db.execute("CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)")
    db.execute("CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT)")
    db.executemany(
        "INSERT INTO session VALUES (?, ?)", [("ses_main", None), ("ses_sub", "ses_main")]
    )

    def msg(mid: str, sid: str, role: str, t: int, **kw: object) -> tuple[str, str, str]:
        data = {"id": mid, "sessionID": sid, "role": role, "time": {"created": t * 1000}, **kw}
        return (mid, sid, json.dumps(data))

    tok = {"input": 20, "output": 30, "reasoning": 5, "cache": {"read": 9000, "write": 400}}
    db.executemany("INSERT INTO message VALUES (?, ?, ?)", [
        msg("m1", "ses_main", "user", 1_770_000_000),
        msg("m2", "ses_main", "assistant", 1_770_000_005, modelID="claude-sonnet-4-5",
            providerID="anthropic", tokens=tok, cost=0.01),
        msg("m3", "ses_sub", "assistant", 1_770_000_010, modelID="claude-haiku-4-5",
            providerID="anthropic", tokens=dict(tok, cache={"read": 0, "write": 8000})),
    ])  # fmt: skip
    steps = [
        {
            "type": "step-finish",
            "tokens": {"input": 10, "output": o, "cache": {"read": r, "write": 200}},
        }
        for o, r in ((10, 4000), (25, 5000))
    ]
    db.executemany(
        "INSERT INTO part VALUES (?, ?, ?)",
        [(f"p{i}", "m2", json.dumps(s)) for i, s in enumerate(steps)],
    )
    db.commit()
    db.close()


def test_opencode_database_steps_and_subagent_sessions(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    _opencode_db(path)
    before = path.read_bytes()
    rep = analyze([path], jobs=1).report
    assert path.read_bytes() == before  # opened read-only
    rows = rep["requests"]
    assert [(r["thread"], r["cache_read"], r["cache_write_5m"]) for r in rows] == [
        ("agent:ses_sub", 0, 8000),
        ("main", 4000, 200),
        ("main", 5000, 200),
    ]  # fmt: skip (rows come by session, thread, time)
    assert {r["session"] for r in rows} == {"ses_main"}
    assert rows[1]["model"] == "anthropic/claude-sonnet-4-5" and rows[1]["usd"] is not None
    assert rep["by_agent"]["subagent"]["breaks"] == {"subagent_cold_start": 1}


def test_opencode_legacy_storage(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    m = {"id": "msg1", "sessionID": "ses1", "role": "assistant", "modelID": "gpt-5",
         "providerID": "openai", "time": {"created": 1_770_000_000_000},
         "tokens": {"input": 100, "output": 7, "reasoning": 0,
                    "cache": {"read": 2048, "write": 0}}}  # fmt: skip
    f = root / "storage" / "message" / "ses1" / "msg1.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(m))
    rep = analyze([root], source="opencode", jobs=1).report
    (r,) = rep["requests"]
    assert (r["uncached_input"], r["cache_read"], r["output"]) == (100, 2048, 7)


@pytest.fixture
async def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    db = SessionStore(path)
    with start_emulator() as emu:
        async with agent(emu, store=db).session("sess-1") as s:
            for i in range(3):
                async for _ in s.send(f"Turn {i}"):
                    pass
    db.close()
    return path


def test_prefixlock_store_and_its_export_read_alike(store: Path, tmp_path: Path) -> None:
    from prefixlock.cli.main import main

    direct = analyze([store], jobs=1).report
    assert direct["totals"]["requests"] == 6
    assert direct["sessions"][0]["session"] == "sess-1"
    assert direct["totals"]["hit_rate"] > 0
    trace = tmp_path / "t.jsonl"
    assert (
        main(["sessions", "--store", str(store), "export", "sess-1", "--jsonl", "-o", str(trace)])
        == 0
    )
    exported = analyze([trace], jobs=1).report
    assert exported["totals"]["tokens"] == direct["totals"]["tokens"]
    assert exported["totals"]["usd"] == direct["totals"]["usd"]


def test_discovery_follows_the_variables(tmp_path: Path) -> None:
    claude = tmp_path / "cc1"
    (claude / "projects" / "-home-x").mkdir(parents=True)
    (claude / "projects" / "-home-x" / "s.jsonl").write_text(CCV.read_text())
    sub = claude / "projects" / "-home-x" / "s" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-abc.jsonl").write_text("")
    codex = tmp_path / "codex"
    (codex / "sessions" / "2026" / "05" / "13").mkdir(parents=True)
    (codex / "sessions" / "2026" / "05" / "13" / "rollout-x.jsonl").write_text(CODEX.read_text())
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": f"{claude}, {tmp_path / 'none'}",
           "CODEX_HOME": str(codex)}  # fmt: skip
    roots = default_roots(env)
    assert roots == [("claude-code", claude / "projects"), ("codex", codex / "sessions")]
    files = find_files([str(claude)])
    assert [Path(p).name for _, p in files] == ["s.jsonl", "agent-abc.jsonl"]  # recursive

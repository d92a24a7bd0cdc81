"""Third-party clients, unchanged, in their own venv, against the emulator: every turn completes
and every request is billed what the providers' documented cache rules give for its bytes.

The clients (tests/thirdparty/clients/) are plain programs of pydantic-ai, openai-agents,
LangChain and the bare SDKs, run by the python of a venv built from PyPI (`env.py`); they know
only a base URL and a fake key. The emulator's requests are written to a JSONL trace, which
`billing.py` replays through the cache guard's model of the documented rules.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from prefixlock.emulator import Emulator
from tests.thirdparty.billing import bills, emulator_trace, mismatches, read_trace, write_trace
from tests.thirdparty.env import EnvUnavailable, thirdparty_python

pytestmark = [pytest.mark.thirdparty, pytest.mark.slow]

CLIENTS_DIR = Path(__file__).parent / "clients"
# client -> (turns it reports, wire API of its first requests, whether turns 2+ continue the
# previous response by id instead of re-sending the conversation, whether turn 3 streams)
CLIENTS: dict[str, tuple[int, str, bool, bool]] = {
    "anthropic_sdk": (3, "anthropic", False, True),
    "openai_sdk": (6, "openai-responses", True, True),  # then 3 Chat Completions turns
    "pydantic_ai_anthropic": (3, "anthropic", False, True),
    "pydantic_ai_openai_responses": (3, "openai-responses", True, True),
    "openai_agents_sdk": (3, "openai-responses", True, True),
    "langchain_anthropic_cache": (3, "anthropic", False, False),
}


@pytest.fixture(scope="module")
def client_python() -> Path:
    try:
        return thirdparty_python()
    except EnvUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_client_completes_every_turn_billed_by_the_documented_rules(
    client: str, client_python: Path, emulator: Emulator, tmp_path: Path
) -> None:
    turns, api, continues, streams = CLIENTS[client]
    key = f"sk-fake-{client}"
    # Nothing of ours on the client's path: its own venv, a folder of its own, no PYTHON* vars.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update({"NO_PROXY": "127.0.0.1,localhost", "OPENAI_AGENTS_DISABLE_TRACING": "1"})
    done = subprocess.run(
        [str(client_python), str(CLIENTS_DIR / f"{client}.py"), emulator.base_url, key],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reported = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [t["turn"] for t in reported] == list(range(1, turns + 1))
    assert all(t["text"] for t in reported)

    trace_path = tmp_path / "trace.jsonl"
    write_trace(trace_path, emulator_trace(emulator))
    trace = read_trace(trace_path)
    # Every request was served: no incompatibility answered with an error.
    assert [(r["status"], r["error"]) for r in trace if r["status"] != 200] == []
    assert [r["api"] for r in trace[:3]] == [api] * 3
    assert trace[2]["stream"] is streams
    assert mismatches(trace) == []
    billed = list(bills(trace))
    assert len(billed) == turns
    # Each turn after the first reads the prefix the client cached (the long system prompt).
    assert billed[0].reported.cache_read == 0
    assert all(b.hit_rate > 0.9 for b in billed[1:3]), [b.hit_rate for b in billed]
    if continues:
        # Turns 2+ sent only the new input and the previous response's id, and read the whole
        # earlier prompt's 128-token blocks.
        for before, rec, bill in zip(billed[:2], trace[1:3], billed[1:3], strict=True):
            assert isinstance(rec["body"].get("previous_response_id"), str)
            assert bill.reported.cache_read >= before.reported.input_total // 128 * 128

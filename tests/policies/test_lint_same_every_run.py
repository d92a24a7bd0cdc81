"""The linter says the same thing on every run: a finding's text must not follow the process's
string hashing (a frozenset's iteration order) nor which importer read a shared module first.
A linter whose output shifts between runs cannot be diffed in CI, and a cache-stability tool
least of all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# A helper module whose function reads the date handed in twice, on two lines, into the text it
# returns; a prompt constant built from it at import, in a server.
_HELPER = """from datetime import datetime


def spoken_date(dt: datetime) -> str:
    weekday = dt.strftime("%A")
    month = dt.strftime("%B")
    return f"{weekday}, {month} {dt.day}"
"""

_PROMPTS = """from datetime import datetime

from helpers import spoken_date

SYSTEM_PROMPT = f"You are a concierge. Today is {spoken_date(datetime.now())}."
"""

_SERVER = """from fastapi import FastAPI
from openai import OpenAI

from prompts import SYSTEM_PROMPT

app = FastAPI()
client = OpenAI()
history: list[dict[str, str]] = []


@app.post("/chat")
def chat(text: str) -> str:
    history.append({"role": "user", "content": text})
    reply = client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": SYSTEM_PROMPT}, *history]
    )
    return reply.choices[0].message.content or ""
"""

# Two TypeScript files import one prompt module by two spellings of its path.
_TS_PROMPT = """export function buildPrompt(): string {
  const today = new Date().toISOString();
  return `You are a shop assistant. Now: ${today}`;
}
"""

_TS_ROUTE = """import OpenAI from "openai";
import { buildPrompt } from "../server/prompt";

const client = new OpenAI();
const history: { role: "user" | "assistant"; content: string }[] = [];

export async function chat(text: string) {
  history.push({ role: "user", content: text });
  return client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: buildPrompt() }, ...history],
  });
}
"""


def _project(root: Path) -> None:
    py = root / "py"
    py.mkdir()
    (py / "helpers.py").write_text(_HELPER)
    (py / "prompts.py").write_text(_PROMPTS)
    (py / "server.py").write_text(_SERVER)
    ts = root / "ts"
    for folder in ("server", "tests"):
        (ts / folder).mkdir(parents=True)
    (ts / "server" / "prompt.ts").write_text(_TS_PROMPT)
    (ts / "tests" / "chat.ts").write_text(_TS_ROUTE)
    (ts / "chat.ts").write_text(_TS_ROUTE.replace("../server/prompt", "./server/prompt"))


def _lint(root: Path, seed: str) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-m", "prefixlock.cli.main", "lint", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def test_findings_are_the_same_under_any_string_hashing(tmp_path: Path) -> None:
    _project(tmp_path)
    runs = [_lint(tmp_path, seed) for seed in ("1", "2", "3", "4")]
    assert runs[0], "the project holds breakers: the check must have something to compare"
    assert all(run == runs[0] for run in runs[1:])
    # the prompt module is named by one path, however its importer spelt it
    assert not any("/../" in json.dumps(f) for f in runs[0])


def test_no_finding_names_the_machine_s_folders(tmp_path: Path) -> None:
    # An `@/` alias is resolved through the folders above the importer: the module it names is
    # still shown as the run names its files, relative, so two checkouts report the same text.
    root = tmp_path / "shop"
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "app").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "shop"}\n')
    (root / "src" / "lib" / "prompt.ts").write_text(_TS_PROMPT)
    (root / "src" / "app" / "chat.ts").write_text(
        _TS_ROUTE.replace("../server/prompt", "@/lib/prompt")
    )
    done = subprocess.run(
        [sys.executable, "-m", "prefixlock.cli.main", "lint", ".", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    found = json.loads(done.stdout)
    across = [f for f in found if "src/lib/prompt.ts" in f["message"]]
    assert across, found  # the value is followed through the alias into the other module
    assert str(tmp_path) not in done.stdout

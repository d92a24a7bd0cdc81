"""Select real3's files by the grep rule in PROCEDURE.md and write MANIFEST.tsv (labels empty).

    python tests/policies/corpus/real3/sample.py [--mirror DIR]

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD through the
shared sampler ../realsample.py, with real3's own rule: its pattern, its skipped folders (no
`cookbook`, `notebooks`), no conftest.py exclusion and files of at most 1,000 lines. Never reads
a file's meaning, only counts the lines that match the rule's pattern.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

TS = [
    "cline/cline", "RooCodeInc/Roo-Code", "continuedev/continue", "Kilo-Org/kilocode",
    "google-gemini/gemini-cli", "QwenLM/qwen-code", "sst/opencode", "voideditor/void",
    "langchain-ai/open-swe", "stackblitz/bolt.new", "stackblitz-labs/bolt.diy",
    "e2b-dev/fragments", "srcbookdev/srcbook", "lobehub/lobe-chat", "danny-avila/LibreChat",
    "Mintplex-Labs/anything-llm", "enricoros/big-AGI", "vercel/ai-chatbot",
    "mckaywrigley/chatbot-ui", "ChatGPTNextWeb/NextChat", "chatboxai/chatbox",
    "langchain-ai/agent-chat-ui", "reworkd/AgentGPT", "FlowiseAI/Flowise",
    "langchain-ai/open-canvas", "mastra-ai/mastra", "nanobrowser/nanobrowser",
    "browserbase/stagehand", "jina-ai/node-DeepResearch", "dzhng/deep-research",
]  # fmt: skip
PY = [
    "Aider-AI/aider", "All-Hands-AI/OpenHands", "OpenInterpreter/open-interpreter",
    "SWE-agent/SWE-agent", "AntonOsika/gpt-engineer", "Pythagora-io/gpt-pilot",
    "stitionai/devika", "AbanteAI/mentat", "Doriandarko/claude-engineer", "qodo-ai/pr-agent",
    "geekan/MetaGPT", "OpenBMB/ChatDev", "yoheinakajima/babyagi", "Significant-Gravitas/AutoGPT",
    "TransformerOptimus/SuperAGI", "microsoft/TaskWeaver", "khoj-ai/khoj", "letta-ai/letta",
    "open-webui/open-webui", "assafelovic/gpt-researcher", "browser-use/browser-use",
    "Skyvern-AI/skyvern", "OthersideAI/self-operating-computer",
]  # fmt: skip
# real3's rule (PROCEDURE.md): realsample's later rules skip two more folders and conftest.py
SKIP_DIRS = rs.SKIP_DIRS - {"cookbook", "notebooks"}
PATTERN = (
    r"system_?prompt|system prompt|systemmessage|role[\"']?\s*[:=]\s*[\"']system|messages\.create"
    r"|completions\.create|streamtext|generatetext|acompletion|litellm\.completion"
)
MAX_LINES = 1000
PER_PROJECT = 2


def eligible(path: str, lang: str) -> bool:
    return rs.eligible(path, lang, SKIP_DIRS, skip_conftest=False)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    a = p.parse_args()
    rows: list[list[str]] = []
    skipped: list[str] = []
    for lang, names in (("ts", TS), ("py", PY)):
        taken: list[tuple[str, str, str, list[str]]] = []
        for name in names:
            snap = rs.Snapshot.open(Path(a.mirror), name)
            if snap is None:
                skipped.append(f"{name}: no snapshot")
                continue
            scores = snap.grep(PATTERN)
            picks = rs.ranked(snap, lang, scores, set(), PER_PROJECT, MAX_LINES, eligible)
            if not picks:
                skipped.append(f"{name}: no matching file")
                continue
            lic = snap.licence()
            for rank, (path, score, n_lines) in enumerate(picks, 1):
                taken.append((name, path, snap.commit, [lic, str(n_lines), str(score), str(rank)]))
        halves = rs.split(sorted({t[0] for t in taken}))
        for name, path, commit, (lic, n_lines, score, rank) in taken:
            rows.append([lang, name, path, commit, lic, n_lines, score, rank, halves[name]])
    with open(HERE / "MANIFEST.tsv", "w", encoding="utf-8") as fh:
        fh.write("lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\n")
        for r in rows:
            fh.write("\t".join(r) + "\n")
    (HERE / "SKIPPED.txt").write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

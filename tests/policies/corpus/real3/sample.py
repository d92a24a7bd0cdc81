"""Select real3's files by the grep rule in PROCEDURE.md and write MANIFEST.tsv (labels empty).

    python tests/policies/corpus/real3/sample.py [--mirror DIR]

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD; never reads a
file's meaning, only counts the lines that match the rule's pattern.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
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
EXT = {"ts": (".ts", ".tsx", ".js", ".mjs", ".cjs"), "py": (".py",)}
SKIP_DIRS = {
    "node_modules", "dist", "build", "out", "vendor", "test", "tests", "__tests__", "e2e",
    "fixtures", "examples", "example", "docs", "evals", "eval", "benchmarks", "locales", "i18n",
}  # fmt: skip
PATTERN = re.compile(
    r"system_?prompt|system prompt|systemmessage|role[\"']?\s*[:=]\s*[\"']system|messages\.create"
    r"|completions\.create|streamtext|generatetext|acompletion|litellm\.completion",
    re.IGNORECASE,
)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], capture_output=True, check=True
    ).stdout


def git_grep(repo: Path, commit: str) -> dict[str, int]:
    """Matching lines per file, counted by git grep (a line matches at most once)."""
    out = subprocess.run(
        ["git", "--git-dir", str(repo), "grep", "-c", "-i", "-E", PATTERN.pattern, commit],
        capture_output=True,
    ).stdout.decode("utf-8", "replace")
    counts: dict[str, int] = {}
    for line in out.splitlines():
        where, _, n = line.rpartition(":")
        counts[where.split(":", 1)[1]] = int(n)
    return counts


def eligible(path: str, lang: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(EXT[lang]) or SKIP_DIRS & set(parts[:-1]):
        return False
    if ".test." in name or ".spec." in name or name.endswith((".d.ts", ".min.js")):
        return False
    return not (name.startswith("test_") or name.endswith("_test.py"))


def licence(repo: Path, commit: str, paths: list[str]) -> str:
    for p in paths:
        if p.split(".")[0].upper() in ("LICENSE", "LICENCE", "COPYING") and "/" not in p:
            text = git(repo, "show", f"{commit}:{p}").decode("utf-8", "replace")
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            return first[:60]
    return "none found"


def half(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "test"


def split(names: list[str]) -> dict[str, str]:
    halves = {n: half(n) for n in names}
    while True:
        dev = [n for n in names if halves[n] == "dev"]
        test = [n for n in names if halves[n] == "test"]
        if abs(len(dev) - len(test)) <= 1:
            return halves
        big = dev if len(dev) > len(test) else test
        top = max(big, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        halves[top] = "test" if halves[top] == "dev" else "dev"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    a = p.parse_args()
    rows: list[list[str]] = []
    skipped: list[str] = []
    for lang, names in (("ts", TS), ("py", PY)):
        taken: list[tuple[str, str, str, list[str]]] = []
        for name in names:
            repo = Path(a.mirror) / name.replace("/", "+") / "repo"
            if not repo.is_dir():
                skipped.append(f"{name}: no snapshot")
                continue
            commit = git(repo, "rev-parse", "HEAD").decode().strip()
            paths = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
            counts = git_grep(repo, commit)
            scored: list[tuple[int, str, int]] = []
            for path, n in counts.items():
                if not eligible(path, lang):
                    continue
                text = git(repo, "show", f"{commit}:{path}").decode("utf-8", "replace")
                n_lines = len(text.splitlines())
                if n_lines <= 1000:
                    scored.append((-n, path, n_lines))
            if not scored:
                skipped.append(f"{name}: no matching file")
                continue
            scored.sort()
            lic = licence(repo, commit, paths)
            for rank, (neg, path, n_lines) in enumerate(scored[:2], 1):
                taken.append((name, path, commit, [lic, str(n_lines), str(-neg), str(rank)]))
        halves = split(sorted({t[0] for t in taken}))
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

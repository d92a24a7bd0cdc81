"""Select real4's files by the grep rule in PROCEDURE.md and write MANIFEST.tsv.

    python tests/policies/corpus/real4/sample.py [--mirror DIR] [--stratum 2]

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD through the
shared sampler ../realsample.py, with real4's own rule (its patterns, skipped folders and
700-line bound); never reads a file's meaning, only counts the lines that match the rule's two
patterns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

TS = [
    "miurla/morphic", "ItzCrazyKns/Perplexica", "zaidmukaddam/scira", "huggingface/chat-ui",
    "Chanzhaoyu/chatgpt-web", "josStorer/chatGPTBox", "anse-app/anse",
    "vercel-labs/gemini-chatbot", "assistant-ui/assistant-ui", "Nutlope/llamacoder",
    "tldraw/make-real", "BuilderIO/micro-agent", "CodebuffAI/codebuff", "twinnydotdev/twinny",
    "sourcegraph/cody", "microsoft/genaiscript", "steven-tey/novel", "openai/openai-agents-js",
    "inngest/agent-kit", "VoltAgent/voltagent", "langchain-ai/langgraphjs",
    "run-llama/LlamaIndexTS", "langchain-ai/social-media-agent", "openai/openai-realtime-agents",
]  # fmt: skip
PY = [
    "pydantic/pydantic-ai", "openai/openai-agents-python", "google/adk-python",
    "microsoft/autogen", "langchain-ai/langgraph", "agno-agi/agno", "kyegomez/swarms",
    "Upsonic/Upsonic", "run-llama/llama_index", "langchain-ai/open_deep_research",
    "bytedance/deer-flow", "stanford-oval/storm", "FoundationAgents/OpenManus", "kortix-ai/suna",
    "SakanaAI/AI-Scientist", "joonspk-research/generative_agents",
    "langchain-ai/executive-ai-assistant", "mem0ai/mem0", "TheR1D/shell_gpt", "simonw/llm",
    "vanna-ai/vanna", "OpenAutoCoder/Agentless", "abi/screenshot-to-code", "browser-use/web-ui",
    "microsoft/magentic-ui",
]  # fmt: skip
SKIP_DIRS = {
    "node_modules", "dist", "build", "out", "vendor", "test", "tests", "__tests__", "e2e",
    "fixtures", "examples", "example", "docs", "evals", "eval", "benchmarks", "locales", "i18n",
    "cookbook", "notebooks",
}  # fmt: skip
PROMPT = (
    r"system_?prompt|system prompt|systemmessage|role[\"']?\s*[:=]\s*[\"']system"
    r"|instructions?\s*[:=]"
)
CALL = (
    r"messages\.create|completions\.create|streamtext|generatetext|streamobject|generateobject"
    r"|acompletion|litellm\.completion|\.a?invoke\(|\.a?run\(|messages\.(push|append)"
    r"|role[\"']?\s*[:=]\s*[\"'](user|assistant)"
)
VOLATILE = (
    r"new Date\(|Date\.now\(|datetime\.(now|utcnow|today)|date\.today|strftime|toISOString"
    r"|toLocale(Date|Time)?String|process\.cwd|os\.getcwd|Path\.cwd|getcwd"
    r"|git (status|diff|log|branch)|platform\.(system|platform|release)|os\.platform|os\.type\("
    r"|randomUUID|uuid4|Math\.random"
)
MAX_LINES = 700
PER_PROJECT = {1: 2, 2: 1}


def eligible(path: str, lang: str) -> bool:
    return rs.eligible(path, lang, SKIP_DIRS)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--stratum", type=int, choices=(1, 2), default=1)
    a = p.parse_args()
    manifest = HERE / "MANIFEST.tsv"
    before: list[list[str]] = []
    if a.stratum == 2:
        lines = manifest.read_text(encoding="utf-8").splitlines()[1:]
        before = [ln.split("\t") for ln in lines if ln.split("\t")[-1] == "1"]
    halves_before = {r[1]: r[8] for r in before}
    rows: list[list[str]] = []
    skipped: list[str] = []
    for lang, names in (("ts", TS), ("py", PY)):
        taken: list[tuple[str, str, str, list[str]]] = []
        for name in names:
            snap = rs.Snapshot.open(Path(a.mirror), name)
            if snap is None:
                skipped.append(f"{name}: no snapshot")
                continue
            scores = rs.both(PROMPT, VOLATILE if a.stratum == 2 else CALL)(snap)
            done = {r[2] for r in before if r[1] == name}
            per = PER_PROJECT[a.stratum]
            picks = rs.ranked(snap, lang, scores, done, per, MAX_LINES, eligible)
            if not picks:
                skipped.append(f"{name}: no matching file")
                continue
            lic = snap.licence()
            for rank, (path, score, n_lines) in enumerate(picks, 1):
                taken.append((name, path, snap.commit, [lic, str(n_lines), str(score), str(rank)]))
        halves = rs.split(sorted({t[0] for t in taken}))
        halves.update(halves_before)  # stratum 2 keeps each project's half
        for name, path, commit, (lic, n_lines, score, rank) in taken:
            row = [lang, name, path, commit, lic, n_lines, score, rank, halves[name]]
            rows.append([*row, str(a.stratum)])
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write("lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\n")
        for r in before + rows:
            fh.write("\t".join(r) + "\n")
    skips = HERE / ("SKIPPED.txt" if a.stratum == 1 else "SKIPPED-2.txt")
    skips.write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

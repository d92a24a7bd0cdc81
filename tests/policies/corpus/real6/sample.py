"""Select real6's files by the grep rules in PROCEDURE.md (three strata, stated before anything
was fetched) and write MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real6/sample.py [--mirror DIR]            # strata 1-3
    python tests/policies/corpus/real6/sample.py [--mirror DIR] --amend    # then 4-5 (amendment 2)
    python tests/policies/corpus/real6/sample.py [--mirror DIR] --more     # then amendment 3
    python tests/policies/corpus/real6/sample.py [--mirror DIR] --more4    # then amendment 4

Run them in this order, once each, from the committed state that precedes each.

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD through the
shared sampler ../realsample.py; never reads a file's meaning, only counts matching lines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from realsample import CALL, DATETEXT, PROMPT, VOLATILE, Snapshot, both, near, ranked, split  # noqa: E402

# In the order PROCEDURE.md lists them; taken in order until WANT projects of the language are
# usable.
TS = [
    "BuilderIO/ai-shell", "coderabbitai/ai-pr-reviewer", "mattzcarey/code-review-gpt",
    "anc95/ChatGPT-CodeReview", "nicepkg/aide", "logancyang/obsidian-copilot",
    "reorproject/reor", "a16z-infra/ai-town", "a16z-infra/companion-app",
    "chathub-dev/chathub", "sunner/ChatALL", "Niek/chatgpt-web", "deiucanta/chatpad",
    "jakobhoeg/nextjs-ollama-llm-ui", "SillyTavern/SillyTavern",
    "openai/openai-assistants-quickstart", "openai/openai-responses-starter-app",
    "langchain-ai/langchain-nextjs-template", "langchain-ai/react-agent-js",
    "langchain-ai/memory-agent-js", "cloudflare/agents", "get-convex/agent", "dexaai/dexter",
    "transitive-bullshit/chatgpt-api", "browserbase/open-operator", "hyperbrowserai/HyperAgent",
    "steel-dev/surf.new", "mayooear/gpt4-pdf-chatbot-langchain",
    "supabase-community/nextjs-openai-doc-search", "run-llama/chat-llamaindex",
    "Azure-Samples/azure-search-openai-javascript", "e2b-dev/ai-analyst",
    "mendableai/open-lovable", "moeru-ai/airi", "refly-ai/refly", "fuergaosi233/wechat-chatgpt",
    # reserves (PROCEDURE.md, amendment), appended in their order
    "microsoft/vscode-copilot-chat", "anthropics/claude-code-action", "upstash/rag-chat",
    "fixie-ai/ai-jsx", "lgrammel/modelfusion", "brianpetro/obsidian-smart-connections",
    "nhaouari/obsidian-textgenerator-plugin", "xataio/agent", "instructor-ai/instructor-js",
    "motiadev/motia", "openai/openai-realtime-twilio-demo",
]  # fmt: skip
PY = [
    "Codium-ai/AlphaCodium", "jina-ai/dev-gpt", "entropy-research/Devon", "microsoft/UFO",
    "OS-Copilot/OS-Copilot", "xlang-ai/OpenAgents", "trycua/cua", "griptape-ai/griptape",
    "VRSEN/agency-swarm", "superagent-ai/superagent", "julep-ai/julep",
    "BrainBlend-AI/atomic-agents", "OpenBMB/XAgent", "OpenBMB/AgentVerse",
    "langchain-ai/chat-langchain", "langchain-ai/langmem",
    "google-gemini/gemini-fullstack-langgraph-quickstart", "openai/openai-cs-agents-demo",
    "weaviate/Verba", "PromtEngineer/localGPT", "SciPhi-AI/R2R", "rashadphz/farfalle",
    "stanford-oval/WikiChat", "HKUDS/LightRAG", "microsoft/graphrag", "Future-House/paper-qa",
    "binary-husky/gpt_academic", "zhayujie/chatgpt-on-wechat", "cheshire-cat-ai/core",
    "openai/gpt-discord-bot", "Zero6992/chatGPT-discord-bot", "vocodedev/vocode-core",
    "lmnr-ai/index", "OpenAdaptAI/OpenAdapt",
]  # fmt: skip
WANT = {"ts": 22, "py": 20}
# Amendment 4: taken in order until the TypeScript projects are at least as many as Python ones.
TS_MORE4 = [
    "elie222/inbox-zero", "midday-ai/midday", "u14app/deep-research", "btahir/open-deep-research",
    "e2b-dev/surf", "tambo-ai/tambo", "openai-translator/openai-translator",
    "lobehub/lobe-cli-toolbox", "langchain-ai/retrieval-agent-template-js",
    "langchain-ai/data-enrichment-js", "langchain-ai/agent-inbox", "humanlayer/humanlayer",
]  # fmt: skip
CUT = (
    r"messages\.slice\(|messages\[-|history\[-|\.splice\(0|max_?history|trim_?messages"
    r"|\.slice\(-|\[-[0-9a-z_]+:\]|history_?limit|max_?messages|context_?window"
    r"|summari[sz]e_?(history|messages|conversation)"
)


def clock_near_call(snap: Snapshot) -> dict[str, int]:
    """Stratum 4: DATETEXT lines plus VOLATILE lines within 15 lines of prompt text or a call."""
    dated = snap.grep(DATETEXT)
    close = near(VOLATILE, (PROMPT, DATETEXT, CALL), 15)(snap)
    return {p: dated.get(p, 0) + close.get(p, 0) for p in dated.keys() | close.keys()}


# stratum: (how files are scored, files a project)
STRATA = {
    1: (both(PROMPT, CALL), 1),
    2: (near(VOLATILE, (PROMPT, DATETEXT), 15), 2),
    3: (both(PROMPT, CUT), 1),
}
AMENDED = {
    4: (clock_near_call, 2),
    5: (both(CUT, CALL), 1),
}
HEADER = "lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\n"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--amend", action="store_true", help="append strata 4-5 (amendment 2)")
    p.add_argument("--more", action="store_true", help="append the rest of the list (amendment 3)")
    p.add_argument("--more4", action="store_true", help="append TypeScript projects (amendment 4)")
    a = p.parse_args()
    if a.more4:
        return more(Path(a.mirror), (("ts", TS_MORE4),), "SKIPPED-4.txt", until_half=True)
    if a.amend:
        return amend(Path(a.mirror))
    if a.more:
        return more(Path(a.mirror), (("ts", TS), ("py", PY)), "SKIPPED-3.txt")
    rows: list[list[str]] = []
    skipped: list[str] = []
    for lang, names in (("ts", TS), ("py", PY)):
        drawn: list[tuple[str, list[str]]] = []
        used: list[str] = []
        for name in names:
            if len(used) == WANT[lang]:
                break
            snap = Snapshot.open(Path(a.mirror), name)
            if snap is None:
                skipped.append(f"{name}: no snapshot")
                continue
            taken: set[str] = set()
            for stratum, (scorer, per_project) in STRATA.items():
                picks = ranked(snap, lang, scorer(snap), taken, per_project)
                if stratum == 1 and not picks:
                    skipped.append(f"{name}: no file matching stratum 1")
                    break
                lic = snap.licence() if picks else ""
                for rank, (path, score, n_lines) in enumerate(picks, 1):
                    taken.add(path)
                    drawn.append((name, [path, snap.commit, lic, str(n_lines), str(score),
                                         str(rank), str(stratum)]))  # fmt: skip
            if taken:
                used.append(name)
        halves = split(sorted(used))
        for name, fields in drawn:
            rows.append([lang, name, *fields[:6], halves[name], fields[6]])
    rows.sort(key=lambda r: (r[9], r[0] != "ts"))
    with open(HERE / "MANIFEST.tsv", "w", encoding="utf-8") as fh:
        fh.write(HEADER)
        for r in rows:
            fh.write("\t".join(r) + "\n")
    (HERE / "SKIPPED.txt").write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files; skipped: {skipped}")
    return 0


def amend(mirror: Path) -> int:
    """Append strata 4 and 5 from the projects, halves and files already drawn."""
    manifest = HERE / "MANIFEST.tsv"
    before = [ln.split("\t") for ln in manifest.read_text(encoding="utf-8").splitlines()[1:]]
    before = [r for r in before if int(r[9]) <= 3]
    projects = {r[1]: (r[0], r[8]) for r in before}
    rows: list[list[str]] = []
    for name, (lang, half) in projects.items():
        snap = Snapshot.open(mirror, name)
        assert snap is not None, name
        taken = {r[2] for r in before if r[1] == name}
        for stratum, (scorer, per_project) in AMENDED.items():
            picks = ranked(snap, lang, scorer(snap), taken, per_project)
            lic = next(r[4] for r in before if r[1] == name)
            for rank, (path, points, n_lines) in enumerate(picks, 1):
                taken.add(path)
                row = [lang, name, path, snap.commit, lic, str(n_lines), str(points), str(rank)]
                rows.append([*row, half, str(stratum)])
    rows.sort(key=lambda r: (r[9], r[0] != "ts"))
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write(HEADER)
        for r in before + rows:
            fh.write("\t".join(r) + "\n")
    print(f"{len(rows)} files appended")
    return 0


def more(
    mirror: Path,
    lists: tuple[tuple[str, list[str]], ...],
    skip_file: str,
    until_half: bool = False,
) -> int:
    """Append every stratum of listed projects not drawn or skipped before (amendment 3: all of
    them; amendment 4, `until_half`: until the TypeScript projects are at least as many as the
    Python ones). Projects already drawn keep their halves; the new ones are split among
    themselves."""
    manifest = HERE / "MANIFEST.tsv"
    before = [ln.split("\t") for ln in manifest.read_text(encoding="utf-8").splitlines()[1:]]
    drawn_before = {r[1] for r in before}
    skips = (HERE / "SKIPPED.txt").read_text(encoding="utf-8").splitlines()
    tried = {ln.split(":")[0] for ln in skips} | drawn_before
    rows: list[list[str]] = []
    skipped: list[str] = []
    count = {lang: len({r[1] for r in before if r[0] == lang}) for lang in ("ts", "py")}
    for lang, names in lists:
        picked: list[tuple[str, list[str]]] = []
        used: list[str] = []
        for name in names:
            if until_half and count["ts"] + len(used) >= count["py"]:
                break
            if name in tried:
                continue
            snap = Snapshot.open(mirror, name)
            if snap is None:
                skipped.append(f"{name}: no snapshot")
                continue
            taken: set[str] = set()
            lic = snap.licence()
            for stratum, (scorer, per_project) in (STRATA | AMENDED).items():
                picks = ranked(snap, lang, scorer(snap), taken, per_project)
                if stratum == 1 and not picks:
                    skipped.append(f"{name}: no file matching stratum 1")
                    break
                for rank, (path, points, n_lines) in enumerate(picks, 1):
                    taken.add(path)
                    row = [path, snap.commit, lic, str(n_lines), str(points), str(rank)]
                    picked.append((name, [*row, str(stratum)]))
            if taken:
                used.append(name)
        halves = split(sorted(used))
        for name, fields in picked:
            rows.append([lang, name, *fields[:6], halves[name], fields[6]])
    rows.sort(key=lambda r: (r[9], r[0] != "ts"))
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write(HEADER)
        for r in before + rows:
            fh.write("\t".join(r) + "\n")
    (HERE / skip_file).write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files appended; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

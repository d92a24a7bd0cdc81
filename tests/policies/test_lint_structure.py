"""The structural rules beyond single expressions: per-request content before the history
(PL304, also when the class that orders the parts lives in another module), side requests with
another prefix (PL305), history rewritten under a budget (PL303), and the JS/TS front end's
orders, `+` chains and functions."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source
from prefixlock.policies.jscheck import check_js

CHUNKS = """class Chunks:
    def __init__(self):
        self.system, self.repo, self.done, self.cur = [], [], [], []

    def all_messages(self):
        return self.system + self.repo + self.done + self.cur
"""

CODER = """from app.chunks import Chunks


class Coder:
    def repo_messages(self):
        text = " ".join(m["content"] for m in self.cur_messages)
        return [{"role": "user", "content": self.ranker.rank(text)}]

    def messages(self):
        chunks = Chunks()
        chunks.system = [{"role": "system", "content": "You edit code."}]
        chunks.repo = self.repo_messages()
        chunks.done = self.done_messages
        chunks.cur = list(self.cur_messages)
        return chunks.all_messages()
"""


def _codes(tmp_path: Path) -> list[tuple[str, int, str]]:
    result = lint_paths([str(tmp_path)], LintConfig(model="claude-sonnet-4-6", root=str(tmp_path)))
    return [(Path(f.path).name, f.line, f.code) for f in result.findings]


def test_per_request_part_ordered_by_a_class_in_another_module(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chunks.py").write_text(CHUNKS)
    (tmp_path / "app" / "coder.py").write_text(CODER)
    assert _codes(tmp_path) == [("coder.py", 12, "PL304")]


def test_same_parts_with_the_history_first_are_not_flagged(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chunks.py").write_text(
        CHUNKS.replace("self.system + self.repo + self.done", "self.system + self.done + self.repo")
    )
    (tmp_path / "app" / "coder.py").write_text(CODER)
    assert _codes(tmp_path) == []


def test_an_unknown_class_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "coder.py").write_text(CODER)  # app/chunks.py is not there
    assert _codes(tmp_path) == []


def test_side_request_with_its_own_system_argument() -> None:
    src = """SUMMARY = "Summarise."


def summarize(client, history):
    text = "\\n".join(m["content"] for m in history)
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=300, system=SUMMARY,
                                  messages=[{"role": "user", "content": text}])
"""
    assert [(f.line, f.code) for f in lint_source(src, "s.py")] == [(6, "PL305")]


def test_a_request_with_the_history_as_messages_is_not_a_side_request() -> None:
    src = """def ask(client, history, system):
    last = history[-1]["content"]
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=300, system=system,
                                  messages=[*history, {"role": "user", "content": "Go on."}])
"""
    assert [f.code for f in lint_source(src, "s.py")] == []


def test_text_built_in_a_loop_is_not_a_budget() -> None:
    src = """def flatten(messages):
    for message in messages:
        text = ""
        count = 0
        for part in message["content"]:
            text += part["text"]
            count += 1
        if text:
            message["content"] = text
"""
    # Every message is flattened alike: `count` is counted but never decides.
    assert [f.code for f in lint_source(src, "h.py")] == []


def test_js_function_return_flows_into_a_prompt_template() -> None:
    ts = (
        "const stamp = () => Date.now();\n"
        "function branchName() {\n"
        '  return execSync("git rev-parse --abbrev-ref HEAD").toString();\n'
        "}\n"
        "export const SYSTEM_PROMPT = `At ${stamp()} on ${branchName()}`;\n"
    )
    assert [(f.line, f.code) for f in check_js("a.ts", ts)] == [(5, "PL101"), (5, "PL104")]


def test_js_environment_keys_sorted_or_not() -> None:
    ts = (
        "const keys = Object.keys(process.env);\n"
        "const sortedKeys = Object.keys(process.env).sort();\n"
        'const systemPrompt = "Vars: " + keys.join(",");\n'
        'const instructions = "Vars: " + sortedKeys.join(",");\n'
    )
    assert [(f.line, f.code) for f in check_js("a.ts", ts)] == [(3, "PL201")]


def test_screenshots_dropped_from_older_memory_steps() -> None:
    src = """def save_screenshot(step, agent):
    for previous in agent.memory.steps:
        if previous.step_number <= step.step_number - 2:
            previous.observations_images = None
    return agent.model.generate(agent.write_memory_to_messages())
"""
    assert [(f.line, f.code) for f in lint_source(src, "v.py")] == [(4, "PL303")]


def test_plan_update_under_its_own_system_message() -> None:
    src = """def generate_planning_step(model, memory_messages, task):
    pre = ChatMessage(role=MessageRole.SYSTEM, content="Update the plan for: " + task)
    post = ChatMessage(role=MessageRole.USER, content="Now write the new plan.")
    plan_messages = [pre] + memory_messages + [post]
    return model.generate(plan_messages)


def step(model, memory_messages, system_message):
    # The turn itself: the session's own system message, then the history.
    turn_messages = [system_message] + memory_messages
    return model.generate(turn_messages)
"""
    assert [(f.line, f.code) for f in lint_source(src, "a.py")] == [(5, "PL305")]


def test_the_rule_docs_example_is_flagged() -> None:
    src = """class Chat:
    def messages(self):
        repo_map = self.rank_files(self.cur_messages)
        return [*self.system, *repo_map, *self.history, *self.cur_messages]
"""
    assert [(f.line, f.code) for f in lint_source(src, "c.py")] == [(4, "PL304")]


def test_messages_cut_out_of_the_middle() -> None:
    # gpt-pilot's AgentConvo.trim shape: the history written back without a run of messages.
    src = """class Convo:
    def trim(self, trim_index, trim_count):
        self.messages = self.messages[:trim_index] + self.messages[trim_index + trim_count :]
        return self

    def drop_last(self, x):
        self.messages = self.messages[:-x]
        rows = self.rows[:3] + other[5:]
        return rows
"""
    assert [(f.line, f.code) for f in lint_source(src, "convo.py")] == [(3, "PL303")]

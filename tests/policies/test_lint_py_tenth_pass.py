"""The tenth Python pass: a request is a conversation only where its messages carry a history.
A list opened with a system message and grown, once per call and outside any loop, by messages
written out here (more system text, the step's one user message) is a one-shot request however
its system text is split (`pycheck.oneshot`): a step number or the request's own subject there
breaks no repeated prefix. Its twins that carry a history, grow the list in a loop, or take a
message from elsewhere still report; a clock there is still reported (real8's rule)."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes, lines_of

_STEP = (
    "class Executor:\n"
    "    def run(self, plan):\n"
    "        step = plan.current_step\n"
    "        self._as_text(step, plan)\n"
    "\n"
    "    def _as_text(self, current_step, plan):\n"
    "        system = f'You are running step {current_step.id} of the plan {plan.title}.'\n"
    '        messages = [{"role": "system", "content": system}]\n'
    "        if plan.notes:\n"
    '            messages.append({"role": "system", "content": "Notes: " + plan.notes})\n'
    "GROWTH"
    "        return self._llm_call(messages)\n"
)
_USER = '        messages.append({"role": "user", "content": f"Run: {current_step.text}"})\n'


def _src(growth: str = _USER) -> str:
    return _STEP.replace("GROWTH", growth)


def test_a_list_grown_once_by_written_out_messages_is_one_shot() -> None:
    assert lines_of(_src(), "PL106", "executor.py") == []


def test_the_same_list_with_the_history_appended_still_reports() -> None:
    growth = _USER + "        messages.extend(plan.history)\n"
    assert lines_of(_src(growth), "PL106", "executor.py") != []


def test_the_same_list_grown_in_a_loop_still_reports() -> None:
    growth = "        for note in plan.items:\n" + "    " + _USER
    assert lines_of(_src(growth), "PL106", "executor.py") != []


def test_a_message_from_elsewhere_appended_still_reports() -> None:
    growth = _USER + "        messages.append(plan.last_reply)\n"
    assert lines_of(_src(growth), "PL106", "executor.py") != []


def test_a_second_user_message_is_a_conversation() -> None:
    growth = _USER + _USER.replace('"user"', '"assistant"') + _USER
    assert lines_of(_src(growth), "PL106", "executor.py") != []


def test_a_clock_in_a_split_one_shot_prompt_is_still_reported() -> None:
    """Two system messages and the question: one-shot, but a clock there changes between
    requests that are otherwise the same (real8's rule)."""
    src = (
        "from datetime import datetime\n"
        "def answer(question, notes):\n"
        "    system = f'Rules. Now: {datetime.now().isoformat()}'\n"
        "    return llm.invoke(\n"
        "        [SystemMessage(content=system), SystemMessage(content=notes),"
        " HumanMessage(content=question)]\n"
        "    )\n"
    )
    assert lines_of(src, "PL101", "answer.py") != []


_DUMPED = (
    "import json\n"
    "class Adapter:\n"
    "    def _system(self, state, mode):\n"
    "        return f'Mode {mode.upper()}. State: {json.dumps(state)}'\n"
    "\n"
    "    def reply(self, message, history, state, mode):\n"
    "        system_prompt = self._system(STATE, mode)\n"
    '        messages = [{"role": "system", "content": system_prompt}]\n'
    "        for turn in HISTORY:\n"
    '            messages.append({"role": turn["role"], "content": turn["content"]})\n'
    '        messages.append({"role": "user", "content": message})\n'
    '        return self.client.chat.completions.create(model="m", messages=messages)\n'
)


def _dumped(state: str = "state", history: str = "history") -> str:
    return _DUMPED.replace("STATE", state).replace("HISTORY", history)


def test_state_handed_in_per_request_and_dumped_ahead_of_the_history_is_pl304() -> None:
    assert lines_of(_dumped(), "PL304", "adapter.py") == [4]


def test_a_setting_kept_on_the_object_and_dumped_is_not() -> None:
    assert lines_of(_dumped(state="self.state"), "PL304", "adapter.py") == []


def test_state_dumped_into_a_one_shot_request_is_not() -> None:
    """No history follows: the loop walks a list the function does not take per call."""
    assert lines_of(_dumped(history="[]"), "PL304", "adapter.py") == []


def test_a_parameter_the_builder_only_formats_is_not() -> None:
    src = _dumped().replace("json.dumps(state)", "state")
    assert lines_of(src, "PL304", "adapter.py") == []


def test_a_dump_of_per_request_state_is_reported_as_state_not_as_key_order() -> None:
    """The unsorted dump's PL202 gives way to the PL304 that still reports the breaker; a
    setting's dump is no finding (a dict keeps the order its keys were inserted in)."""
    assert ("PL202" in {c for _, c in line_codes(_dumped(), "adapter.py")}) is False
    assert lines_of(_dumped(), "PL304", "adapter.py") == [4]
    kept = line_codes(_dumped(state="self.state"), "adapter.py")
    assert (4, "PL202") not in kept

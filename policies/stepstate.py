"""Where a procedure stands now, written into the system prompt (PL304): the words both front
ends read a builder, its step parameter and its text by, and the message they give. A system
prompt builder handed the current step (`createSystemPrompt(model, sop, currentStepId)`,
`build_system_prompt(sop, current_step)`) that writes it into the prompt changes the prefix as
the step advances within the conversation. Pure: names in, a yes or no and a message out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from .meaning import words

# Where a procedure stands: `currentStep`, `current_stage_id`, `activePhase`.
_NOW = frozenset({"current", "active"})
_PROGRESS = frozenset({"step", "stage", "phase", "node", "state", "task"})
_BUILDER_NOUNS = frozenset({"prompt", "message", "instructions", "instruction"})


def is_system_builder(name: str) -> bool:
    """`buildSystemPrompt`, `create_system_message`: a function that writes a system prompt."""
    ws = set(words(name))
    return "system" in ws and bool(ws & _BUILDER_NOUNS)


def is_prompt_text(name: str) -> bool:
    """A local named for the text being built (`prompt`, `systemMessage`)."""
    return bool(set(words(name)) & _BUILDER_NOUNS)


def is_progress(name: str) -> bool:
    """A parameter naming where the procedure stands now (`currentStepId`, `active_phase`)."""
    ws = set(words(name))
    return bool(ws & _NOW and ws & _PROGRESS)


def step_state_message(name: str) -> str:
    return (
        f"`{name}` (where the procedure stands now) is written into the system prompt: as the "
        "step advances within the conversation the prefix changes and every message after it "
        "is sent again uncached; put the current step in the newest user message"
    )

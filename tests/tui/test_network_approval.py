"""The chat asks before a command that failed without the network runs again with it: "y" once,
"a" for the command's prefix in this chat only (kept in memory: a new chat asks again), "n"
leaves it failed with a line that says how the user's own settings open the network."""

from __future__ import annotations

from prefixlock.coding.workspace import ApprovalRequest, Decision
from tests.coding.test_sandbox_redteam import _fetch, _listening
from tests.helpers.backend_drive import OptionsFactory, started
from tests.helpers.sandbox import needs_bwrap

pytestmark = needs_bwrap


async def test_the_user_answers_before_a_command_gets_the_network(
    project_options: OptionsFactory,
) -> None:
    asked: list[str] = []
    answers: list[Decision] = [False, "session", False]  # n, then a; n in the new chat

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request.summary)
        return answers.pop(0)

    with _listening() as port:
        command = _fetch(port)
        async with started(project_options()) as chat:
            backend = chat.backend
            backend.allow("run")  # the command itself needs no approval: only the network
            backend.approve = approve
            declined = await backend.workspace.run(command)
            assert asked == [f"run with the network: {command}"]
            assert "reached" not in declined.output and "network is off" in declined.output
            approved = await backend.workspace.run(command)  # "a": always for its prefix
            assert len(asked) == 2 and "reached" in approved.output
            again = await backend.workspace.run(command)
            assert len(asked) == 2 and "reached" in again.output  # not asked again
            assert any("always for" in note for note in chat.notes)
        async with started(project_options()) as chat:  # a new chat: nothing remembered
            chat.backend.allow("run")
            chat.backend.approve = approve
            await chat.backend.workspace.run(command)
            assert len(asked) == 3

"""Two runs of the same agent at the same depth, running in parallel, each fill their own entry
(the run id in their events tells them apart)."""

from __future__ import annotations

from prefixlock.events import Event, SubagentEvent, SubagentFinish, SubagentStart, UsageReport
from prefixlock.tui.widgets import SubagentEntry
from tests.helpers.tui_drive import AppFactory, ready


async def test_parallel_runs_of_one_agent_fill_their_own_entries(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        live = app.backend.delegator
        assert live is not None  # the agents package is installed
        delegator = live.inner
        agent = delegator.default_agent()
        events: list[Event] = []
        # A fan-out on the emulator; without warming first both runs start before either's
        # first request returns, so their events interleave after both starts.
        results = await delegator.fan_out(
            app.backend.session,
            ["find TODO in src", "find TODO in docs"],
            agent=agent,
            warm_first=False,
            on_event=events.append,
        )
        assert len(results) == 2 and all(r.ok for r in results)
        starts = [e for e in events if isinstance(e, SubagentStart)]
        assert [e.name for e in starts] == [agent, agent] and starts[0].depth == starts[1].depth
        run_ids = {e.run_id for e in starts}
        assert len(run_ids) == 2 and "" not in run_ids
        assert {r.run_id for r in results} == run_ids
        for ev in events:
            if isinstance(ev, SubagentEvent | SubagentFinish):
                assert ev.run_id in run_ids
            await app.on_session_event(ev)
        await pilot.pause()
        entries = list(app.query(SubagentEntry))
        assert len(entries) == 2 and {e.run_id for e in entries} == run_ids
        for entry in entries:
            own = [
                e
                for e in events
                if isinstance(e, SubagentEvent)
                and e.run_id == entry.run_id
                and isinstance(e.event, UsageReport)
            ]
            assert own and entry.requests == len(own)  # its own requests, not its sibling's
            assert entry.finished
        assert not app._subagents

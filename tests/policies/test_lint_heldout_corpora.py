"""real11 to real39, the held-out corpora drawn by one procedure (real11's PROCEDURE.md, which
the later ones take by reference; real28 samples by the file's role, real30 by the project's
manifest): each one's draw and labels
hold together, and (slow, where the project snapshots are on this machine) the linter's figures
on both halves.

The third-party files are not committed; each `score.py --extract` takes them from the project
snapshots (its default mirror folder), each sampled file with its project's source tree around
it (as a user lints it), so the scoring tests are skipped on a machine without them. Each test
half is scored once, by the lead, with that round's final rules, every unlabelled finding
judged in its findings.toml; its figures are then pinned as a floor for later rules beside the
development half's. No rule may be tuned on a test half before that run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.realcorpus import (
    Figures,
    assert_first_draw,
    assert_floors,
    assert_labels_hold,
    assert_list_ended,
    assert_manifest_draw,
    assert_none_listed_before,
    assert_real10s_draw,
    assert_role_draw,
    assert_steps_split,
    breakers_by_half,
    score_half,
)

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class HeldOut:
    """What one corpus's PROCEDURE.md amendment and RESULTS.md state."""

    name: str
    labels: int  # at least this many breakers labelled
    breakers: dict[tuple[str, str], int]  # per (half, kind)
    steps: tuple[int, ...]  # the volatile steps' sizes, in the order drawn
    dev: Figures
    test: Figures  # empty until the lead has scored the test half once
    untried: int = 0  # candidates never tried: drawing stopped on the fetch allowance
    # TypeScript projects where the volatile steps left them short of half (the amendment's
    # count); None: at least half the projects are TypeScript
    typescript: int | None = None
    # the sizes of the steps with all three strata drawn after the volatile ones (real18's
    # amendment 2: a TypeScript top-up over a fourth block)
    more: tuple[int, ...] = ()
    # the first draw's projects (TypeScript, Python) and the quota a language it was drawn with
    # (real19: 45 a language stated, Python short at 36 when its population ended)
    first: tuple[int, int] = (20, 20)
    quota: int = 20
    # the sampler: "real10" (real10's three strata; a volatile step draws stratum 3 alone) or
    # "role" (real28: the file found by its path and the files it imports; a volatile step
    # draws its projects whole, strata 1 and 2) or "manifest" (real30: the file calling the SDK
    # most in a project whose manifest declares one, and the files it imports; taken whole too)
    # or "cache" (real34: the file naming a prompt-cache marker most, and the files it imports)
    draw: str = "real10"
    # corpora built at the same time beside this one (real27 beside real28): not earlier, so
    # their names were not left out of this one's list
    beside: tuple[str, ...] = ()

    @property
    def step_strata(self) -> frozenset[str]:
        if self.draw in ("role", "manifest", "cache"):
            return frozenset({"1", "2"})
        return frozenset({"3"})

    @property
    def folder(self) -> Path:
        return CORPUS / self.name

    @property
    def earlier(self) -> list[Path]:
        """Every corpus before this one: `real`, then real2 up to the one before, less those
        built beside it."""
        n = int(self.name.removeprefix("real"))
        names = ["real"] + [f"real{i}" for i in range(2, n)]
        return [CORPUS / name for name in names if name not in self.beside]


CORPORA = (
    HeldOut(
        "real11",
        labels=20,
        breakers={("test", "volatile"): 4, ("test", "structural"): 17}
        | {("dev", "volatile"): 2, ("dev", "structural"): 4},
        steps=(8, 8, 6),  # all TypeScript; the third gave 6: the list ended
        # The branch's rules when the labels were done (policies/ at bbfc779).
        dev={
            # 3/4 since branch h30g: a record's `instructions` for a person are no prompt, and
            # recent turns handed to a progress tracker are no window. 3/3 since branch h30ts1:
            # a calibration's `systemPromptAttention` verdict is no prompt text.
            "ts": {"volatile": (2, 2), "structural": (0, 2), "precision": (3, 3)},
            "py": {"volatile": (0, 0), "structural": (1, 2), "precision": (3, 3)},
        },
        # Scored once by the lead; raised by the data-flow pass and bundle rule after real11
        # became development data: TS precision 5/12 -> 5/7, Python structural 2/12 -> 7/12
        # and precision 2/3 -> 11/12.
        # Raised by branch h30g (a system prompt template's date slots, filled in another
        # module; a window written back to the kept history): Python volatile 0/3 -> 2/3,
        # structural 7/12 -> 8/12, precision 11/12 -> 14/15.
        # Raised by the request-reach decision (branch h30r2: a helper's one-shot system and
        # user texts; a function named for a prompt's blocks): TS precision 5/7 -> 5/6,
        # Python volatile 2/3 -> 3/3, precision 14/15 -> 15/16.
        # Raised by branch h30ts1 (a `...Context` made only of constants and imports): TS
        # precision 5/6 -> 5/5.
        test={
            "ts": {"volatile": (1, 1), "structural": (2, 5), "precision": (5, 5)},
            # Python structural 8/12 -> 10/12, precision 15/16 -> 17/18 by branch h30py4 (a
            # tool selector middleware; a conversation read back by a loader given a cap).
            "py": {"volatile": (3, 3), "structural": (10, 12), "precision": (17, 18)},
        },
    ),
    HeldOut(
        "real12",
        labels=20,
        breakers={("test", "volatile"): 2, ("test", "structural"): 9}
        | {("dev", "volatile"): 5, ("dev", "structural"): 5},
        steps=(8, 8, 8, 8, 7),
        # policies/ at b6bf45f; Python 1/4, not the labelling commit's 1/3: the taint.py crash
        # that stopped code-agents' chat_tui.py being read is fixed, its two findings false.
        dev={
            # 3/4 and 8/9 since branch h30g: a prompt and tools picked by request options, a
            # helper keeping the last of the transcript.
            "ts": {"volatile": (2, 2), "structural": (3, 4), "precision": (8, 9)},
            # 1/2 since branch h30g: another method's parameter of the same name, kept on an
            # attribute, is no longer read as this request (chat_tui.py's two false findings).
            # 2/3 and 2/3 since branch h30r2: a function in an agent's `instructions=[...]`.
            # 3/3 and 3/3 since branch h30py4: a class's reading constructor
            # (`DirectoryStructure.from_dir`), a Python 3.12 f-string file read under 3.11.
            "py": {"volatile": (3, 3), "structural": (0, 1), "precision": (3, 3)},
        },
        # Scored once by the lead (74b3e14); raised by branch h30g (a clock field of a handed-in
        # context read by its name, system messages spread at a converted history's head): TS
        # volatile 1/2 -> 2/2, structural 1/4 -> 3/4, precision 2/7 -> 5/9.
        # Raised by the request-reach decision (branch h30r2: a one-shot request's date):
        # TS precision 5/9 -> 5/8. Raised by branch h30ts1 (a block rendered once before the
        # loop of a run that starts its own conversation): TS precision 5/8 -> 5/7. Python
        # precision 2/3 -> 2/2 by branch h30py1 (a conversation's id handed to a memory
        # store's eviction is no history). Python structural 2/5 -> 3/5 and precision 2/2 ->
        # 3/3 by branch h30py2 (a second system message made per request ahead of the history).
        test={
            "ts": {"volatile": (2, 2), "structural": (3, 4), "precision": (5, 7)},
            "py": {"volatile": (0, 0), "structural": (3, 5), "precision": (3, 3)},
        },
    ),
    HeldOut(
        "real13",
        labels=24,
        breakers={("test", "volatile"): 3, ("test", "structural"): 12}
        | {("dev", "volatile"): 3, ("dev", "structural"): 6},
        steps=(8, 5),  # the second gave 5: the list ended
        # Raised to the rules tuned on it (windows handed on by name, middle-out and
        # head-and-tail cuts, tools chosen by the picked model, a live list in the system
        # prompt; RESULTS.md).
        dev={
            # 5/6 since branch h30g: a store that asks no model reports no retention cap.
            "ts": {"volatile": (0, 2), "structural": (3, 4), "precision": (5, 6)},
            "py": {"volatile": (1, 1), "structural": (2, 2), "precision": (3, 3)},
        },
        # Scored once by the lead (main 706de15); development data since, raised by branch h30g
        # (one-off requests, windows at the cutting line, store caps, compaction requests,
        # request fields in prompt parts, live state): TS 1/2, 6/9, 11/16 -> 2/2, 9/9, 14/14;
        # Python 0/1, 1/3, 2/4 -> 1/1, 3/3, 5/6.
        test={
            # TS precision 14/14 -> 15/15 by branch h30ts3 (an SQL window's LIMIT line);
            # 15/15 -> 16/16 by branch h30ts5 (a tool list switched by a flag worked out from
            # the request's messages, at a labelled line).
            "ts": {"volatile": (2, 2), "structural": (9, 9), "precision": (16, 16)},
            "py": {"volatile": (1, 1), "structural": (3, 3), "precision": (5, 6)},
        },
    ),
    HeldOut(
        "real14",
        labels=23,
        breakers={("test", "volatile"): 5, ("test", "structural"): 10}
        | {("dev", "volatile"): 4, ("dev", "structural"): 4},
        # three from the search reserve (the third: it ended), four from the main list's
        # untried candidates 1-160 (the fourth: they ended), one over 161-173
        steps=(8, 8, 3, 8, 8, 8, 3, 5),
        # First run (policies/ as on main aa5c297, after every label was committed): TS 2/2,
        # 0/2, 2/8; Python 1/2, 1/2, 4/8. Raised by the rules tuned on it (branch h30d2:
        # Responses chains' first instructions, a procedure's current step, server-side cuts,
        # the working directory in Python, modes fixed per instance).
        dev={
            "ts": {"volatile": (2, 2), "structural": (2, 2), "precision": (4, 4)},
            # Python precision 6/8 -> 6/7 by branch h30py1 (a clock read at import into a
            # prompt constant).
            "py": {"volatile": (2, 2), "structural": (2, 2), "precision": (6, 7)},
        },
        # Scored once by the lead (main fe89576, the round's final rules; the rules before the
        # round, main aa5c297, give the same findings): TS 3/3, 1/3, 4/10; Python 0/2, 2/7,
        # 4/8. Development data since; raised by the request-reach decision (branch h30r2),
        # then by branch h30ts1 (a request body's task type is a setting): TS precision 6/8
        # -> 6/7.
        test={
            "ts": {"volatile": (3, 3), "structural": (3, 3), "precision": (6, 7)},
            "py": {"volatile": (2, 2), "structural": (6, 7), "precision": (10, 10)},
        },
        untried=27,  # main-list candidates 174-200: the fetch allowance ended first
    ),
    HeldOut(
        "real15",
        labels=45,
        breakers={("test", "volatile"): 7, ("test", "structural"): 27}
        | {("dev", "volatile"): 1, ("dev", "structural"): 10},
        # four from the search reserve (the fourth: it ended), eight from the main list's
        # untried candidates (the eighth: every candidate tried), then five from the second
        # reserve of amendment 2 (the fifth: it ended)
        steps=(8, 8, 8, 1, 8, 8, 8, 8, 8, 8, 8, 1, 8, 8, 8, 8, 6),
        # First run (policies/ as on main dab6693, after every label was committed): TS 0/0,
        # 4/5, 6/11; Python 0/1, 0/2, 0/3. With amendment 2's second reserve (19 more
        # development files, same rules, first run after their labels were committed), then
        # branch h30s (a new user message pushed ahead of the history found; a route handler's
        # realtime session start no longer reported): TS structural 7/8 -> 8/8, precision
        # 13/19 -> 14/18. Branch h30ts1 (a record's trip dates, a body's language, a list's
        # own messages put back after a cut are no history after a state message, a translated
        # UI string's slots): TS precision 14/18 -> 14/14.
        dev={
            "ts": {"volatile": (0, 0), "structural": (8, 8), "precision": (14, 14)},
            # Python 0/1, 0/2, 0/6 -> 1/1, 1/2, 2/4 by branch h30py1 (prompt constants dated at
            # import, a side classifier's excerpt, a date heading a prompt text that carries
            # the conversation, a tool list narrowed inside a request loop, a one-shot request
            # object).
            "py": {"volatile": (1, 1), "structural": (1, 2), "precision": (2, 4)},
        },
        # Scored once by the lead (main e30c133 before this round's rules, 977916f after
        # the request-reach decision of branch h30r2: the same findings line for line), every
        # unlabelled finding judged by reading (27: 5 true, 22 false). Since made development
        # data: record ids, a compaction's kept first message, a realtime session's
        # instructions and a builder whose only caller is a session start no longer reported
        # (branch h30s): TS precision 8/27 -> 8/14. Branch h30ts1 (tools and a prompt picked by
        # a select call per request; the working directory in a conversation the process
        # starts): TS structural 3/12 -> 4/12, precision 8/14 -> 10/14. Branch h30ts4 (a
        # LangChain.js step's own system prompt over the messages, text spliced in a depth back
        # from the history's end, a refilled map's text sent as a system message ahead of the
        # history): TS structural 4/12 -> 7/12, precision 10/14 -> 15/19.
        test={
            "ts": {"volatile": (3, 4), "structural": (7, 12), "precision": (15, 19)},
            # Python 1/3, 8/15, 13/16 -> 2/3, 11/15, 20/20 by branch h30py1 (see
            # policies/README.md).
            "py": {"volatile": (2, 3), "structural": (11, 15), "precision": (20, 20)},
        },
    ),
    HeldOut(
        "real16",
        labels=62,
        breakers={("test", "volatile"): 8, ("test", "structural"): 15}
        | {("dev", "volatile"): 14, ("dev", "structural"): 25},
        # four from the search reserve (the fourth: it ended), four from the main list's
        # untried candidates (the fourth: every candidate tried), three from amendment 1's
        # second reserve (the third: it ended), five from amendment 3's third reserve and three
        # from amendment 5's fourth (the last of each: its block ended)
        steps=(8, 8, 8, 6, 8, 8, 8, 4, 8, 8, 5, 8, 8, 8, 8, 1, 8, 8, 7),
        # First run (policies/ as on main 0f0e2dd, after every label was committed), its 18
        # unlabelled findings judged in findings.toml (5 true, 13 false); amendments 3 to 5's
        # 56 new files first run with policies/ as on main 557e025 after their labels were
        # committed, 4 new unlabelled findings judged (3 true, 1 false): Python volatile
        # 3/5 -> 5/9, structural 5/12 -> 6/13, precision 11/22 -> 19/31 (TypeScript unchanged).
        # Python 5/9, 6/13, 19/30 -> 7/9, 8/13, 24/29 by branch h30py2 (policies/README.md).
        # TS structural 2/12 -> 11/12, precision 19/22 -> 27/28 by branch h30ts2 (tool lists
        # changed within a turn, messages loaded newest first, a conversation sent under
        # another system prompt, a shift loop over a measured total, a memory store's listing
        # as state; JSX renders and memoised reads dropped).
        dev={
            "ts": {"volatile": (5, 5), "structural": (11, 12), "precision": (27, 28)},
            # Python structural 8/13 -> 10/13, precision 24/29 -> 26/31 by branch h30py4 (a
            # channel's history loaded to a module constant's cap; the first message's text
            # rewritten in place when a tool is enabled).
            "py": {"volatile": (7, 9), "structural": (10, 13), "precision": (26, 31)},
        },
        # Scored once by the lead with policies/ as on main 14d792a (this round's rules, two
        # branches tuned on the development half), every unlabelled finding judged by reading
        # (15: 4 true, 11 false). With main 0f0e2dd's rules (before the round), the same
        # findings but the two side requests (TS precision 7/10). Development data since:
        # TS 1/4, 4/9, 9/12 -> 3/4, 6/9, 13/16 by branch h30ts3 (a window of the history with
        # the new turn appended, a channel's latest messages, a time the prompt labels current,
        # an editor agent's workspace context). TS structural 6/9 -> 8/9 by branch h30ts4 (the
        # two side requests' findings placed at their own system prompt's text).
        test={
            "ts": {"volatile": (3, 4), "structural": (8, 9), "precision": (13, 16)},
            # Development data since: Python 3/4, 2/6, 7/15 -> 4/4, 4/6, 10/17 by branch h30py3
            # (a store's newest messages read to a cap, a chat template slot bound to a clock
            # callable, a prompt built only in a session construction; policies/README.md).
            # Structural 4/6 -> 6/6, precision 10/17 -> 14/18 by branch h30py4 (a builder whose
            # callers all run once, here at a module's load; Python 3.12 f-string files read
            # under 3.11; an earlier message replaced by its position after a pop).
            "py": {"volatile": (4, 4), "structural": (6, 6), "precision": (14, 18)},
        },
    ),
    HeldOut(
        "real17",
        labels=32,
        breakers={("test", "volatile"): 8, ("test", "structural"): 17}
        | {("dev", "volatile"): 5, ("dev", "structural"): 2},
        # two from the search reserve (the second: it ended), three from the main list's
        # untried candidates (the third: every candidate tried), four from amendment 1's second
        # reserve and three from its second main list (the last of each: its block ended), one
        # from amendment 2's third reserve (it ended)
        steps=(8, 6, 8, 8, 7, 8, 8, 8, 2, 8, 8, 7, 8),
        # First run (policies/ as on main 82fdcdc, after every label of both halves was
        # committed), its 23 unlabelled findings judged in findings.toml (3 true, 20 false);
        # the round's final rules (main b8187fc) leave one false Python finding out. TS
        # precision 11/24 -> 11/23 by branch h30ts5 (a path named for the prompt is no text),
        # 11/23 -> 11/21 by branch h30ts6 (a helper named for asking whose body asks nothing;
        # a system message pushed onto a stored conversation follows its history), 11/21 ->
        # 11/14 by branch h30ts8 (a task prompt's builder, a script's one run, a handler that
        # answers a client, a cache read through a local). Scored with the project around the
        # file since branch h30ctx: 11/14 -> 17/20 (a false finding gone once its callers are
        # seen; a clock read in a sibling module found at six more lines of the labelled
        # breaker, one sorted prompt-folder listing judged false). 17/20 -> 7/10 by branch
        # h30dd18 (one finding per value and prompt): the ten true findings of scheron/Daily's
        # one date context reaching one system prompt are one, and browser-copilot's six are
        # three; the false findings stay 3. Structural 0/1 -> 1/1, precision 7/10 -> 8/11 by
        # branch h30state20 (what a route hands the system-prompt builder, found there).
        dev={
            "ts": {"volatile": (4, 5), "structural": (1, 1), "precision": (8, 11)},
            # Python precision 1/7 -> 1/3 by branch h30py6 (a display list that never leaves
            # its module; a script's builder called only at its own load); 0/1, 1/3 -> 1/1,
            # 2/2 by branch h30py8 (an in-place rewriter reported at its call in the request
            # loop; a private helper's window no caller sends).
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (2, 2)},
        },
        # Scored once, by the lead, with the round's final rules (main b8187fc); its 13
        # unlabelled findings judged in findings.toml (3 true, 10 false). Development data
        # since: TS 4/4, 1/7, 12/17 -> 4/4, 7/7, 18/18 by branch h30ts5 (a store's context
        # builder, recent messages, the thread's length and newest speaker and fetched web
        # content in a system prompt, tools switched by a flag from the request's messages;
        # a clock's timezone and week, settings read by an argless call, a logged row); Python
        # 3/4, 5/10, 10/15 -> 4/4, 10/10, 16/18 by branch h30py5. With the project around the
        # file (branch h30ctx): TS precision 18/18 -> 19/19 (the labelled clock read followed
        # into utils/date.ts, one more of its lines).
        test={
            "ts": {"volatile": (4, 4), "structural": (7, 7), "precision": (19, 19)},
            "py": {"volatile": (4, 4), "structural": (10, 10), "precision": (16, 18)},
        },
    ),
    HeldOut(
        "real18",
        labels=28,
        breakers={("test", "volatile"): 5, ("test", "structural"): 6}
        | {("dev", "volatile"): 4, ("dev", "structural"): 13},
        # two from the first reserve (the second: it ended), two from the second reserve (the
        # second: it ended), two from the main list's untried candidates (a third step found
        # none: every candidate tried)
        steps=(8, 1, 8, 2, 8, 8),
        # amendment 2 (the lead's override, for the shortfalls): TypeScript-only steps of
        # three strata over a fourth block, until it ended; the corpus is now 47 of 88
        # projects TypeScript, and the test half's 10 volatile and 12 structural wanted are
        # still not met (5 and 6: amendment 3)
        more=(6, 6, 1),
        # Second run (amendment 3: policies/ as on main 9a07f79, after every file amendment 2
        # drew was labelled); the first run's 14 judged findings (1 true, 13 false) and the
        # second run's 9 new unlabelled ones (all false) are in findings.toml.
        # The round's final rules (main aa7f1c1d, the sixth passes) raise the development
        # half's structural recall (TS 2/9 -> 3/9, Python 0/4 -> 1/4; Python precision 2/13,
        # its one new finding judged false by the lead).
        # TS 1/2, 3/9, 7/19 -> 2/2, 6/9, 12/17 by branch h30ts7 (a typed message list cut
        # from the end, a capped store read placed at its cap, a tool's context and a
        # document app's selection in a system prompt; a listing's own entries, a translated
        # UI string filled through a local), one new finding judged in findings.toml; 6/9,
        # 12/17 -> 7/9, 13/14 by branch h30ts8 (a list a loop sends by position and grows; a
        # clock slot no code of its module fills, a system prompt built once before the loop).
        # With the project around the file (branch h30ctx): TS precision 13/14 -> 13/16, two
        # false findings where a returned object built in another file carries one field's
        # clock (an MCP diagnostic's checkedAt) and a sorted folder listing into fields the
        # system prompt reads.
        dev={
            "ts": {"volatile": (2, 2), "structural": (7, 9), "precision": (13, 16)},
            # Python 1/2, 1/4, 2/13 -> 1/2, 4/4, 5/5 by branch h30py7 (one-shot requests, a
            # system message sent only first, an observation popped and replaced, the last
            # exchanges written into a system prompt). Volatile 1/2 -> 2/2, precision 5/5 -> 8/8
            # by branch h30proc19 (a LiveKit worker's clock read at import: a server's).
            "py": {"volatile": (2, 2), "structural": (4, 4), "precision": (8, 8)},
        },
        # Scored once, by the lead, with the round's final rules (main aa7f1c1d); its 16
        # unlabelled findings judged in findings.toml (2 true, 14 false). The rules before the
        # round (main dbec5b63) give the same figures. Raised after that one scoring (these
        # are development floors now): TS 3/5, 1/2, 13/23 -> 5/5, 2/2, 16/19 by branch h30ts7
        # (earlier messages' timestamps rewritten per request, the new message's images spread
        # into every earlier one; one-shot handlers, an oldest-first capped read, a logged
        # figure, similar files pushed after the history, a user's records read by their
        # identity); 16/19 -> 16/16 by branch h30ts8 (values known by their names only, in a
        # builder of a tool's text). With the project around the file (branch h30ctx): TS
        # precision 16/16 -> 16/17 (a project tree built in utils/tree.ts, now followed, in a
        # text only a tool returns; judged false when the test half was scored).
        test={
            "ts": {"volatile": (5, 5), "structural": (2, 2), "precision": (16, 17)},
            # Raised after its one scoring (development data now): Python 0/0, 1/4, 1/5 ->
            # 0/0, 4/4, 4/6 by branch h30py7 (a remote load with a limit, memories in the
            # system prompt, a final answer without the tools; the newest message alone).
            "py": {"volatile": (0, 0), "structural": (4, 4), "precision": (4, 6)},
        },
    ),
    HeldOut(
        "real19",
        labels=29,
        breakers={("test", "volatile"): 1, ("test", "structural"): 9}
        | {("dev", "volatile"): 7, ("dev", "structural"): 12},
        # the first draw took 45 TypeScript and 36 Python projects (quotas of 45 a language
        # stated; the Python population ended first); four volatile steps over the untried
        # `language full` TypeScript names (the fourth: every tried name drawn or skipped, the
        # fetch allowance spent), none of whose projects gave a breaker; the test half's 10
        # volatile and 12 structural wanted are not met (0 and 9), and no population was added
        first=(45, 36),
        quota=45,
        # then amendment 2 (the lead's volatile top-up, for the test half's 0 volatile): two
        # volatile steps over a fourth block of code-search names (the second: it ended), one
        # volatile breaker in each half
        steps=(8, 8, 8, 2, 8, 1),
        untried=23,  # the reserve's last names: the 440 fetches allowed ended first
        # First run (policies/ as on main 387cd12a, after every label of both halves was
        # committed), its 13 unlabelled findings judged in findings.toml (7 true, 6 false).
        # Amendment 2's five development-half files (same rules, after they were labelled):
        # Python 2/4, 3/6, 6/9 -> 3/5, 3/6, 7/11 (its one new unlabelled finding judged false).
        # TypeScript 1/2, 1/6, 9/12 -> 2/2, 4/6, 14/15 by branch h30ts9 (windows followed to
        # where they are sent, a stored log's cap, a returned record's fields, a loop's
        # conversation sent by position, an interaction count; one new finding judged true).
        # With the project around the file (branch h30ctx): TS precision 14/15 -> 14/19, four
        # false findings where a run state built in another file carries its startedAt clock
        # into the transcript a one-shot request reads.
        # Seventeenth pass, TypeScript structural (branch h30st17ts, the parts of each list
        # sent, in order): summaries of folded turns ahead of the recent ones, 4/6, 14/19 ->
        # 5/6, 15/20.
        dev={
            "ts": {"volatile": (2, 2), "structural": (5, 6), "precision": (15, 20)},
            # Python 3/5, 3/6, 7/11 -> 5/5, 6/6, 12/14 by branch h30py9 (a window rendered
            # for the request, a chat template's clock slot and the moment handed with the
            # history, a search of the newest messages, a message added to the conversation);
            # 12/14 -> 12/13 by branch h30py10 (a plan step's one-shot request grown by
            # written-out messages). With the project around the file (branch h30ctx): 12/13
            # -> 12/14, rl_cli.py's imported modules taking its analysis just past the 10 s CPU
            # budget (a PL906 notice; on a faster machine it finishes with no finding).
            # eighteenth pass, Python structural (branch h30st18py): a budget walk of the last two
            # actions into system messages, part of a labelled breaker, 12/14 -> 13/15
            "py": {"volatile": (5, 5), "structural": (6, 6), "precision": (13, 15)},
        },
        # Scored once, by the lead, with the round's final rules (main 49853de7: the eighth
        # and ninth passes), its 26 unlabelled findings judged in findings.toml (1 true).
        test={
            # Raised after its one scoring (development floors now): TS 0/0, 3/5, 5/25 ->
            # 0/0, 5/5, 7/12 by branch h30ts10 (requests judged by what they are handed: a
            # system prompt and one user text, recent turns quoted in a one-shot request; a
            # title request over a chat its own request sends with no system prompt; a
            # store's newest rows, sorted descending, replayed after the system prompt).
            "ts": {"volatile": (0, 0), "structural": (5, 5), "precision": (7, 12)},
            # Python 0/1, 1/4, 1/6 -> 0/1, 3/4, 4/7 by branch h30py10 (a bounded queue of
            # messages a method hands back rendered whole; state handed in per request and
            # dumped into the system prompt ahead of the history, no longer read as key order).
            "py": {"volatile": (0, 1), "structural": (3, 4), "precision": (4, 7)},
        },
    ),
    HeldOut(
        "real20",
        labels=46,
        breakers={("test", "volatile"): 4, ("test", "structural"): 18}
        | {("dev", "volatile"): 8, ("dev", "structural"): 16},
        # the first draw took 46 TypeScript and 22 Python projects (quotas of 50 a language
        # stated; both lists of six names a fragment ended first, so every name was tried);
        # two volatile steps over the code-search reserve (the second: it ended); a volatile
        # step over the main list found no untried name. The test half's 10 volatile breakers
        # wanted are not met (3; 14 structural of 12 wanted), and no population was added
        first=(46, 22),
        quota=50,
        # then amendment 2 (the lead's top-up: names 7 to 12 of the same forty listings, blocks
        # 4 and 5): seven volatile steps over them (the seventh: the tried names ended); the
        # 175 fetches allowed ended first, so block 5's last 31 names were never tried. The
        # test half holds 4 volatile (10 wanted) and 18 structural breakers
        steps=(8, 1, 8, 8, 8, 8, 8, 8, 4),
        untried=31,
        # First run (policies/ as on main c5338248, after every label of both halves was
        # committed), its 13 unlabelled findings judged in findings.toml (5 true, 8 false).
        # Amendment 2's 28 development-half files (same rules, after they were labelled):
        # TypeScript 2/3, 2/7, 11/18 -> 3/4, 2/10, 15/37; Python 2/4, 2/5, 5/6 -> 2/4, 2/6,
        # 5/8 (its 19 new unlabelled findings judged: 2 true, 17 false). Scored again with the
        # project around each file (the scorer's way since this round), before any rule saw
        # real20: precision TypeScript 15/37 -> 15/43, Python 5/8 -> 5/9 (findings followed
        # into other modules, all false; 3 new unlabelled judged), recall the same.
        # Python raised by branch h30py12 (a docstring's word for a system prompt, a SQL
        # read's parameters, a list of records, a summary or a retrieval handed to a function
        # out of view): volatile 2/4 -> 4/4, structural 2/6 -> 4/6, precision 5/9 -> 12/14.
        # TypeScript 3/4, 2/10, 15/43 -> 3/4, 4/10, 21/23 by branch h30ts12 (a date built from
        # given parts, a file's name, a prepared statement's bound values, an image prompt, a
        # page of rendered prompts, a returned fresh pair, recent turns quoted for a summary;
        # a figure the reply changes written ahead of the history; a user's name fixed for
        # the chat). TypeScript structural 4/10 -> 7/10, precision 21/23 -> 24/26 by branch
        # h30st15 (a queue kept to a depth, a size-budget deletion, a reply chain collected to
        # a count; policies/README.md, the fifteenth structural pass); Python structural 4/6 ->
        # 5/6, precision 12/14 -> 13/15 (retrieved profiles written into the first turn);
        # Python precision then 13/14 by branch h30py15 (a `now_str` filler only tests call
        # reaches no request).
        dev={
            "ts": {"volatile": (3, 4), "structural": (7, 10), "precision": (24, 26)},
            "py": {"volatile": (4, 4), "structural": (5, 6), "precision": (13, 14)},
        },
        # Scored once, by the lead, with the round's final rules (main 247d6bea: the eleventh
        # and twelfth passes), the project around each file; its 4 unlabelled findings judged
        # (1 true, 3 false). The rules before the round give the same findings. Raised by
        # branch h30st15 (development data since that score; its rules written on the
        # half's listed misses): TypeScript structural 6/12 -> 12/12, precision 9/12 ->
        # 15/18; Python structural 2/6 -> 6/6, precision 6/6 -> 10/10. TypeScript precision
        # 15/18 -> 15/16 by branch h30ts18 (a LangChain pair read as one-shot).
        test={
            "ts": {"volatile": (1, 1), "structural": (12, 12), "precision": (15, 16)},
            # Eighteenth pass, Python structural (branch h30st18py): the memory files in the
            # system prompt rebuilt per message, judged true, 10/10 -> 11/11.
            "py": {"volatile": (2, 3), "structural": (6, 6), "precision": (11, 11)},
        },
    ),
    HeldOut(
        "real21",
        labels=24,
        breakers={("test", "volatile"): 6, ("test", "structural"): 8}
        | {("dev", "volatile"): 5, ("dev", "structural"): 8},
        # two populations read side by side by the first draw (thirty find_repos fragments, four
        # names each; sixteen code searches), quotas of 50 a language stated: 12 TypeScript and
        # 26 Python found, so the Python quota was lowered to 12 by the stated rule. Volatile
        # steps over population B's next names (block 5: 8, then 3 when it ended), then over the
        # first draw's language-full Python names (8, then 4 when they ended); every listed name
        # was tried. The test half holds 6 volatile (10 wanted) and 8 structural (12 wanted)
        first=(12, 12),
        quota=50,
        steps=(8, 3, 8, 4),
        # the volatile steps take either language: 19 TypeScript projects of 47
        typescript=19,
        # First run (policies/ as on main 3c1bbcf0, the project around each file, after every
        # label of both halves was committed), its 4 unlabelled findings judged in findings.toml
        # (2 true, 2 false). Raised by the fifteenth volatile pass (a chat template's
        # `strftime_now`, then a home device's state by its key): py volatile 1/4 -> 3/4,
        # precision 8/9 -> 10/11. Eighteenth pass, Python structural (branch h30st18py): a
        # memory read this turn written into a system prompt builder's text, 3/4, 10/11 ->
        # 4/4, 11/12. Twentieth pass, windows (branch h30win20): a CommonJS helper that drops
        # the oldest messages while over a token budget, its result sent: TS 0/4 -> 1/4.
        dev={
            "ts": {"volatile": (1, 1), "structural": (1, 4), "precision": (2, 2)},
            "py": {"volatile": (3, 4), "structural": (4, 4), "precision": (11, 12)},
        },
        # Scored once, by the lead, with the round's final rules (main b1c93553: the fifteenth
        # passes, reach gates, structural shapes, volatile values), the project around each
        # file; its 10 unlabelled findings judged in findings.toml (2 true, 8 false). The rules
        # from before the round (main 3c1bbcf0) give TypeScript 2/4, 0/5, 2/3 and the same
        # Python line. Development data since that score: Python precision 4/11 -> 4/8 by
        # branch h30py16 (a loop that replays the stored conversation one message a row is
        # the history, not a message ahead of it); Python structural 1/3 -> 2/3 by branch
        # h30st17py (a newest-first store read reported at its cap's line); TypeScript
        # volatile 2/4 -> 3/4, precision 3/4 -> 4/5 by branch h30vol17 (a clock read in a
        # helper that another file writes into the system prompt, reported in the helper).
        # Python structural 2/3 -> 3/3, precision 4/8 -> 5/9 by branch h30st18py (a LangGraph
        # state's memories written into the system prompt ahead of the history).
        test={
            "ts": {"volatile": (3, 4), "structural": (1, 5), "precision": (4, 5)},
            "py": {"volatile": (1, 2), "structural": (3, 3), "precision": (5, 9)},
        },
    ),
    HeldOut(
        "real22",
        labels=38,
        breakers={("test", "volatile"): 6, ("test", "structural"): 11}
        | {("dev", "volatile"): 2, ("dev", "structural"): 19},
        # one population of forty code searches (24 phrased for TypeScript, 16 for Python,
        # merged round-robin per block), quotas of 30 a language stated: TypeScript filled
        # (30), Python ended at 23. Volatile steps over the reserve of ten more searches
        # (block 3: 8, then 4 when it ended), then over the first draw's language-full
        # TypeScript names (4, when they ended); the structural step found no untried name.
        # The test half holds 6 volatile (10 wanted) and 11 structural (12 wanted)
        first=(30, 23),
        quota=30,
        steps=(8, 4, 4),
        # First run (policies/ as on main 63e5d70b, the project around each file, after every
        # label of both halves was committed), its 15 unlabelled findings judged in
        # findings.toml (4 true, 11 false). Python structural 3/8 -> 4/8, precision 5/5 ->
        # 6/6 by branch h30st17py (a window short of the newest message, `[-n:-1]`, mapped
        # message by message into the list returned).
        # Seventeenth pass, TypeScript structural (branch h30st17ts, the parts of each list
        # sent, in order, a check it was not tuned on): a memory block ahead of the recent
        # messages, 7/11, 13/24 -> 8/11, 14/25. Python structural 4/8 -> 6/8, precision 6/6 ->
        # 8/8 by branch h30st18py (a window flattened into a prompt's text, a budget walk of
        # run nodes into messages).
        # Twentieth pass, windows (branch h30win20): a helper of another module that keeps the
        # newest messages within a character budget, its result sent: TS 8/11 -> 9/11.
        dev={
            "ts": {"volatile": (0, 0), "structural": (9, 11), "precision": (15, 21)},
            "py": {"volatile": (1, 2), "structural": (6, 8), "precision": (8, 8)},
        },
        # Scored once, by the lead, with the round's final rules (main b1c93553), the project
        # around each file; its 5 unlabelled findings judged in findings.toml (all false). The
        # rules from before the round (main 3c1bbcf0) give the same figures and one more
        # unlabelled finding (a listing of stored system prompts, `os.listdir`, which the
        # fifteenth Python pass's reach gate drops). Development data since that score:
        # Seventeenth pass, TypeScript structural (branch h30st17ts, a check it was not tuned
        # on): pinned facts, a rolling summary and retrieved passages pushed ahead of the
        # replayed rows, a per-chat history replaced by its newest twenty: 4/9, 9/10 -> 7/9,
        # 13/14. Python precision 4/8 -> 4/7 by branch h30pr17py (a date read at import in a
        # script whose module-level code sends its requests: one run, one conversation).
        test={
            "ts": {"volatile": (3, 4), "structural": (7, 9), "precision": (13, 14)},
            "py": {"volatile": (2, 2), "structural": (2, 2), "precision": (4, 7)},
        },
    ),
    HeldOut(
        "real23",
        labels=27,
        breakers={("test", "volatile"): 4, ("test", "structural"): 9}
        | {("dev", "volatile"): 5, ("dev", "structural"): 9},
        # one population of fifty new code searches (30 phrased for TypeScript, 20 for Python,
        # 35 of them for live state; merged round-robin per block), quotas of 30 a language
        # stated: TypeScript ended at 25, so Python was lowered to 25 by the stated rule.
        # Volatile steps over the reserve of fifteen live-state searches (block 3: 8, then 4
        # when it ended, two Python removed by the language rule: 2 kept); the language-full
        # names are all Python and the structural step has no untried name. Test half: 4
        # volatile (10 wanted), 9 structural (12 wanted); dev half: 5 volatile
        first=(25, 25),
        quota=30,
        steps=(8, 2),
        # First run (policies/ as on main 5eafbab9, the project around each file, after every
        # label of both halves was committed), its 36 unlabelled findings judged in
        # findings.toml (all false). Development data since: Python precision 5/8 -> 5/7 by
        # branch h30pr18py (a dict's dump keeps its insertion order: PL202 only for a set's).
        dev={
            "ts": {"volatile": (3, 4), "structural": (4, 5), "precision": (12, 45)},
            "py": {"volatile": (1, 1), "structural": (3, 4), "precision": (5, 7)},
        },
        # Scored once, by the lead, with the round's final rules (main 4af12be2: the seventeenth
        # passes), the project around each file; its 5 unlabelled findings judged in
        # findings.toml (all false). The rules from before the round (main 5eafbab9) give the
        # same findings. Python structural 2/6 -> 3/6, precision 2/5 -> 3/6 by branch
        # h30st18py (a stored list's last five items appended to the messages; a check it was
        # not tuned on).
        test={
            "ts": {"volatile": (0, 1), "structural": (2, 3), "precision": (4, 6)},
            "py": {"volatile": (0, 3), "structural": (3, 6), "precision": (3, 6)},
        },
    ),
    HeldOut(
        "real24",
        labels=32,
        breakers={("test", "volatile"): 7, ("test", "structural"): 11}
        | {("dev", "volatile"): 6, ("dev", "structural"): 8},
        # one population of sixty new code searches phrased as the text sent each turn (36 for
        # TypeScript, 24 for Python, 41 of them for live state; merged round-robin per block),
        # quotas of 20 a language stated and filled. Volatile steps over the reserve of twenty
        # live-state searches (block 3: 8, then 4 when it ended), then over the names of blocks
        # 1 and 2 the first draw did not take (8, then 4 when they ended); the structural step
        # found no untried name. Test half: 7 volatile (10 wanted), 11 structural (12 wanted)
        steps=(8, 4, 8, 4),
        # First run (policies/ as on main 5eafbab9, the project around each file, after every
        # label of both halves was committed), its 5 unlabelled findings judged in
        # findings.toml (all false). TS precision 5/8 -> 4/7 by branch h30dd18 (one finding
        # per value and prompt: two true findings of one value are one; the false stay 3).
        # Development data since: Python precision 1/3 -> 1/1 by branch h30pr18py (two dumps of
        # a dict or a text handed in: no PL202); Python structural 0/5 -> 2/5, precision -> 3/3
        # by branch h30st18py (retrieved passages and a user's stored memory written into the
        # system prompt; a check it was not tuned on).
        dev={
            "ts": {"volatile": (2, 3), "structural": (1, 3), "precision": (4, 7)},
            "py": {"volatile": (1, 3), "structural": (2, 5), "precision": (3, 3)},
        },
        # Scored once, by the lead, with the round's final rules (main 4af12be2: the seventeenth
        # passes), the project around each file; its 19 unlabelled findings judged in
        # findings.toml (3 true, 16 false). hybridclaw's session-maintenance.ts, stopped by its
        # CPU budget in a later run (an importer's check charged to it), is checked since the
        # engine runs importers outside a helper's budget (f47cf79f): the figures of the one
        # scoring run. The rules from before the round (main 5eafbab9) give two true findings
        # fewer (a clock in a helper that another file writes into the system prompt). TS
        # precision 19/28 -> 13/22 by branch h30dd18 (one finding per value and prompt: the
        # twelve true findings of bytebot-hawkeye and its fork, each value reported as a time
        # and as a date, are six; the false stay 9), then -> 13/19 by branch h30ts18 (a
        # one-shot extractor's excerpt of the newest turns, three times; a check of that pass,
        # not tuned on). Python precision 2/9 -> 2/8 by branch h30pr18py (a list of facts
        # dumped: no PL202); Python structural 0/5 -> 1/5, precision -> 3/9 by branch
        # h30st18py (a memory file's text in the system prompt builder; a check it was not
        # tuned on). Twentieth pass, windows (branch h30win20): a window in a file of LangChain
        # message classes: Python structural 1/5 -> 2/5, precision -> 4/10.
        test={
            "ts": {"volatile": (4, 4), "structural": (4, 6), "precision": (13, 19)},
            "py": {"volatile": (2, 3), "structural": (2, 5), "precision": (4, 10)},
        },
    ),
    HeldOut(
        "real25",
        labels=26,
        breakers={("test", "volatile"): 6, ("test", "structural"): 9}
        | {("dev", "volatile"): 5, ("dev", "structural"): 6},
        # one population of sixty-four new code searches phrased as the text sent each turn (36
        # for TypeScript, 28 for Python, 43 of them for live state; merged round-robin per
        # block), quotas of 20 a language stated and filled. Volatile steps over the reserve of
        # twenty live-state searches (block 3: 8, 8, then 1 when it ended), then over the names
        # of blocks 1 and 2 the first draw did not take (8, then 5 when they ended); the
        # structural step found no untried name. Test half: 6 volatile (10 wanted), 9
        # structural (12 wanted)
        steps=(8, 8, 1, 8, 5),
        # First run (policies/ as on main 75dfb437, the project around each file, after every
        # label of both halves was committed), its 16 unlabelled findings judged in
        # findings.toml (2 true, 14 false). TS precision 16/28 -> 13/25 by the eighteenth
        # passes (one finding per value and prompt: true findings of one value at several lines
        # are one; the false stay 12).
        dev={
            # TS precision 13/25 -> 13/24 by branch h30fix21 (a CLI's working directory, fixed).
            "ts": {"volatile": (4, 5), "structural": (3, 5), "precision": (13, 24)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (2, 4)},
        },
        # Scored once, by the lead, with the round's final rules (main bfb202c8: the eighteenth
        # passes, written on real17 to real24 and the wide samples, none on real25), the project
        # around each file; its 5 unlabelled findings judged in findings.toml (3 true, 2
        # false). The rules from before the round (main 75dfb437) find the same breakers and
        # one true finding fewer (a user's memories in the system prompt, found at a second
        # line). Twentieth pass, windows (branch h30win20; these misses were named in its
        # brief): a history read by `.get` and cut, a tail walked newest first while a budget
        # lasts, the history less its head filled to a character budget: Python structural
        # 2/6 -> 5/6, precision 4/4 -> 7/7.
        test={
            "ts": {"volatile": (0, 2), "structural": (2, 3), "precision": (6, 8)},
            "py": {"volatile": (2, 4), "structural": (5, 6), "precision": (7, 7)},
        },
    ),
    HeldOut(
        "real26",
        labels=18,
        breakers={("test", "volatile"): 4, ("test", "structural"): 2}
        | {("dev", "volatile"): 3, ("dev", "structural"): 9},
        # one population of sixty-four new code searches naming the framework or SDK the request
        # goes through (36 for TypeScript, 28 for Python, 43 of them for live state; merged
        # round-robin per block), quotas of 12 a language stated and filled. Volatile steps over
        # the reserve of twenty live-state framework searches (block 3: 8, 8, then 5 when it
        # ended), then over the names of blocks 1 and 2 the first draw did not take (8, 8, 8, 8,
        # then 5 when they ended, two Python removed by the language rule: 3 kept); the structural
        # step found no untried name. Test half: 4 volatile (10 wanted), 2 structural (12 wanted)
        first=(12, 12),
        quota=12,
        steps=(8, 8, 5, 8, 8, 8, 8, 3),
        # First run (policies/ as on main 75dfb437, the project around each file, after every
        # label of both halves was committed), its 17 unlabelled findings judged in
        # findings.toml (2 true: labelled breakers found at another of their lines; 15 false).
        # TS precision 6/20 -> 6/18 by the eighteenth passes (one finding per value and prompt:
        # espressobot's one-shot task agent's date, five false findings, is one).
        # Python structural 0/3 -> 2/3, precision 1/2 -> 3/4 by branch h30state20 (a tool's
        # session state rendered into an ADK instruction, two course-order agents).
        dev={
            "ts": {"volatile": (2, 3), "structural": (1, 6), "precision": (6, 18)},
            "py": {"volatile": (0, 0), "structural": (2, 3), "precision": (3, 4)},
        },
        # Scored once, by the lead, with the round's final rules (main bfb202c8), the project
        # around each file; its 5 unlabelled findings judged in findings.toml (all false). The
        # rules from before the round (main 75dfb437) find the same breakers and one true
        # finding fewer (the clock of a chat prompt, found at the builder's call). TS
        # structural 0/1 -> 1/1, precision 3/3 -> 4/4 by branch h30state20 (posted goals that a
        # route hands the prompt builder, reported in the builder); Python precision 1/6 -> 1/3
        # by branch h30reach20 (a record's other field does not carry the clock stamped on it:
        # a stored profile's fallback clocks, a job's creation time).
        test={
            "ts": {"volatile": (1, 2), "structural": (1, 1), "precision": (4, 4)},
            "py": {"volatile": (1, 2), "structural": (0, 1), "precision": (1, 3)},
        },
    ),
    HeldOut(
        "real27",
        labels=15,
        breakers={("test", "volatile"): 1, ("test", "structural"): 8}
        | {("dev", "volatile"): 1, ("dev", "structural"): 5},
        # one population of forty new code searches, each pairing a read of live state (a clock
        # or date library, cwd, OS or git state, editor state, per-request or per-user data) with
        # a prompt word (22 for TypeScript, 18 for Python; merged round-robin per block), a
        # path and a README screen for tutorials and one-shot scripts, quotas of 12 a language
        # stated and filled. Volatile steps over the reserve of sixteen such searches (block 3:
        # 8, then 6 when it ended), then over the names of blocks 1 and 2 the first draw did not
        # take (2 when they ended). Test half: 1 volatile (10 wanted), 8 structural
        first=(12, 12),
        quota=12,
        steps=(8, 6, 2),
        # First run (policies/ as on main c7be1416, the project around each file, after every
        # label of both halves was committed), its 5 unlabelled findings judged in
        # findings.toml (2 true, 3 false). The twenty-first pass, rewrites, finds a LangGraph
        # node's RemoveMessage window (Python structural 0/4 -> 1/4, precision 0/0 -> 1/1).
        dev={
            "ts": {"volatile": (1, 1), "structural": (1, 1), "precision": (4, 7)},
            "py": {"volatile": (0, 0), "structural": (1, 4), "precision": (1, 1)},
        },
        # Scored once, by the lead, with the round's final rules (main 0b8f809e: the twentieth
        # passes), after every label of both halves was committed; its 16 unlabelled findings
        # judged in findings.toml (8 true, 8 false). The rules from before those passes (main
        # 26b83a75) find the same breakers and one true finding fewer (the knowledge context
        # written into the system prompt, found in the builder too). Development data since:
        # the twenty-first pass, rewrites, drops the false window of a loop whose count only
        # ends the conversation (Python precision 0/2 -> 0/1).
        test={
            # TS precision 15/21 -> 15/20 by branch h30fix21 (a readline CLI's date read at load).
            "ts": {"volatile": (1, 1), "structural": (4, 6), "precision": (15, 20)},
            "py": {"volatile": (0, 0), "structural": (0, 2), "precision": (0, 1)},
        },
    ),
    HeldOut(
        "real28",
        labels=29,
        breakers={("test", "volatile"): 5, ("test", "structural"): 9}
        | {("dev", "volatile"): 2, ("dev", "structural"): 13},
        # sampled by the file's role: fifty-six exact paths of files that build the prompt or the
        # request (22 TypeScript, 18 Python, 16 live-state reserve paths; find_files, merged
        # round-robin per block and cut to the 140-fetch budget), the file at the path and at
        # most two files it imports drawn; quotas of 16 a language stated and filled. Volatile
        # steps over the reserve (block 3: 7 when it ended), then over the names of blocks 1 and
        # 2 the first draw did not take (8, 8, 8; the 64-project cap's last step of 1 found no
        # untried name). Test half: 5 volatile (10 wanted), 9 structural
        first=(16, 16),
        quota=16,
        steps=(7, 8, 8, 8),
        draw="role",
        beside=("real27",),
        # First run (policies/ as on main c7be1416, the project around each file, after every
        # label of both halves was committed), its 12 unlabelled findings judged in
        # findings.toml (4 true: labelled breakers found at another of their lines; 8 false).
        dev={
            # the twentieth pass (request state, written before real28 existed) added one true
            # and one false finding here: 8/14 -> 9/16
            "ts": {"volatile": (0, 2), "structural": (4, 10), "precision": (9, 16)},
            "py": {"volatile": (0, 0), "structural": (1, 3), "precision": (1, 3)},
        },
        # Scored once, by the lead, with the round's final rules (main 0b8f809e: the twentieth
        # passes); its 3 unlabelled findings judged in findings.toml (all false). The rules from
        # before those passes (main 26b83a75) give the same figures. The twenty-first pass, live
        # state (`jscheck/livestate.py`), finds both video editors' timeline snapshots: 1/4, 4/7
        # -> 3/4, 7/10.
        test={
            "ts": {"volatile": (3, 4), "structural": (2, 7), "precision": (7, 10)},
            "py": {"volatile": (1, 1), "structural": (2, 2), "precision": (3, 3)},
        },
    ),
    HeldOut(
        "real29",
        labels=11,
        breakers={("test", "structural"): 7, ("dev", "structural"): 4},
        # sampled by the kind of program that hosts the conversation: fifty-six new code searches
        # naming a host's API (editor, browser and desktop extensions, terminal agents, chat
        # bots, voice and home assistants, chat servers) with a prompt or messages word (22 for
        # TypeScript, 18 for Python, 16 reserve; merged round-robin per block, cut to the
        # 120-fetch budget), a path and a README screen for tutorials and one-shot tools. Quotas
        # of 12 a language stated; TypeScript's ended at 11, so Python's was lowered to 11.
        # Volatile steps over the reserve (block 3: 7 when it ended), then over the names of
        # blocks 1 and 2 the first draw did not take (1 when they ended); the fill step found no
        # untried name. 30 projects of the 50 aimed at. Test half: 0 volatile (10 wanted), 7
        # structural
        first=(11, 11),
        quota=12,
        steps=(7, 1),
        # First run (policies/ as on main 38d19e54, the project around each file, after every
        # label of both halves was committed), its 18 unlabelled findings judged in
        # findings.toml (all false).
        dev={
            # TS precision 0/11 -> 0/7 by branch h30fix21 (a CLI session's working directory).
            "ts": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 7)},
            "py": {"volatile": (0, 0), "structural": (3, 4), "precision": (3, 10)},
        },
        # Scored once, by the lead, with the round's final rules (main 0b8f809e: the twentieth
        # passes); no unlabelled finding. The rules from before those passes (main 26b83a75)
        # give the same figures. Development data since: the twenty-first pass, rewrites,
        # finds a summary ahead of a window bound to a local and a window of a listing read
        # from a channel's history (Python structural 1/6 -> 3/6, precision 1/1 -> 3/3).
        test={
            "ts": {"volatile": (0, 0), "structural": (0, 1), "precision": (0, 0)},
            "py": {"volatile": (0, 0), "structural": (3, 6), "precision": (3, 3)},
        },
    ),
    HeldOut(
        "real30",
        labels=8,
        breakers={("test", "volatile"): 2, ("test", "structural"): 3} | {("dev", "structural"): 3},
        # sampled by the project's manifest: fifty-six code searches for manifests declaring a
        # model SDK or agent framework (22 package.json, 18 Python manifests, 16 live-context
        # reserve; their openings' repositories merged round-robin per block and cut to the
        # 120-fetch budget), the SDK declaration checked in the snapshot, the file calling the
        # SDK most and at most two files it imports drawn; quotas of 16 a language stated (Python
        # short at 15 when blocks 1 and 2 ended). Volatile steps over the reserve (block 3: 8,
        # then 4 when it ended), then over the names of blocks 1 and 2 the first draw did not
        # take (3; the next found none). Test half: 2 volatile (10 wanted), 3 structural
        first=(16, 15),
        quota=16,
        steps=(8, 4, 3),
        draw="manifest",
        beside=("real29",),
        # First run (policies/ as on main 38d19e54, the project around each file, after every
        # label of both halves was committed), its 1 unlabelled finding judged in findings.toml
        # (false: a date computed once, at import).
        dev={
            "ts": {"volatile": (0, 0), "structural": (0, 2), "precision": (0, 0)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (2, 3)},
        },
        # Scored once, by the lead, with the round's final rules (main 0b8f809e: the twentieth
        # passes); its 3 unlabelled findings judged in findings.toml (all false). The rules from
        # before those passes (main 26b83a75) find the same breakers and one false finding
        # fewer (a preference summary confirmed before the interview, handed to the builder).
        # The twenty-first pass, live state, finds the calendar's live events: 1/2, 2/4 -> 2/2,
        # 3/5.
        test={
            "ts": {"volatile": (2, 2), "structural": (1, 1), "precision": (3, 5)},
            # Python precision 2/3 -> 2/2 by branch h30fix21 (an input() loop's date at import).
            "py": {"volatile": (0, 0), "structural": (1, 2), "precision": (2, 2)},
        },
    ),
    HeldOut(
        "real31",
        labels=15,
        breakers={("test", "volatile"): 1, ("test", "structural"): 4}
        | {("dev", "volatile"): 3, ("dev", "structural"): 7},
        # sampled by the project's own issue threads: thirty new searches of GitHub issue and
        # pull-request threads about prompt caching and token cost (15 phrased for TypeScript
        # apps, 15 for Python; the threads' repositories merged round-robin per block, libraries
        # and SDKs skipped from the answer, cut to the 115-fetch budget), a README screen for
        # libraries, tutorials and apps that send no conversation, the language decided by the
        # files holding the prompt; quotas of 12 a language stated and filled. One top-up step of
        # 4 a language (TypeScript ended at 2; two Python removed by the language rule: 2 kept),
        # then the lists ended at 28 projects. Test half: 1 volatile (10 wanted), 4 structural
        first=(12, 12),
        quota=12,
        steps=(),
        more=(4,),
        # First run (policies/ as on main 275ae31f, the project around each file, after every
        # label of both halves was committed), its 7 unlabelled findings judged in
        # findings.toml (1 true: a labelled date found at its template; 6 false).
        dev={
            "ts": {"volatile": (1, 2), "structural": (1, 4), "precision": (3, 8)},
            "py": {"volatile": (0, 1), "structural": (2, 3), "precision": (3, 4)},
        },
        # Scored once, by the lead, with the round's final rules (main f7dfb142: the twenty-first
        # passes, written on real17 to real30), no unlabelled finding. The rules from before those
        # passes (main 275ae31f) find the same.
        test={
            "ts": {"volatile": (0, 0), "structural": (0, 2), "precision": (0, 0)},
            "py": {"volatile": (1, 1), "structural": (0, 2), "precision": (1, 1)},
        },
    ),
    HeldOut(
        "real32",
        labels=6,
        breakers={("test", "volatile"): 1, ("test", "structural"): 1} | {("dev", "structural"): 4},
        # sampled by agent apps published as packages: thirty docs-corpus queries for apps and
        # tools that hold a conversation (15 phrased for npm/TypeScript, 15 for PyPI/Python),
        # the GitHub repository each registry or project page names (libraries skipped from the
        # page's own words; merged round-robin per block: 64 names, all fetched), a README
        # screen for tutorials, lists, libraries and one-shot tools. Quotas of 12 a language
        # stated; the first draw took 8 TypeScript and 4 Python projects and the lists ended
        # (no step could take more): 12 projects of the 40 aimed at. Test half: 1 volatile
        # (10 wanted), 1 structural
        first=(8, 4),
        quota=12,
        steps=(),
        beside=("real31",),
        # First run (policies/ as on main 275ae31f, unchanged on branch h30r32, the project
        # around each file, after every label of both halves was committed): no finding.
        dev={
            "ts": {"volatile": (0, 0), "structural": (0, 3), "precision": (0, 0)},
            "py": {"volatile": (0, 0), "structural": (0, 1), "precision": (0, 0)},
        },
        # Scored once, by the lead, with the round's final rules (main f7dfb142: the twenty-first
        # passes, written on real17 to real30), its 5 unlabelled findings judged in findings.toml (3
        # true, 2 false). The rules from before those passes (main 275ae31f) find the same.
        test={
            "ts": {"volatile": (0, 1), "structural": (0, 1), "precision": (3, 5)},
            "py": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
        },
    ),
    HeldOut(
        "real33",
        labels=11,
        breakers={("test", "volatile"): 1, ("test", "structural"): 4}
        | {("dev", "volatile"): 1, ("dev", "structural"): 5},
        # sampled from apps other people wrote about: thirty new searches of stored web pages
        # (tutorials, question-and-answer threads, blog and show-and-tell posts; 15 about
        # TypeScript apps, 15 about Python apps), the first GitHub repository each result names
        # that the page does not call a library or framework, merged round-robin per block (70
        # names, under the 115-fetch budget); real30's draw (the file calling the model most,
        # its SDK call or a provider's chat endpoint, and at most two files it imports) without
        # real30's manifest and template rules. Quotas of 20 a language stated; the lists ended
        # at 17 TypeScript and 14 Python projects, and the volatile step after them found no
        # untried name. Test half: 1 volatile (10 wanted), 4 structural
        first=(17, 14),
        quota=20,
        steps=(),
        draw="manifest",
        # real31 and real32 were built at the same time; neither list was committed before
        # real33's, so their names were not left out of it
        beside=("real31", "real32"),
        # First run (policies/ as on main 275ae31f, the project around each file, after every
        # label of both halves was committed), its 1 unlabelled finding judged in findings.toml
        # (false: a safety classifier's input, not the conversation sent to the chat model).
        dev={
            "ts": {"volatile": (0, 0), "structural": (1, 2), "precision": (1, 1)},
            "py": {"volatile": (0, 1), "structural": (1, 3), "precision": (1, 2)},
        },
        # Scored once, by the lead, with the round's final rules (main f7dfb142: the twenty-first
        # passes, written on real17 to real30), its 8 unlabelled findings judged in findings.toml (1
        # true, 7 false). The rules from before those passes (main 275ae31f) find the same.
        test={
            "ts": {"volatile": (0, 1), "structural": (2, 2), "precision": (2, 2)},
            "py": {"volatile": (0, 0), "structural": (0, 2), "precision": (1, 8)},
        },
    ),
    HeldOut(
        "real34",
        labels=3,
        breakers={("dev", "structural"): 3},
        # sampled by application code that sets prompt-cache markers: thirty code searches for
        # cache-marker words (15 TypeScript, 15 Python) and a thirty-query reserve added before
        # any fetch, their openings' repositories (SDKs, libraries, proxies and examples
        # folders skipped) merged round-robin per block: 79 names, all fetched. The file naming
        # a marker on most lines and at most two files it imports drawn; quotas of 12 a language
        # stated, Python lowered to the TypeScript count (3) when blocks 1 and 2 gave 3
        # TypeScript projects; one step of 4 a language over the rest (TypeScript ran out at 3,
        # the last Python project removed whole). Test half: 0 breakers (10 volatile and 12
        # structural wanted); development: 3 structural (Python).
        first=(3, 3),
        quota=12,
        steps=(),
        more=(6,),
        draw="cache",
        beside=("real31", "real32", "real33"),
        # First run (policies/ as on main 275ae31f, the project around each file, after every
        # label of both halves was committed), its 1 unlabelled finding judged in findings.toml
        # (false: Bedrock cache points moved between stored messages).
        dev={
            "ts": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
            "py": {"volatile": (0, 0), "structural": (0, 3), "precision": (0, 1)},
        },
        # Scored once, by the lead, with the round's final rules (main f7dfb142: the twenty-first
        # passes, written on real17 to real30), no finding and no breaker. The rules from before
        # those passes (main 275ae31f) find the same.
        test={
            "ts": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
            "py": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
        },
    ),
    HeldOut(
        "real35",
        labels=12,
        breakers={("test", "structural"): 10, ("dev", "structural"): 2},
        # sampled as real16: the code index's repository listing for fourteen new name fragments
        # naming kinds of project that keep a conversation and read live state (7 leaning
        # TypeScript, 7 Python; the first 15 of each, merged round-robin per block), a reserve of
        # twelve new code searches, a path and a README screen for tutorials and one-shot tools.
        # Quotas of 10 a language stated; TypeScript's ended at 9, so Python's was lowered to 9.
        # Volatile steps over the reserve (6, then 2 when it ended); one main-list step (1 a
        # language once the language rule removed two Python projects); the 120-fetch budget
        # left names 99-148 untried. 28 projects of the 40 aimed at. Test half: 0 volatile (10
        # wanted), 10 structural
        first=(9, 9),
        quota=10,
        steps=(6, 2),
        more=(2,),
        untried=50,
        beside=("real31", "real32", "real33", "real34"),
        # First run (policies/ as on main 275ae31f, the project around each file, after every
        # label of both halves was committed); no unlabelled finding.
        dev={
            "ts": {"volatile": (0, 0), "structural": (1, 1), "precision": (1, 1)},
            "py": {"volatile": (0, 0), "structural": (0, 1), "precision": (0, 0)},
        },
        # Scored once, by the lead, with the round's final rules (main f7dfb142: the twenty-first
        # passes, written on real17 to real30), no unlabelled finding. The rules from before those
        # passes (main 275ae31f) find the same.
        test={
            "ts": {"volatile": (0, 0), "structural": (2, 7), "precision": (4, 4)},
            "py": {"volatile": (0, 0), "structural": (1, 3), "precision": (1, 1)},
        },
    ),
    HeldOut(
        "real36",
        labels=15,
        breakers={("test", "volatile"): 4, ("test", "structural"): 7, ("dev", "structural"): 4},
        # sampled as real35: the code index's repository listing for fourteen new name fragments
        # naming coding agents and terminal and editor assistants (7 leaning TypeScript, 7
        # Python; the first 15 of each, merged round-robin per block), a reserve of eight new code
        # searches, a path and a README screen for tutorials and one-shot tools. Quotas of 10 a
        # language stated; Python's ended at 6 (the 100-fetch budget, spent on names 1-92 and the
        # reserve, barely reached the Python block). The volatile step over the reserve drew no
        # project (block 3 ended); four main-list steps (3, 3, 3, 1 TypeScript projects) until the
        # tried names ended; names 93-185 untried. 26 projects of the 40 aimed at. Test half: 4
        # volatile and 7 structural (10 and 12 wanted).
        first=(10, 6),
        quota=10,
        steps=(),
        more=(3, 3, 3, 1),
        untried=93,
        # First run (policies/ as on main 0151a486, the project around each file, after every
        # label of both halves was committed), its 1 unlabelled finding judged in findings.toml
        # (false: a one-shot summary call after the session ends).
        # dev: raised to the twenty-second passes' figures (main 0bfea9ea)
        dev={
            "ts": {"volatile": (0, 0), "structural": (3, 3), "precision": (3, 3)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (1, 2)},
        },
        # Scored once by the lead with the twenty-second passes' rules (main 0bfea9ea), its 1
        # unlabelled finding judged true (the file tree and editor state at the prompt's call).
        # The first TypeScript structural find (a newest-10 window written as text into a system
        # prompt) is a fork of the tutorial whose three development copies that rule was written
        # on; the rules from before the round (main 0151a486) find 3/6 and 7/7.
        test={
            "ts": {"volatile": (2, 4), "structural": (4, 6), "precision": (8, 8)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (1, 1)},
        },
    ),
    HeldOut(
        "real37",
        labels=15,
        breakers={("test", "structural"): 6} | {("dev", "volatile"): 1, ("dev", "structural"): 8},
        # sampled as real35: the code index's repository listing for fourteen new name fragments
        # naming applications on agent frameworks (7 leaning TypeScript: Mastra, the AI SDK,
        # LangChain.js, LangGraph.js, @openai/agents; 7 Python: pydantic-ai, Google ADK, CrewAI,
        # AutoGen, LlamaIndex, LangGraph; the first 15 of each, merged round-robin per block), a
        # reserve of eight new framework code searches, path, owner and README screens for the
        # frameworks' own code, templates, courses and libraries. Quotas of 10 a language stated;
        # Python's ended at 5 (TypeScript not short, so no --quota rerun). One volatile step over
        # the reserve (4: it ended); two main-list steps of 3 TypeScript projects (no Python name
        # left), a third drew none; the 100-fetch budget left names 91-139 untried. 25 projects
        # of the 40 aimed at. Test half: 0 volatile (10 wanted), 6 structural
        first=(10, 5),
        quota=10,
        steps=(4,),
        more=(3, 3),
        untried=49,
        # real36 was built at the same time; its list, committed a minute before real37's, was
        # read before the first draw (no name on both), but not when real37's list was written
        beside=("real36",),
        # First run (policies/ as on main 0151a486, the project around each file, after every
        # label of both halves was committed); no unlabelled finding.
        # dev: raised to the twenty-second passes' figures (main 0bfea9ea)
        dev={
            "ts": {"volatile": (0, 1), "structural": (4, 7), "precision": (4, 4)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (2, 2)},
        },
        # Scored once by the lead (main 0bfea9ea), its 1 unlabelled finding judged false (a
        # one-shot database question's system prompt); the rules from before the round (main
        # 0151a486) give the same.
        test={
            "ts": {"volatile": (0, 0), "structural": (4, 5), "precision": (6, 6)},
            "py": {"volatile": (0, 0), "structural": (0, 1), "precision": (0, 1)},
        },
    ),
    HeldOut(
        "real38",
        labels=12,
        breakers={("test", "volatile"): 4, ("test", "structural"): 3}
        | {("dev", "volatile"): 1, ("dev", "structural"): 4},
        # sampled to be volatile-dense: twenty-four new code searches each describing a volatile
        # value or a per-request read in the prompt of an app with history (12 phrased for
        # TypeScript, 12 for Python), their openings' repositories merged round-robin per block
        # (34 names), and, since that was under 60, eight messaging-bot find_repos fragments (the
        # first 10 of each: 78 names); a path and a README screen for tutorials and one-shot
        # tools. Quotas of 8 a language stated; Python's names ended at 3. Volatile steps of 6
        # (6, 6, then 2 when the fetched names ended); the 100-fetch budget left names 101-112
        # untried. 25 projects of the 40 aimed at. Test half: 4 volatile (10 wanted), 3
        # structural.
        first=(8, 3),
        quota=8,
        steps=(6, 6, 2),
        untried=12,
        beside=("real36", "real37"),
        # First run (policies/ as on main 0151a486, the project around each file, after every
        # label of both halves was committed), its 5 unlabelled findings judged in findings.toml
        # (1 true: the recent-messages window at its source; 4 false).
        # dev: raised to the twenty-second passes' figures (main 0bfea9ea)
        dev={
            "ts": {"volatile": (1, 1), "structural": (3, 3), "precision": (5, 8)},
            "py": {"volatile": (0, 0), "structural": (1, 1), "precision": (1, 1)},
        },
        # Scored once by the lead (main 0bfea9ea), its 5 unlabelled findings judged (2 true: a
        # memory template's clock slots; 3 false: a one-shot edit request's git diff and editor
        # selection, an input box's caption); the rules from before the round (main 0151a486)
        # give the same recall and one PL303 more (a spliced-back slice, not judged).
        # test: raised by h30p5 (both halves development data since): the reply templates'
        # {today} slots filled by a clock helper (jscheck/clockslots.py) and their {context} /
        # {patientContext} slots ahead of {history} (jscheck/sinks.py), all label-matched
        test={
            "ts": {"volatile": (2, 3), "structural": (2, 3), "precision": (7, 10)},
            "py": {"volatile": (1, 1), "structural": (0, 0), "precision": (3, 3)},
        },
    ),
    HeldOut(
        "real39",
        labels=6,
        breakers={("test", "volatile"): 2, ("test", "structural"): 1}
        | {("dev", "volatile"): 1, ("dev", "structural"): 2},
        # sampled to be volatile-dense: twelve new find_repos fragments naming kinds of project
        # that keep a long conversation and put the time or the user's live record into a
        # repeated prompt (companions, study buddies, journals, inbox and schedule assistants,
        # mentors and coaches, diary bots, Gmail agents, mental-health chat bots), the first 12
        # of each merged round-robin per block (72 and 71 names), the blocks interleaved in
        # groups of 10 so both get fetches (50 and 40 of the 90). Quotas of 6 a language; volatile
        # steps of 4 (4, 4, 4, 4, 4, then 3 when the fetched names ended); names 91-143 untried.
        # 35 projects of the 40 aimed at. Test half: 2 volatile (10 wanted), 1 structural.
        first=(6, 6),
        quota=6,
        steps=(4, 4, 4, 4, 4, 3),
        untried=53,
        # First run (policies/ as on main 13c47dd9, the project around each file, after every
        # label of both halves and the amendment were committed), its 2 unlabelled findings
        # judged in findings.toml (2 true: chat-extracted athlete facts in the system prompt, a
        # breaker the reading missed; today's session beside the labelled date).
        dev={
            "ts": {"volatile": (1, 1), "structural": (0, 2), "precision": (4, 4)},
            "py": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
        },
        # Scored once by the lead (main 143c7878), its 4 unlabelled findings judged (1 true,
        # borderline: the events store's list at the prompt's return; 3 false: an encryption
        # nonce, twice, and a constant context argument); the rules from before the round (main
        # 0151a486) give the same.
        test={
            "ts": {"volatile": (2, 2), "structural": (0, 1), "precision": (3, 6)},
            "py": {"volatile": (0, 0), "structural": (0, 0), "precision": (0, 0)},
        },
    ),
)
each = pytest.mark.parametrize("c", CORPORA, ids=[c.name for c in CORPORA])


@each
def test_every_label_names_a_drawn_file_and_says_why(c: HeldOut) -> None:
    assert_labels_hold(c.folder, at_least=c.labels)


@each
def test_the_halves_hold_the_breakers_the_amendment_counts(c: HeldOut) -> None:
    assert breakers_by_half(c.folder) == c.breakers


@each
def test_the_first_draw_is_twenty_projects_a_language_split_evenly(c: HeldOut) -> None:
    projects = assert_first_draw(c.folder, c.first)
    # at least the first draw's projects, at least half TypeScript unless the corpus records its
    # shortfall (each language's halves even: above)
    assert len(projects) >= sum(c.first)
    typescript = sum(lang == "ts" for lang, _ in projects.values())
    if c.typescript is None:
        assert 2 * typescript >= len(projects)
    else:
        assert typescript == c.typescript and 2 * typescript < len(projects)


@each
def test_each_volatile_step_is_split_evenly_within_a_language(c: HeldOut) -> None:
    assert_steps_split(
        c.folder, c.steps, first=sum(c.first), more=c.more, step_strata=c.step_strata
    )


@each
def test_projects_are_taken_in_the_listed_order(c: HeldOut) -> None:
    assert_list_ended(c.folder, c.untried)


@each
def test_no_project_of_an_earlier_corpus_is_listed(c: HeldOut) -> None:
    assert_none_listed_before(c.folder, c.earlier)


@each
def test_the_sampler_is_the_stated_draw(c: HeldOut) -> None:
    if c.draw == "role":
        assert_role_draw(c.folder, c.quota)
    elif c.draw == "manifest":
        assert_manifest_draw(c.folder, c.quota)
    elif c.draw == "cache":
        assert_manifest_draw(c.folder, c.quota, "CacheDraw")
    else:
        assert_real10s_draw(c.folder, c.quota)


@pytest.mark.slow  # lints ~60-80 third-party files a half: CI runs it in its slow step
@pytest.mark.parametrize("half", ["dev", "test"])
@each
def test_half_figures_hold(c: HeldOut, half: str) -> None:
    if half == "test" and not c.test:
        pytest.skip(f"{c.name}'s test half is scored once, by the lead; not yet")
    assert_floors(score_half(c.folder, half), c.dev if half == "dev" else c.test)

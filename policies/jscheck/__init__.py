"""TypeScript/JavaScript prompt builders (`.ts .tsx .js .jsx .mjs .cjs .mts .cts`), read with
tree-sitter's grammars: volatile values and outside orders that reach a prompt prefix or a tool
list (`sinks`, following values with `values`), and the structure of requests (`structure`:
history windows, per-request content before the history, tools chosen per mode, side requests
with another prefix; `pickedtools`: a prompt or tools picked by an option sent with the request;
`servercut`, `stepstate`: a cut asked of the server, the current step written into the system
prompt; `steptools`: the tool list changed between the requests of one turn; `storewindow`: a
conversation loaded as its newest rows; `capwindows`: a history cut to a cap by shift, filter, a
newest-first slice or a loader named for the recent messages; `otherprefix`: one conversation
sent under two system prompts; `flagtools`: tools switched by a flag worked out from the
request's messages; `templateslot`: a chat template's system slot filled from the newest
message; `importedwindow`: a window cut by a helper another module exports; `movedstate`: a
figure the reply changes written ahead of the history; `turnahead`: retrieved content sent as a
turn of its own ahead of the replayed history; `firstonly`: a system message sent only on the
first request; `flattentools`: older tool calls rewritten to text once newer ones arrive;
`sentparts`: the parts of each list a request sends, in order: per-request messages ahead of
the replayed history, the history cut to its newest messages; `handedin`: what another file
hands a prompt builder of this one per request, where the builder writes it; `livestate`: the
app's live state (a store's snapshot, a component's hook) in a system prompt ahead of the history;
`modesections`: a system prompt's sections chosen by a mode or skills its builder is handed;
`clockslots`: a clock slot of an exported system template that an importing file fills).
Findings are then dropped where `chainstart`, `instancemode`, `measured`, `runonce` and
`memoised` show that no later request of the conversation reads the part reported. Pure: text
in, findings out; another file of the project is read only through the loader the engine
passes in.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Callable

from ..chattemplate import check_dated_chat_templates
from ..findings import Finding
from .aheadsystem import check_system_ahead_of_history
from .askedwindow import check_asked_window
from .capwindows import check_cap_windows
from .chainstart import drop_chain_start
from .clockhistory import check_clock_in_history
from .clockslots import check_clock_slots_elsewhere
from .depthinsert import check_depth_insert
from .firstonly import check_system_first_only
from .flagtools import check_flag_tools
from .flattentools import check_flattened_tool_calls
from .handedin import check_handed_in
from .importedwindow import check_imported_windows
from .instancemode import drop_instance_modes
from .livelist import check_live_list_in_system
from .livestate import check_live_state
from .measured import drop_measured
from .memoised import drop_memoised
from .middleout import check_middle_out
from .modesections import check_mode_sections
from .movedstate import check_moved_state
from .otherprefix import check_other_prefix
from .ownfolder import drop_own_folder
from .peritem import check_per_item
from .pickedtools import check_tools_picked_by_request
from .placedelsewhere import check_placed_elsewhere
from .prefixflow import check_prefix_flow
from .processfixed import drop_fixed_per_process
from .reach import Importers, drop_unreached
from .rewrites import check_rewrites
from .runonce import drop_read_once_per_run
from .secondsystem import check_second_system
from .sentparts import check_sent_parts
from .servercut import check_server_cut
from .sinks import SinkCheck
from .stepstate import check_step_state
from .steptools import check_tools_between_calls, check_tools_emptied_by_step
from .storewindow import check_store_window
from .structure import (
    check_content_before_history,
    check_flattened_history,
    check_model_per_step,
    check_side_requests,
    check_state_before_history,
    check_system_replaced,
    check_tools_per_step,
    check_windows,
)
from .syntax import JS_SUFFIXES, parse
from .templateslot import check_template_slots
from .turnahead import check_turn_ahead_of_history
from .values import Evaluator, Loader, Module
from .windowtext import check_window_text_in_system

__all__ = ["JS_SUFFIXES", "Importers", "Loader", "Module", "check_js"]


def check_js(
    path: str,
    text: str,
    load: Loader | None = None,
    importers: Importers | None = None,
    elsewhere: bool = True,
    checked: Callable[[str, str], list[Finding]] | None = None,
    project_words: Callable[[str], frozenset[str] | None] | None = None,
) -> list[Finding]:
    """The findings of one TypeScript/JavaScript file; `load(path, specifier)` resolves its
    relative imports to parsed modules (values are followed into them); `importers(path,
    name)` gives the project's other files that import its export `name` (an exported prompt
    builder's callers there decide the requests it reaches, and their findings on a value
    read here are reported here too, unless `elsewhere` is false: a check of an importer).
    `checked(path, text)` gives an importer's own findings (the engine's runs each importer
    once a run, outside this file's CPU budget: it is that file's work); by default the
    importer is checked here. `project_words(path)` gives the words the file's project holds
    (None where no project is searched): what kind of program it is, a terminal program or a
    server, decides whether a value read once per process is fixed for a conversation."""
    src = parse(path, text)
    module = Module(src, load)
    ev = Evaluator(module)
    found = (
        SinkCheck(src, ev).run()
        + check_windows(src)
        + check_rewrites(src)
        + check_clock_in_history(src, ev)
        + check_side_requests(src)
        + check_flattened_history(src)
        + check_model_per_step(src)
        + check_tools_per_step(src)
        + check_content_before_history(src)
        + check_system_replaced(src)
        + check_per_item(src)
        + check_middle_out(src)
        + check_live_list_in_system(src)
        + check_tools_picked_by_request(src)
        + check_system_ahead_of_history(src)
    )
    # The request's state may already be reported where it enters the system message as
    # retrieved content (a parameter named `...Context`): one finding a line.
    told = {f.line for f in found if f.code == "PL304"}
    found += [f for f in check_state_before_history(src) if f.line not in told]
    had = {(f.code, f.line) for f in found}
    found += [
        f
        for f in check_server_cut(src)
        + check_step_state(src)
        + check_tools_between_calls(src)
        + check_tools_emptied_by_step(src)
        + check_store_window(src)
        + check_cap_windows(src)
        + check_asked_window(src)
        + check_depth_insert(src)
        + check_second_system(src)
        + check_other_prefix(src)
        + check_flag_tools(src)
        + check_template_slots(src)
        + check_imported_windows(src, ev)
        + check_moved_state(src)
        + check_turn_ahead_of_history(src)
        + check_system_first_only(src)
        + check_flattened_tool_calls(src)
        + check_live_state(src)
        + check_mode_sections(src)
        + check_window_text_in_system(src)
        if (f.code, f.line) not in had
    ]
    # The data-flow pass finds some breakers the shape rules already report: one a line.
    seen = {(f.code, f.line) for f in found}
    seen |= {(f.code, int(n)) for f in found for n in re.findall(r"\(line (\d+)\)", f.message)}
    found += [f for f in check_prefix_flow(src) if (f.code, f.line) not in seen]
    # The parts of each list sent, read in order, find some breakers the rules above already
    # report: one a line, and a system prompt's flow already reported on a line it passes
    # through is not reported again.
    seen |= {(f.code, f.line) for f in found}
    ahead = frozenset(line for code, line in seen if code == "PL304")
    found += [f for f in check_sent_parts(src, ahead) if (f.code, f.line) not in seen]
    found = drop_measured(src, drop_instance_modes(src, drop_chain_start(src, found)))
    found = drop_memoised(src, drop_read_once_per_run(src, found))
    found = drop_own_folder(module, found)
    found = drop_fixed_per_process(
        module, found, lambda: project_words(path) if project_words is not None else None
    )
    found = drop_unreached(src, found, importers, module)
    placed = {(f.code, f.line) for f in found}
    found += [f for f in check_dated_chat_templates(path, text) if (f.code, f.line) not in placed]
    if elsewhere:
        if checked is None:  # one check of each importer for both rules below
            memo: dict[str, list[Finding]] = {}

            def checked(p: str, t: str) -> list[Finding]:
                if p not in memo:
                    memo[p] = check_js(
                        p, t, load, importers, elsewhere=False, project_words=project_words
                    )
                return memo[p]

        placed = {(f.code, f.line) for f in found}
        found += [
            f for f in check_clock_slots_elsewhere(src, importers) if (f.code, f.line) not in placed
        ]
        for rule in (check_placed_elsewhere, check_handed_in):
            placed = {(f.code, f.line) for f in found}
            found += [f for f in rule(src, importers, checked) if (f.code, f.line) not in placed]
    return sorted(found, key=lambda f: (f.line, f.col, f.code))

"""`prefixlock demo --versus peers`: every scenario through prefixlock and each peer; what each
client paid per event type, the totals, and the wire traces beside each other.

A peer whose venv cannot be built (no package index) is listed as not measured, with the reason;
its column is left out rather than guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..atomicfile import replacing_text
from ..guard.policy import CachePolicy
from .run import ClientRun
from .scenario import COMPACT, EVENTS, Scenario

OURS = "prefixlock"
# Column headers of the 80-column table (the legend under it gives each client's whole name and
# configuration; `--json` has the whole names). A client not named here gets its first 8 chars.
SHORT_NAMES = {
    "prefixlock": "ours",
    "anthropic-sdk": "a-sdk",
    "pydantic-ai": "pyd-ai",
    "langchain": "lc",
    "openai-sdk": "oai-sdk",
    "openai-agents": "agents",
    "pydantic-ai-openai": "pyd-ai",
    "langchain-openai": "lc",
}


def short_names(clients: Sequence[str]) -> dict[str, str]:
    """A short, unique column header per client (prefixlock-<policy> is ours-<policy>)."""
    out: dict[str, str] = {}
    for c in clients:
        if c in SHORT_NAMES:
            label = SHORT_NAMES[c]
        elif c.startswith(OURS + "-"):
            label = "ours-" + c[len(OURS) + 1 :]
        else:
            label = c[:8]
        base, n = label, 2
        while label in out.values():
            label, n = f"{base[:7]}{n}", n + 1
        out[c] = label
    return out


@dataclass
class VersusResult:
    scenarios: tuple[Scenario, ...]
    runs: list[ClientRun]
    peer_config: dict[str, str]
    missing: dict[str, str] = field(default_factory=dict)  # peer -> why it was not measured

    @property
    def clients(self) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.runs:
            seen[r.client] = None
        return list(seen)

    def by_event(self, client: str) -> dict[str, Decimal]:
        out = {e: Decimal(0) for e in EVENTS}
        for r in self.runs:
            if r.client == client:
                for event, cost in r.by_event().items():
                    out[event] += cost
        return out

    def keepalive(self, client: str) -> dict[str, Decimal]:
        """`client`'s dollars per event type on output-free requests (keep-alive pings, turn-end
        1-hour writes, prefix reads for a compaction ahead): sent in a gap, they are booked to
        the turn after it, like every request there."""
        out = {e: Decimal(0) for e in EVENTS}
        for r in self.runs:
            if r.client == client:
                for b in r.requests:
                    if b.ping:
                        out[b.event] += b.cost
        return out

    def total(self, client: str) -> Decimal:
        return sum((r.cost for r in self.runs if r.client == client), Decimal(0))

    def event_counts(self) -> dict[str, int]:
        out = {e: 0 for e in EVENTS}
        for s in self.scenarios:
            for e, n in s.events().items():
                out[e] += n
        return out

    def best_peer(self) -> str | None:
        peers = self.peers()
        return min(peers, key=self.total) if peers else None

    def peers(self) -> list[str]:
        return [c for c in self.clients if not c.startswith(OURS)]

    def margin(self, client: str = OURS) -> Decimal | None:
        """How many times cheaper `client` is than the cheapest peer, in total."""
        best = self.best_peer()
        ours = self.total(client)
        if best is None or not ours:
            return None
        return self.total(best) / ours

    def compacts(self, client: str) -> bool:
        """Did `client` compact in any session (send a summary, shorten its history)?"""
        return any(r.compacted for r in self.runs if r.client == client)

    def contextless(self) -> dict[str, list[str]]:
        """Per client, the switched turns it ran without the conversation ("scenario turn N",
        1-based), where a real model could not have answered: only clients with any."""
        out: dict[str, list[str]] = {}
        for r in self.runs:
            if r.contextless:
                out.setdefault(r.client, []).extend(
                    f"{r.scenario} turn {t + 1}" for t in r.contextless
                )
        return out

    def worse_events(self, client: str = OURS) -> list[str]:
        """Event types on which `client` paid more than the cheapest peer did on them. The
        compaction row is compared with the peers that compact: one that never does keeps the
        whole history (it would overflow the window the suite plays) and pays for it on the
        later turns, in the other rows (README.md)."""
        ours = self.by_event(client)
        out = []
        for e in EVENTS:
            peers = [self.by_event(c)[e] for c in self.peers() if e != COMPACT or self.compacts(c)]
            if peers and ours[e] > min(peers):
                out.append(e)
        return out

    def to_dict(self) -> dict[str, Any]:
        q = Decimal("0.000001")
        return {
            "scenarios": [s.name for s in self.scenarios],
            "provider": self.scenarios[0].provider if self.scenarios else None,
            "models": sorted({t.model for s in self.scenarios for t in s.turns}),
            "user_turns": sum(len(s.turns) for s in self.scenarios),
            "event_turns": self.event_counts(),
            "clients": {
                c: {
                    "config": self.peer_config.get(c, ""),
                    "compacts": self.compacts(c),
                    "total": str(self.total(c).quantize(q)),
                    "requests": sum(len(r.requests) for r in self.runs if r.client == c),
                    "by_event": {e: str(v.quantize(q)) for e, v in self.by_event(c).items()},
                }
                for c in self.clients
            },
            "not_measured": self.missing,
            "best_peer": self.best_peer(),
            "times_cheaper_than_best_peer": {
                c: None if (m := self.margin(c)) is None else str(m.quantize(Decimal("0.01")))
                for c in self.clients
                if c.startswith(OURS)
            },
            "events_where_paid_more_than_best_peer": {
                c: self.worse_events(c) for c in self.clients if c.startswith(OURS)
            },
            "switch_turns_without_context": self.contextless(),
            "prefixlock_notes": [n for r in self.runs if r.client == OURS for n in r.notes],
        }


def _run_one(
    sc: Scenario, client: str, policy: CachePolicy | None, command: Sequence[str], traces: bool
) -> ClientRun:
    """One client through one scenario (a process pool's job: everything in it pickles)."""
    from ..billing.prices import PriceTable
    from .run import run_peer, run_prefixlock

    prices = PriceTable.builtin()
    if policy is not None:
        run = run_prefixlock(sc, prices, policy)
        run.client = client
    else:
        run = run_peer(sc, prices, client, command)
    if not traces:
        run.trace = []  # 50 pairs of full request bodies would not fit in memory
    return run


def run_versus(
    scenarios: Sequence[Scenario],
    peers: Sequence[str],
    python_for: Callable[[str], str],
    *,
    policies: Sequence[tuple[str, CachePolicy]] = (),
    progress: Callable[[str], None] = lambda _line: None,
    jobs: int = 1,
    traces: bool = True,
) -> VersusResult:
    """Each scenario through prefixlock (once per named policy; default: CachePolicy()) and
    through each named peer. `python_for(peer)` gives the interpreter of the peer's venv, or
    raises with the reason it has none. `jobs` > 1 runs that many clients at once, each in its
    own process (every run has its own emulator and clock, so they share nothing); `traces`
    False drops the request bodies a run keeps (`write_traces` needs them)."""
    import concurrent.futures
    import multiprocessing

    from .peers import PEERS
    from .scenario import mark_compactions

    known = {p.name: p for p in PEERS}
    rows = list(policies) or [(OURS, CachePolicy())]
    config = {name: f"prefixlock Agent, guard quotes + {pol}" for name, pol in rows}
    missing: dict[str, str] = {}
    pythons: dict[str, str] = {}
    for name in peers:
        try:
            pythons[name] = python_for(name)
            config[name] = known[name].config
        except Exception as exc:  # a peer without its venv is reported, not measured
            missing[name] = str(exc)
    work: list[tuple[Scenario, str, CachePolicy | None, list[str]]] = []
    for sc in scenarios:
        work.extend((sc, row, pol, []) for row, pol in rows)
        work.extend((sc, name, None, known[name].command(py)) for name, py in pythons.items())
    done: list[ClientRun]
    if jobs <= 1:
        done = []
        for sc, client, pol, cmd in work:
            progress(f"{sc.name}: {client}")
            done.append(_run_one(sc, client, pol, cmd, traces))
    else:
        # spawn, not fork: the parent may hold threads (an emulator's, a ticker's).
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            futures = [pool.submit(_run_one, sc, c, pol, cmd, traces) for sc, c, pol, cmd in work]
            for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                fut.result()
                progress(f"{n}/{len(work)} runs")
            done = [f.result() for f in futures]
    runs: list[ClientRun] = []
    marked: list[Scenario] = []
    per = len(rows) + len(pythons)
    for i, sc in enumerate(scenarios):
        these = done[i * per : (i + 1) * per]
        # Where the first prefixlock row and the peers compacted marks the compaction turns;
        # every client is measured on the same marked turns.
        sc = mark_compactions(sc, {t for r in these[:1] + these[len(rows) :] for t in r.compacted})
        marked.append(sc)
        for run in these:
            run.relabel(sc)
        runs.extend(these)
    return VersusResult(tuple(marked), runs, config, missing)


def write_traces(result: VersusResult, directory: Path) -> list[Path]:
    """Every client's wire requests (body as sent, usage as billed), one JSONL file a client."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for client in result.clients:
        path = directory / f"{client}.jsonl"
        with replacing_text(path) as fh:
            for run in result.runs:
                if run.client == client:
                    for line in run.trace:
                        fh.write(json.dumps(line, sort_keys=True) + "\n")
        out.append(path)
    return out


def render(result: VersusResult, console: Any = None) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    counts = result.event_counts()
    turns = sum(len(s.turns) for s in result.scenarios)
    base = result.scenarios[0].base_model if result.scenarios else ""
    models = [base, *sorted({t.model for s in result.scenarios for t in s.turns} - {base})]
    console.print(
        f"[bold]prefixlock demo --versus peers[/bold]: {len(result.scenarios)} sessions, "
        f"{turns} user turns, on the emulator (cache-aware server, {', '.join(models)})."
    )
    # Short headers, no vertical rules and dollars without "$": six clients fit 80 columns.
    short = short_names(result.clients)
    table = Table(
        title="Dollars paid for the turns of each event type (all sessions)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("event")
    table.add_column("turns", justify="right")
    for c in result.clients:
        table.add_column(short[c], justify="right")

    def cell(c: str, e: str) -> str:
        never = e == COMPACT and not c.startswith(OURS) and not result.compacts(c)
        return f"{result.by_event(c)[e]:.4f}" + ("*" if never else "")

    for e in EVENTS:
        if counts[e]:
            table.add_row(e, str(counts[e]), *(cell(c, e) for c in result.clients))
    table.add_row(
        "total", str(turns), *(f"{result.total(c):.4f}" for c in result.clients), style="bold"
    )
    console.print(table)
    for c in result.clients:
        console.print(f"  {short[c]} = {c}: {result.peer_config.get(c, '')}")
    if counts[COMPACT] and any(not result.compacts(c) for c in result.peers()):
        console.print("  * never compacts (keeps the whole history); not compared on that row")
    for name, why in result.missing.items():
        console.print(f"[yellow]not measured[/yellow] {name}: {why}")
    for name, where in result.contextless().items():
        console.print(
            f"[red]not the same work[/red] {name} ran {len(where)} switched turn(s) without the "
            f"conversation (a real model could not answer them): {', '.join(where[:5])}"
        )
    best = result.best_peer()
    for c in result.clients:
        margin = result.margin(c)
        if c.startswith(OURS) and margin is not None and best is not None:
            worse = result.worse_events(c)
            console.print(
                f"{c} ${result.total(c):.4f} vs the cheapest peer ({best}) "
                f"${result.total(best):.4f}: {margin:.2f}x cheaper; "
                + (f"paid more on: {', '.join(worse)}" if worse else "never more on any event type")
            )

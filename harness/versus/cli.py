"""The `prefixlock demo --versus peers` command: checks its flags, builds the peers' venvs,
runs the suite, prints the table (or JSON) and writes the traces."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def run_versus_command(args: argparse.Namespace) -> int:
    from ..billing.prices import PriceTable
    from ..cli.demo import trace_dir
    from ..emulator import BUILTIN_PROMPTS
    from ..errors import ConfigError
    from ..guard.policy import CachePolicy, extended_retention
    from .peers import PEERS, peers_of
    from .peers.envs import python_for
    from .report import render, run_versus, write_traces
    from .scenario import PACINGS, PROVIDER_MODELS, on_provider, pair_seeds, seed_range, suite
    from .spread import render_spread, spread

    if args.proxy:
        raise ConfigError("not available with --versus", where="--proxy")
    if args.provider not in PROVIDER_MODELS:
        raise ConfigError(
            f"--versus runs on {' or '.join(PROVIDER_MODELS)}, not {args.provider!r}",
            where="--provider",
        )
    known = {p.name: p for p in PEERS}
    mine = {p.name: p for p in peers_of(args.provider)}
    names = [n.strip() for n in (args.peers or ",".join(mine)).split(",") if n.strip()]
    for n in names:
        if n not in known:
            raise ConfigError(
                f"unknown peer {n!r}; the {args.provider} peers are: {', '.join(mine)}",
                where="--peers",
            )
        if n not in mine:
            raise ConfigError(
                f"peer {n!r} speaks {known[n].provider}, not {args.provider}; the "
                f"{args.provider} peers are: {', '.join(mine)}",
                where="--peers",
            )
    base_model = PROVIDER_MODELS[args.provider][0]
    long_option = "24h" if extended_retention(PriceTable.builtin().require(base_model)) else "1h"
    if args.idle in ("1h", "24h") and args.idle != long_option:
        raise ConfigError(
            f"idle {args.idle!r} is not available on {base_model}: its long option is "
            f"{long_option!r}",
            where="--idle",
        )
    if args.pairs is not None and args.pairs < 1:
        raise ConfigError(f"--pairs must be 1 or more, not {args.pairs}", where="--pairs")
    if args.seeds is not None:
        if args.pairs is not None:
            raise ConfigError("give --pairs or --seeds, not both", where="--seeds")
        try:
            seeds = seed_range(args.seeds)
        except ValueError as e:
            raise ConfigError(str(e), where="--seeds") from None
    else:
        seeds = pair_seeds(args.pairs or 1)
    if args.jobs < 0:
        raise ConfigError(f"--jobs must be 0 (the CPUs) or more, not {args.jobs}", where="--jobs")
    out = trace_dir(args.trace_dir) if args.trace_dir else None

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def python(name: str) -> str:
        say(f"venv of {name} (built with pip on first use)")
        return str(python_for(known[name]))

    # prefixlock as an Agent with this policy (no --idle, no --switch: the default one).
    rows = [("prefixlock", CachePolicy(idle=args.idle, switch=args.switch))]
    scenarios = tuple(
        on_provider(s, args.provider)
        for s in suite(tuple(BUILTIN_PROMPTS), seeds=seeds, gaps=PACINGS[args.pacing])
    )
    jobs = args.jobs or os.cpu_count() or 1
    started = time.monotonic()
    result = run_versus(
        scenarios,
        names,
        python,
        policies=rows,
        progress=lambda line: say(f"running {line}"),
        jobs=jobs,
        traces=out is not None,
    )
    wall = time.monotonic() - started
    groups = [scenarios[i : i + 2] for i in range(0, len(scenarios), 2)]
    margins = spread(result, [[s.name for s in g] for g in groups])
    if out is not None:
        write_traces(result, Path(out))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.json:
        data = result.to_dict()
        data["seeds"] = list(seeds)
        data["pacing"] = args.pacing
        data["spread"] = margins.to_dict()
        data["wall_seconds"] = round(wall, 1)
        print(json.dumps(data, indent=2))
    else:
        from rich.console import Console

        console = Console()
        render(result, console)
        if len(seeds) > 2:
            render_spread(margins, console)
        console.print(
            f"seeds {seeds[0]}-{seeds[-1]}, {args.pacing} pacing; {len(result.runs)} runs in "
            f"{wall:.0f} s with {jobs} processes (load average {load:.2f})"
        )
        if out is not None:
            print(f"wire traces written to {out} (one JSONL file a client)")
    return 0

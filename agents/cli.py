"""`prefixlock agents list | show NAME | advise ...`: the agent definitions and the advisor."""

from __future__ import annotations

import argparse

from prefixlock.cli.command import Command


def _configure(p: argparse.ArgumentParser) -> None:
    from prefixlock.cache.anthropic import ttl_seconds

    p.add_argument(
        "--root",
        default=".",
        help="project root (reads .prefixlock/agents and "
        ".claude/agents under it; default: the current directory)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    sub = p.add_subparsers(dest="agents_cmd", metavar="ACTION")
    sub.add_parser("list", help="list the agent definitions and where each comes from")
    show = sub.add_parser("show", help="show one agent definition")
    show.add_argument("name", help="the agent's name (see `prefixlock agents list`)")
    adv = sub.add_parser(
        "advise", help="should a task run in a subagent? both costs, the break-even, a verdict"
    )
    adv.add_argument(
        "--parent-model",
        default="claude-opus-4-7",
        help="the parent session's model (default claude-opus-4-7)",
    )
    adv.add_argument(
        "--context", type=int, required=True, help="tokens of the parent's cached context"
    )
    adv.add_argument(
        "--ttl-left",
        type=float,
        default=ttl_seconds(None),  # a fresh write at the default TTL
        help="seconds the parent's cache stays warm (0: cold)",
    )
    adv.add_argument(
        "--later-turns",
        type=int,
        default=10,
        help="parent turns after the task (they re-read what it appended)",
    )
    need = adv.add_mutually_exclusive_group(required=True)
    need.add_argument("--task-context", type=int, help="tokens of the parent context it needs")
    need.add_argument(
        "--task-share", type=float, help="share of the parent context it needs (0..1)"
    )
    adv.add_argument("--new", type=int, default=10_000, help="new tokens the task brings in")
    adv.add_argument(
        "--turns", type=int, default=4, help="model requests the task takes (default 4)"
    )
    adv.add_argument("--output", type=int, default=1_000, help="output tokens over the task")
    adv.add_argument("--summary", type=int, default=500, help="tokens of the returned summary")
    adv.add_argument("--duration", type=float, default=0.0, help="seconds the task runs")
    adv.add_argument(
        "--model", default=None, help="subagent model (default: the agent's model, else haiku)"
    )
    adv.add_argument("--agent", default=None, help="take the model and prefix from this agent")
    adv.add_argument(
        "--prefix-tokens",
        type=int,
        default=None,
        help="the subagent's prefix tokens (default: the agent's, else 2000)",
    )
    adv.add_argument("--prices", metavar="FILE", help="a JSON price file over the built-in one")


def _run(args: argparse.Namespace) -> int:
    import json

    from prefixlock.errors import UserError

    from .registry import AgentRegistry

    action = args.agents_cmd or "list"
    from pathlib import Path

    if not Path(args.root).is_dir():  # a typo would otherwise list no agents, exit 0
        what = "no such folder" if not Path(args.root).exists() else "not a folder"
        raise UserError(f"{what}: {args.root}", where="--root")
    reg = AgentRegistry.discover(args.root)
    if action == "list":
        if args.json:
            print(json.dumps([d.to_dict() for d in reg], indent=2))
        else:
            for d in reg:
                tools = "inherit" if d.tools is None else ",".join(d.tools)
                print(f"{d.name:<16} {d.model or 'inherit':<18} {d.origin:<8} tools={tools}")
                print(f"{'':<16} {d.description}")
        for w in reg.warnings:
            print(f"warning: {w}")
        return 0
    if action == "show":
        d = reg.get(args.name)
        if args.json:
            print(json.dumps({**d.to_dict(), "system": d.system}, indent=2))
            return 0
        for key, value in d.to_dict().items():
            if key != "extra" or value:
                print(f"{key}: {value}")
        print("---")
        print(d.system)
        return 0
    if action == "advise":
        return _advise(args, reg)
    raise UserError(f"unknown action {action!r}", where="agents")


def _advise(args: argparse.Namespace, reg: object) -> int:
    import json

    from prefixlock.billing.prices import PriceTable
    from prefixlock.errors import UserError
    from prefixlock.guard.economics import ParentState, SubagentPlan, TaskProfile, advise
    from prefixlock.prefix import FrozenPrefix

    from .registry import AgentRegistry

    assert isinstance(reg, AgentRegistry)
    table = PriceTable.default(args.prices)
    model = args.model
    prefix_tokens = args.prefix_tokens
    if args.agent:
        d = reg.get(args.agent)
        model = model or d.model or args.parent_model
        if prefix_tokens is None:
            prefix_tokens = FrozenPrefix(system=d.system).tokens + 150 * len(d.tools or ())
    model = model or "haiku"
    if args.context <= 0:
        raise UserError("must be a positive number of tokens", where="--context")
    # Negative counts would price as negative dollars: refuse them by the flag's name.
    for flag, value, least in (
        ("--turns", args.turns, 1),
        ("--new", args.new, 0),
        ("--output", args.output, 0),
        ("--summary", args.summary, 0),
        ("--duration", args.duration, 0),
        ("--ttl-left", args.ttl_left, 0),
        ("--later-turns", args.later_turns, 0),
        ("--prefix-tokens", prefix_tokens if args.prefix_tokens is not None else 0, 0),
    ):
        if value < least:
            raise UserError(f"must be at least {least} (got {value})", where=flag)
    if args.task_share is not None:
        if not 0 <= args.task_share <= 1:
            raise UserError("must be between 0 and 1", where="--task-share")
        needed = round(args.context * args.task_share)
    else:
        needed = args.task_context
        if not 0 <= needed <= args.context:
            raise UserError(
                f"must be between 0 and --context ({args.context:,})", where="--task-context"
            )
    parent = ParentState(
        args.parent_model,
        table.require(args.parent_model),
        args.context,
        args.ttl_left,
        args.later_turns,
    )
    task = TaskProfile(needed, args.new, args.turns, args.output, args.summary, args.duration)
    sub = SubagentPlan(
        table.resolve(model), table.require(model), 2000 if prefix_tokens is None else prefix_tokens
    )
    a = advise(parent, task, sub)
    if args.json:
        print(json.dumps(a.to_dict(), indent=2))
        return 0
    print(f"in the parent ({a.parent_model}): ${a.parent_cost:.4f}")
    for k, v in a.parent_items.items():
        print(f"  {k:<34} ${v:.4f}")
    print(f"in a subagent ({a.subagent_model}): ${a.subagent_cost:.4f}")
    for k, v in a.subagent_items.items():
        print(f"  {k:<34} ${v:.4f}")
    sign = "-" if a.difference < 0 else ""
    print(f"difference (saved by delegating): {sign}${abs(a.difference):.4f}")
    print(a.reason)
    return 0


COMMAND = Command("subagent definitions and the delegation advisor", _configure, _run, order=60)

"""`prefixlock sessions list | show ID | export ID --jsonl [-o FILE]`: the store from the shell.

The store is opened read-only: listing, showing or exporting never changes it. A corrupted or
newer-schema store, a missing one for `show` or `export`, and an unknown session id are user
errors (one line, exit 2); `list` on a missing store lists no sessions (exit 0).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..cli.command import Command

if TYPE_CHECKING:
    from decimal import Decimal


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        metavar="PATH",
        help="the session store (default: $PREFIXLOCK_STORE, else prefixlock/sessions.sqlite under "
        "$XDG_DATA_HOME or ~/.local/share)",
    )
    sub = p.add_subparsers(dest="sessions_command", metavar="ACTION")
    ls = sub.add_parser("list", help="list stored sessions")
    ls.add_argument("--json", action="store_true", help="print JSON")
    show = sub.add_parser("show", help="one session: figures and every request")
    show.add_argument("id", help="session id")
    show.add_argument("--json", action="store_true", help="print JSON")
    exp = sub.add_parser("export", help="export a session as a JSONL trace")
    exp.add_argument("id", help="session id")
    exp.add_argument("--jsonl", action="store_true", help="JSONL trace format (the default)")
    exp.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def _run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from ..errors import UserError
    from .database import SessionStore, default_path
    from .errors import UnknownSessionError

    action = getattr(args, "sessions_command", None)
    if action is None:
        raise UserError("choose an action: list, show ID or export ID --jsonl", where="sessions")
    path = Path(args.store).expanduser() if args.store else default_path()
    if action == "list" and not path.exists():
        # --json promises JSON to a script: an empty list, not the sentence.
        print("[]" if args.json else f"no sessions yet (no store at {path})")
        return 0
    store = SessionStore(path, read_only=True)
    try:
        if action == "list":
            records = store.sessions()
            # A session's own requests are not all it cost: its subagents' runs are charged
            # to it too, so the list shows them and the total.
            sub_costs = {r.id: _subagent_cost(store.subagents(r.id)) for r in records}
            if args.json:
                print(json.dumps([_record_dict(r, sub_costs[r.id]) for r in records], indent=2))
                return 0
            if not records:
                print(f"no sessions in {store.path}")
                return 0
            print(
                f"{'id':<36} {'model':<22} {'turns':>5} {'reqs':>5} {'hit':>6} {'cost':>10} "
                f"{'subagents':>10} {'total':>10}"
            )
            for r in records:
                sub = sub_costs[r.id]
                total = None if sub is None else r.cost + sub
                print(
                    f"{r.id:<36} {r.model:<22} {r.turns:>5} {r.requests:>5} "
                    f"{r.hit_rate:>6.1%} {_money(r.cost):>10} {_money(sub):>10} "
                    f"{_money(total):>10}"
                )
            return 0
        if action == "show":
            rec = store.session(args.id)
            reqs = list(store.requests(args.id))
            subs = store.subagents(args.id)
            sub_cost = _subagent_cost(subs)
            total = None if sub_cost is None else rec.cost + sub_cost
            if args.json:
                out = _record_dict(rec, sub_cost)
                out["requests"] = [
                    {
                        "seq": q.seq,
                        "turn": q.turn,
                        "kind": q.kind,
                        "model": q.model,
                        "usage": q.usage.to_dict(),
                        "cost": None if q.cost is None else str(q.cost),
                        "predicted_read": q.predicted_read,
                        "cause": q.cause,
                        "rebilled": q.rebilled,
                        "detail": q.detail,
                    }
                    for q in reqs
                ]
                out["subagents"] = subs
                print(json.dumps(out, indent=2))
                return 0
            print(f"session {rec.id}")
            print(f"  model {rec.model} ({rec.provider}, {rec.api})")
            print(f"  prefix {rec.prefix_fingerprint}, epoch {rec.epoch}")
            print(
                f"  {rec.turns} turns, {rec.requests} requests, hit rate {rec.hit_rate:.1%}, "
                f"cost {_money(rec.cost)} + subagents {_money(sub_cost)} "
                f"= total {_money(total)}"
            )
            print(
                f"  {'seq':>4} {'turn':>4} {'kind':<8} {'model':<20} {'read':>8} {'write':>8} "
                f"{'uncached':>8} {'cost':>10}  cause"
            )
            for q in reqs:
                u = q.usage
                cost = "unpriced" if q.cost is None else f"${q.cost:.4f}"
                cause = f"{q.cause} ({q.rebilled} re-billed)" if q.cause else ""
                print(
                    f"  {q.seq:>4} {q.turn:>4} {q.kind:<8} {q.model:<20} {u.cache_read:>8} "
                    f"{u.cache_write:>8} {u.uncached_input:>8} {cost:>10}  {cause}"
                )
            if subs:
                _print_subagents(subs)
            return 0
        if action == "export":
            store.session(args.id)  # unknown id: error before any file is touched
            if not args.output:
                store.export_jsonl(args.id, sys.stdout)
                return 0
            target = Path(args.output)
            if target.is_dir():
                raise UserError("is a directory; name the file to write", where=str(target))
            from ..atomicfile import replacing_text

            try:
                with replacing_text(target) as fh:
                    n = store.export_jsonl(args.id, fh)
            except OSError as exc:
                raise UserError(
                    f"cannot write the export: {exc.strerror or exc}", where=str(target)
                ) from None
            print(f"wrote {n} requests to {target}", file=sys.stderr)
            return 0
    except UnknownSessionError:
        raise
    finally:
        store.close()
    raise UserError(f"unknown action {action!r}", where="sessions")


def _print_subagents(subs: list[dict[str, object]]) -> None:
    """The subagent runs charged to the session: tokens, own hit rate, cost, compression."""
    from decimal import Decimal

    from ..delegation import DelegationResult

    runs = [DelegationResult.from_dict(d) for d in subs]
    costs = [r.cost for r in runs]
    total = None if None in costs else sum((c for c in costs if c is not None), Decimal(0))
    money = "unpriced" if total is None else f"${total:.4f}"
    print(f"  subagents: {len(runs)} runs, cost {money}")
    print(
        f"  {'turn':>4} {'name':<14} {'model':<20} {'input':>8} {'output':>7} {'hit':>6} "
        f"{'cost':>10} {'compr':>7}  error"
    )
    for d, r in zip(subs, runs, strict=True):
        cost = "unpriced" if r.cost is None else f"${r.cost:.4f}"
        print(
            f"  {d.get('turn', ''):>4} {r.name:<14} {r.model:<20} {r.usage.input_total:>8} "
            f"{r.usage.output:>7} {r.hit_rate:>6.1%} {cost:>10} {r.compression:>6.1f}x  "
            f"{r.error or ''}"
        )


def _subagent_cost(subs: list[dict[str, object]]) -> Decimal | None:
    """What a session's subagent runs cost together (None: one of them is unpriced)."""
    from decimal import Decimal

    total = Decimal(0)
    for d in subs:
        cost = d.get("cost")
        if cost is None:
            return None
        total += Decimal(str(cost))
    return total


def _money(amount: Decimal | None) -> str:
    return "unpriced" if amount is None else f"${amount:.4f}"


def _record_dict(r: object, subagent_cost: Decimal | None) -> dict[str, object]:
    from .records import SessionRecord

    assert isinstance(r, SessionRecord)
    total = None if subagent_cost is None else r.cost + subagent_cost
    return {
        "id": r.id,
        "model": r.model,
        "provider": r.provider,
        "api": r.api,
        "created": r.created,
        "updated": r.updated,
        "turns": r.turns,
        "requests": r.requests,
        "hit_rate": round(r.hit_rate, 4),
        "cost": str(r.cost),  # the session's own requests
        "subagent_cost": None if subagent_cost is None else str(subagent_cost),
        "total_cost": None if total is None else str(total),
        "prefix_fingerprint": r.prefix_fingerprint,
    }


COMMAND = Command("list, show and export stored sessions", _configure, _run, order=30)

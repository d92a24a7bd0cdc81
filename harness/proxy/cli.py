"""`prefixlock proxy [--port P] [--upstream anthropic|openai|URL] [--fix [LIST]]` and
`prefixlock proxy --stats`: run the cache proxy, or show what it recorded in the store.

Light at import: the server, the SDK-free HTTP client and the store load when the command runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..cli.command import Command

if TYPE_CHECKING:
    from .server import ProxyConfig
    from .team import Budgets


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=int, default=8787, help="port to listen on (default 8787)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--upstream",
        default="anthropic",
        metavar="anthropic|openai|URL",
        help="where requests go: the provider's API, or a base URL such as the emulator's",
    )
    p.add_argument(
        "--fix",
        nargs="?",
        const="",
        default=None,
        metavar="LIST",
        help="repair cache hints: cache-key,breakpoints,second-breakpoint (the default), "
        "keepalive, or all",
    )
    p.add_argument(
        "--store",
        metavar="PATH|URL",
        help="the session store to record to (default: $PREFIXLOCK_STORE, else "
        "prefixlock/sessions.sqlite under $XDG_DATA_HOME or ~/.local/share), or "
        "postgresql://... shared by several proxy instances",
    )
    p.add_argument("--no-store", action="store_true", help="record nothing to the store")
    p.add_argument("--trace", metavar="FILE", help="append every request to FILE (JSONL trace)")
    p.add_argument(
        "--stats", action="store_true", help="show the proxy's sessions recorded in the store"
    )
    p.add_argument("--json", action="store_true", help="with --stats: print JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per request on stderr")
    p.add_argument(
        "--otel",
        action="store_true",
        help="export a span per request over OTLP/HTTP, where the standard "
        "OTEL_EXPORTER_OTLP_* variables say (default http://localhost:4318; needs [otel])",
    )
    limits = p.add_argument_group("limits and timeouts (seconds, bytes)")
    for flag, default, what in _LIMITS:
        limits.add_argument(
            flag,
            type=int if flag.startswith("--max") else float,
            default=default,
            metavar="N",
            help=f"{what} (default {default:,})",
        )

    team = p.add_argument_group("a team's budgets (dollars per UTC day)")
    team.add_argument("--budget-key", metavar="DOLLARS", help="per API key (by its hash)")
    team.add_argument(
        "--budget-user", metavar="DOLLARS", help="per user (the x-prefixlock-user header)"
    )
    team.add_argument(
        "--budget-warn",
        action="store_true",
        help="over a budget, forward and warn (an x-prefixlock-budget header) instead of "
        "refusing with 429",
    )


# (flag, default, help): each is a ProxyConfig field of the same name.
_LIMITS = [
    ("--connect-timeout", 10.0, "to connect to the upstream"),
    ("--read-timeout", 600.0, "to wait for the upstream's next bytes"),
    ("--total-timeout", 1800.0, "for a whole exchange, streamed answer included"),
    ("--max-body", 32 * 1024 * 1024, "largest request body, refused 413 before it is read"),
    ("--max-head", 64 * 1024, "largest request head, refused 431"),
    ("--header-timeout", 15.0, "for a client to send a request head"),
    ("--body-timeout", 30.0, "between two parts of a request body"),
    ("--idle-timeout", 30.0, "an idle keep-alive connection stays open"),
]


def _run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError

    if args.stats:
        return _stats(args)
    from .repair import FixError, parse_fixes
    from .server import ProxyConfig, upstream_url

    try:
        fixes = parse_fixes(args.fix) if args.fix is not None else frozenset()
    except FixError as exc:
        raise ConfigError(str(exc), where="--fix") from None
    if not 0 <= args.port < 65536:
        raise ConfigError("must be between 0 and 65535", where="--port")
    upstream_url(args.upstream)
    limits = {}
    for flag, _, _ in _LIMITS:
        name = flag[2:].replace("-", "_")
        value = getattr(args, name)
        if not value > 0:
            raise ConfigError("must be above 0", where=flag)
        limits[name] = value
    config = ProxyConfig(
        upstream=args.upstream,
        fixes=fixes,
        host=args.host,
        port=args.port,
        trace=args.trace,
        **limits,
    )
    return _serve(config, args, _budgets(args))


def _budgets(args: argparse.Namespace) -> Budgets:
    from decimal import Decimal, InvalidOperation

    from ..errors import ConfigError
    from .team import Budgets

    limits: dict[str, Decimal | None] = {}
    for flag in ("--budget-key", "--budget-user"):
        raw = getattr(args, flag[2:].replace("-", "_"))
        try:
            value = None if raw is None else Decimal(raw)
        except InvalidOperation:
            raise ConfigError(f"not a dollar amount: {raw!r}", where=flag) from None
        if value is not None and not (value.is_finite() and value > 0):
            raise ConfigError("must be a dollar amount above 0", where=flag)
        limits[flag] = value
    return Budgets(limits["--budget-key"], limits["--budget-user"], refuse=not args.budget_warn)


def _serve(config: ProxyConfig, args: argparse.Namespace, budgets: Budgets) -> int:
    import sys

    from ..errors import ConfigError
    from ..store.database import SessionStore
    from ..store.postgres import PostgresStore, is_url
    from .server import Proxy

    tracer, flush = None, None
    if args.otel:
        from .otel import otlp_tracer

        tracer, flush = otlp_tracer()
    store: SessionStore | PostgresStore | None = None
    if not args.no_store:
        store = PostgresStore(args.store) if is_url(args.store) else SessionStore(args.store)

    def line(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    try:
        proxy = Proxy.start(
            config,
            store=store,
            on_observed=line,
            budgets=budgets,
            tracer=tracer,
            on_error=lambda text: print(text, file=sys.stderr, flush=True),
        )
    except OSError as exc:
        if store is not None:
            store.close()
        if flush is not None:
            flush()
        raise ConfigError(
            f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}", where="--port"
        ) from None
    fixes = ",".join(sorted(config.fixes)) or "none (observe only)"
    print(
        f"prefixlock proxy on {proxy.base_url} -> {proxy.upstream}; repairs: {fixes}.\n"
        f"  Anthropic clients: ANTHROPIC_BASE_URL={proxy.base_url}   "
        f"OpenAI clients: OPENAI_BASE_URL={proxy.openai_base_url}   "
        f"dashboard: {proxy.base_url}/dashboard",
        file=sys.stderr,
        flush=True,
    )
    try:
        proxy.wait()
    except KeyboardInterrupt:
        pass
    finally:
        proxy.close()
        if store is not None:
            store.close()
        if flush is not None:
            flush()  # the spans still batched go out before the command ends
    return 0


def _stats(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.database import SessionStore, default_path
    from ..store.postgres import PostgresStore, is_url

    if is_url(args.store):
        with PostgresStore(args.store) as shared:
            return _show(args, shared.stats(), "the PostgreSQL store")
    path = Path(args.store).expanduser() if args.store else default_path()
    if not path.exists():
        print("[]" if args.json else f"no proxy sessions yet (no store at {path})")
        return 0
    rows: list[dict[str, Any]] = []
    with SessionStore(path, read_only=True) as store:
        for record in store.sessions():
            if record.meta.get("source") != "proxy":
                continue
            usage = store.usage_rows(record.id)
            saved = sum(
                (r.cost_without_cache - r.cost)
                for r in usage
                if r.cost is not None and r.cost_without_cache is not None
            )
            breaks: dict[str, int] = {}
            for r in usage:
                if r.cause is not None:
                    breaks[r.cause] = breaks.get(r.cause, 0) + r.rebilled
            rows.append(
                {
                    "session_id": record.id,
                    "model": record.model,
                    "api": record.api,
                    "requests": record.requests,
                    "hit_rate": round(record.hit_rate, 4),
                    "cost": str(record.cost),
                    "saved": str(saved),
                    "breaks": breaks,
                }
            )
    return _show(args, rows, str(path))


def _show(args: argparse.Namespace, rows: list[dict[str, Any]], where: str) -> int:
    import json

    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no proxy sessions in {where}")
        return 0
    print(
        f"{'session':<20} {'model':<22} {'reqs':>5} {'hit':>6} {'cost':>10} {'saved':>10}  breaks"
    )
    for row in rows:
        causes = ", ".join(f"{c} ({t:,} tok)" for c, t in sorted(row["breaks"].items())) or "-"
        print(
            f"{row['session_id']:<20} {row['model']:<22} {row['requests']:>5} "
            f"{row['hit_rate']:>6.1%} ${float(row['cost']):>9.4f} ${float(row['saved']):>9.4f}  "
            f"{causes}"
        )
    return 0


COMMAND = Command(
    "a local proxy that measures, and with --fix repairs, other agents' prompt caching",
    _configure,
    _run,
    order=35,
)

"""`prefixlock serve`: run the local provider emulator until interrupted."""

from __future__ import annotations

import argparse
import sys

from ..command import Command


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="emulator config (YAML or JSON)")
    p.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8787; 0 = any free)")
    p.add_argument("--script", metavar="FILE", help="scripted model replies (YAML or JSON)")
    p.add_argument(
        "--crude",
        action="store_true",
        help="a careless server: random routing, small cache capacity",
    )


def _run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from .config import EmulatorConfig
    from .server import Emulator

    config = EmulatorConfig.load(args.config) if args.config else EmulatorConfig(port=8787)
    if args.crude:
        config = EmulatorConfig.crude(**config.model_dump(exclude={"anthropic", "openai"}))
    updates: dict[str, object] = {}
    if args.host is not None:
        updates["host"] = args.host
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise ConfigError("must be between 0 and 65535", where="--port")
        updates["port"] = args.port
    if args.script is not None:
        updates["script"] = args.script
    if config.keep_requests is None:
        updates["keep_requests"] = 1000  # a long-running server must not grow without bound
    if updates:
        config = config.model_copy(update=updates)
    emu = Emulator(config)
    try:
        emu.serve_in_background()
    except OSError as exc:
        raise ConfigError(
            f"cannot listen: {exc.strerror}", where=f"{config.host}:{config.port}"
        ) from None
    print(f"prefixlock emulator on {emu.base_url}", flush=True)
    print(f"  Anthropic: ANTHROPIC_BASE_URL={emu.base_url}", flush=True)
    print(f"  OpenAI:    OPENAI_BASE_URL={emu.openai_base_url}", flush=True)
    print("  any non-empty API key is accepted; Ctrl-C to stop", flush=True)
    import time

    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        emu.close()
    return 0


SERVE_COMMAND = Command(
    help="run the local provider emulator (Anthropic + OpenAI wire formats, real cache rules)",
    configure=_configure,
    run=_run,
    order=60,
)

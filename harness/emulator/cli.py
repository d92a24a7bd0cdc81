"""`prefixlock serve`: run the local provider emulator until interrupted."""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from typing import TYPE_CHECKING, Any

from ..cli.command import Command

if TYPE_CHECKING:
    from .config import EmulatorConfig

DEFAULT_PORT = 8787


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="emulator config (YAML or JSON)")
    p.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"port (default: the config file's, else {DEFAULT_PORT}; 0 = any free)",
    )
    p.add_argument(
        "--script",
        metavar="FILE",
        help="scripted model replies (YAML or JSON: rules of steps by turn or by matching the "
        "user's text; the format is in prefixlock.emulator.Script's docstring)",
    )
    p.add_argument(
        "--crude",
        action="store_true",
        help="a careless server: random routing, small cache capacity",
    )


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def config_from_args(args: argparse.Namespace) -> EmulatorConfig:
    """The configuration `prefixlock serve` runs with: the file, then the flags over it."""
    from ..errors import ConfigError
    from .config import EmulatorConfig

    config = EmulatorConfig.load(args.config) if args.config else EmulatorConfig()
    if "port" not in config.model_fields_set:
        # A file that names no port gets the same fixed port as no file at all, so the printed
        # ANTHROPIC_BASE_URL stays the same from one run to the next.
        config = config.model_copy(update={"port": DEFAULT_PORT})
    if args.crude:
        # The crude server's routing and capacity, over whatever else the file set.
        crude = EmulatorConfig.crude().model_dump(
            include={"anthropic", "openai"}, exclude_unset=True
        )
        config = EmulatorConfig.model_validate(_merged(config.model_dump(), crude))
    updates: dict[str, object] = {}
    if args.host is not None:
        if not args.host.strip():  # "" would bind every interface, not refuse
            raise ConfigError("empty address (e.g. 127.0.0.1)", where="--host")
        updates["host"] = args.host
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise ConfigError("must be between 0 and 65535", where="--port")
        updates["port"] = args.port
    if args.script is not None:
        updates["script"] = args.script
    if config.keep_requests is None:
        updates["keep_requests"] = 1000  # a long-running server must not grow without bound
    return config.model_copy(update=updates) if updates else config


def _check_free(host: str, port: int) -> None:
    """OSError when `host:port` cannot be bound (a port in use), tried as the server binds it
    (address reuse on, as http.server sets it); port 0 picks a free one."""
    if port == 0:
        return
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def _run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from .server import Emulator

    config = config_from_args(args)
    emu = Emulator(config)
    try:
        _check_free(config.host, config.port)  # before the server half-builds itself
        emu.serve_in_background()
    except OSError as exc:
        hint = " (pick another with --port)" if exc.errno == errno.EADDRINUSE else ""
        raise ConfigError(
            f"cannot listen: {exc.strerror or exc}{hint}", where=f"{config.host}:{config.port}"
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

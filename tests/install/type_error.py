"""Must NOT type-check: proves `.ci/install-check`'s mypy sees prefixlock's real types (with no
py.typed marker every import would be untyped, and this line would pass as Any)."""

from __future__ import annotations

from prefixlock import FrozenPrefix

prefix: int = FrozenPrefix(system="x")

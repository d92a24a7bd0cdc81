"""Which command sandboxes this machine can run, for tests that run commands.

`MODES` holds "off" always and "bwrap" where bubblewrap works (skipped with its reason where it
does not), so a test of plain command behaviour runs under every mode the machine has."""

from __future__ import annotations

import pytest

from prefixlock.coding.sandbox import bwrap_problem

BWRAP_PROBLEM = bwrap_problem()
needs_bwrap = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"{BWRAP_PROBLEM}")
MODES = [pytest.param("bwrap", marks=needs_bwrap), "off"]

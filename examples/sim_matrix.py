"""Client style x server design: hit rate and dollars per cell (as `prefixlock sim matrix` prints).

The same synthetic agent sessions, sent by a careful client (stable prefix) and by three sloppy
ones (timestamp in the system prompt, shuffled tools, a mid-session model switch), against a
cache-aware server and a crude one. The last line is the measured claim: how many times more
each other cell costs than a tight client on a good server.
"""

from __future__ import annotations

from prefixlock.sim.matrix import run_matrix, summary
from prefixlock.sim.synthetic import Workload

cells = run_matrix(Workload(sessions=30, turns=12, seed=1), price="claude-sonnet-4-6")
print(f"{'client style':>15} {'server':>12} {'hit':>7} {'dollars':>9}")
for c in cells:
    print(f"{c.style:>15} {c.server:>12} {c.hit_rate:7.1%} {c.dollars:9.2f}")
print("relative cost:", ", ".join(f"{k} {v:.1f}x" for k, v in summary(cells).items()))

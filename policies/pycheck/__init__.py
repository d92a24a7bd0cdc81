"""Python source checks: follow volatile and unordered values into prompt and tool construction.

A small taint analysis over the AST, one module per analysis:

- `taint`: the taints of expressions (sources, propagation, summaries of same-module calls);
- `flow`: the taints through statements and function bodies;
- `sinks`: where values become the cached prefix; reports PL101-PL106 and PL201-PL203;
- `layout`: the order of a prompt's stable and changing pieces (PL301, PL302);
- `templates`: a module-level system prompt template whose slots, named for a volatile value,
  are filled in another module (PL101-PL106 at the slot);
- `servercut`, `stepstate`, `retrieved`, `recalled`: a cut asked of the server (PL303), the
  current step, what was retrieved or what a memory read this turn written into the system
  prompt (PL304);
- `instancemode`, `measured`: findings dropped (a mode fixed per instance, a request built to
  be measured);
- `breakpoints`: Anthropic cache_control and OpenAI gpt-5.6 breakpoints in literal requests
  (PL401-PL403, PL405-PL408);
- `fixes`: the source fixes (sorted(), sort_keys=True, moving a volatile line out of a prompt);
- `context` and `syntax`: what they share; `analyzer`: the driver (PL901, PL903).

The rules' documentation is in `prefixlock.policies.rules`. Pure: text in, findings out.
"""

from .analyzer import check_python

__all__ = ["check_python"]

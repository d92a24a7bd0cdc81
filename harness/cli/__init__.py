"""The command-line entry points: the `prefixlock` console script (`main`), its subcommand shape
(`command`), `prefixlock run` and `models` (`run`) and `prefixlock demo` (`demo`). Each
product's own subcommand lives beside it (`prefixlock.sim.cli`, `prefixlock.proxy.cli`, ...)
and registers through the `prefixlock.commands` entry points. Nothing in the SDK core imports
this package."""

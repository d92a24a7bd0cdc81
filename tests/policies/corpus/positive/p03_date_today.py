from datetime import date

from harness import FrozenPrefix


def make_prefix(tools):
    return FrozenPrefix(system=f"Today's date is {date.today().isoformat()}.", tools=tools)

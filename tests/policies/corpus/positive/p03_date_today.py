from datetime import date

from prefixlock import FrozenPrefix


def make_prefix(tools):
    return FrozenPrefix(system=f"Today's date is {date.today().isoformat()}.", tools=tools)

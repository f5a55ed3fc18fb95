"""One module per bug family. Each turns the machine's results into findings; none prints."""
from . import barriers, cp_async, shared_race, unsupported

FAMILIES = (unsupported, cp_async, shared_race, barriers)


def run_all(result, path: str) -> list:
    out = []
    for family in FAMILIES:
        out.extend(family.check(result, path))
    out.sort(key=lambda f: (f.line, f.col, f.rule.code))
    return out

"""One module per bug family. Each turns the machine's results into findings; none prints."""
from . import barriers, cluster, cp_async, mbarrier, shared_race, tcgen05_fence, unsupported
from . import resources

FAMILIES = (unsupported, cp_async, shared_race, barriers, mbarrier, tcgen05_fence, cluster)


def run_all(result, path: str, kernel=None, strict=()) -> list:
    """`strict`: the opt-in readings to apply (mbarrier.STRICT: "lapping", "proxy")."""
    out = []
    for family in FAMILIES:
        out.extend(f for f in family.check(result, path)
                   if f.rule.code not in mbarrier.STRICT or mbarrier.STRICT[f.rule.code] in strict)
    if kernel is not None:   # resources.KernelContext: program, syntax tree, source, --arch
        out.extend(resources.check(result, path, kernel))
    out.sort(key=lambda f: (f.line, f.col, f.rule.code))
    return out

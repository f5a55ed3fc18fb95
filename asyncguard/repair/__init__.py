"""`asyncguard fix`: minimal repairs, found and proved with the checker as the oracle.

`edits` (Edit, Fix: data, and their byte-exact application), `tree` (statements, blocks,
insertion points), `candidates` (what could repair a finding), `search` (greedy search,
minimisation, the minimality proof), `redundant` (syncs whose removal stays clean),
`write` (atomic rewrite).
"""
from .edits import Edit, Fix, apply_edits, unified_diff
from .search import Repair, repair_text

__all__ = ["Edit", "Fix", "Repair", "apply_edits", "repair_text", "unified_diff"]

"""A picture of a witness: the threads involved as lanes, their events in order, the missing edge.

Race witnesses name two access instances. A focused replay of the kernel (the same machine,
with `_event` observed) recovers what the two threads did in between: cp.async copies,
commit_group, wait_group, barriers. The picture shows those events left to right in the order
the machine ran them, the copy still in flight, and a dashed red arrow for the ordering that is
missing. Barrier witnesses draw one lane per group of threads and where the missing ones are; mbarrier
overflow witnesses draw the arrive statements of the phase and the surplus one.
If the replay cannot find the two accesses, only the witness itself is drawn.
"""
from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

COLOURS = {"write": "#d1495b", "read": "#00798c", "async-write": "#7b2cbf", "commit": "#2a9d8f",
           "wait": "#2a9d8f", "barrier": "#495057", "warpsync": "#495057", "never": "#d1495b"}
COL_W, BOX_W, BOX_H, LANE_H, LEFT, TOP = 150, 134, 60, 130, 150, 96
MAX_COLS = 16


@dataclass
class Ev:
    seq: int
    lane: int
    kind: str            # read | write | async-write | commit | wait | barrier | warpsync | never
    title: str
    line: int | None
    loops: dict = field(default_factory=dict)
    role: str = ""       # "first" | "second" for the witness accesses
    group: int = 0       # barrier id (vertical bar across lanes at one seq)
    obj: str = ""        # accesses: the buffer elements touched


# ---------------------------------------------------------------- focused replay
def _replay(text: str, path: str, w: dict) -> list[Ev] | None:
    """Events of the witness threads between the two accesses, or None if not reproducible."""
    try:
        import numpy as np

        from ..engine.machine import Machine
        from ..engine.program import elaborate
        from ..events import Access, AccessKind, Barrier, CommitGroup, WaitGroup, WarpSync
        from ..parse import parse
    except ImportError:     # pragma: no cover
        return None
    a, b = w["first"], w["second"]
    lanes = list(dict.fromkeys([a["thread"], b["thread"]]))

    class Tracing(Machine):
        def _event(self, task, ev, s):
            seq = len(self.trace)
            tids = getattr(ev, "tids", None)
            if tids is not None:
                present = [t for t in lanes if t in set(np.asarray(tids).tolist())] \
                    if len(lanes) < 8 else []
                loops = task.loops()
                line = s.span.line
                for t in present:
                    lane = lanes.index(t)
                    if isinstance(ev, Access):
                        kind = ev.kind.value
                        role = ""
                        for name, side in (("first", a), ("second", b)):
                            if (side["thread"] == t and side["line"] == line
                                    and side.get("loops", {}) == loops and kind == side["access"]):
                                role = name
                        if not role and ev.kind != AccessKind.ASYNC_WRITE:
                            continue
                        i = int(np.flatnonzero(np.asarray(tids) == t)[0])
                        es = max(ev.elem_size, 1)
                        lo, hi = int(ev.lo[i]), int(ev.hi[i])
                        el = f"{ev.buffer}[{(lo - ev.region_base) // es}:{-(-(hi - ev.region_base) // es)}]"
                        title = {"read": "read", "write": "write", "async-write": "cp.async"}[kind]
                        self.trace.append(Ev(seq, lane, kind, title, line, loops, role, obj=el))
                    elif isinstance(ev, CommitGroup):
                        self.trace.append(Ev(seq, lane, "commit", "commit_group", line, loops))
                    elif isinstance(ev, WaitGroup):
                        self.trace.append(Ev(seq, lane, "wait", f"wait_group({ev.n})", line, loops))
                    elif isinstance(ev, Barrier):
                        name = ("__syncthreads" if ev.barrier_id == 0 and ev.count is None else
                                f"bar.{'arrive' if ev.arrive_only else 'sync'} {ev.barrier_id}"
                                + (f", {ev.count}" if ev.count else ""))
                        self.trace.append(Ev(seq, lane, "barrier", name, line, loops,
                                             group=ev.barrier_id))
                    elif isinstance(ev, WarpSync):
                        self.trace.append(Ev(seq, lane, "warpsync", "__syncwarp", line, loops))
                    elif not isinstance(ev, Access):   # mbarrier arrive / expect_tx / wait, ...
                        name = type(ev).__name__
                        extra = "".join(f" {k}={getattr(ev, k)}" for k in ("barrier", "phase",
                                        "parity", "count", "tx") if hasattr(ev, k)
                                        and isinstance(getattr(ev, k), (int, str)))
                        self.trace.append(Ev(seq, lane, "barrier", name, line, loops,
                                             obj=extra.strip()))
            super()._event(task, ev, s)
            # the machine's own record of the first access: when did its copy land?
            if isinstance(ev, Access) and self.trace and self.trace[-1].seq == seq \
                    and any(e.role == "first" and e.kind == "async-write" for e in self.trace
                            if e.seq == seq) and self.first_rec is None:
                t = a["thread"]
                self.first_rec = next((r for r in reversed(self.async_live)
                                       if r.span.line == a["line"] and t in set(r.tids.tolist())), None)
            elif isinstance(ev, WaitGroup) and self.first_rec is not None and self.landed is None:
                r = self.first_rec
                i = np.flatnonzero(r.tids == a["thread"])
                if i.size and r.done is not None and int(r.done[i[0]]) >= 0:
                    self.landed = seq

    try:
        module = parse(text, path)
        for func in module.functions:
            program = elaborate(func)
            m = Tracing(program, block=w.get("block") or {})
            m.trace, m.first_rec, m.landed = [], None, None
            m.run()
            roles = [e for e in m.trace if e.role]
            firsts = [e for e in roles if e.role == "first"]
            seconds = [e for e in roles if e.role == "second"]
            if firsts and seconds:
                lo = firsts[0].seq
                hi = next((e.seq for e in seconds if e.seq >= lo), seconds[-1].seq)
                out = [e for e in m.trace if lo <= e.seq <= hi]
                if m.landed is not None and lo <= m.landed <= hi:
                    for e in out:
                        if e.seq == m.landed and e.kind == "wait" and e.lane == lanes.index(a["thread"]):
                            e.role = "landed"
                return out
    except Exception:   # the picture must never break the check: fall back to the witness
        return None
    return None


def _fallback(w: dict) -> list[Ev]:
    a, b = w["first"], w["second"]
    lanes = list(dict.fromkeys([a["thread"], b["thread"]]))
    out = []
    for seq, (role, side) in enumerate((("first", a), ("second", b))):
        el = f"{side['buffer']}[{side['elements'][0]}:{side['elements'][1]}]"
        kind = side["access"]
        title = {"read": "read", "write": "write"}.get(kind, "cp.async")
        out.append(Ev(seq, lanes.index(side["thread"]), kind, title, side["line"],
                      side.get("loops", {}), role, obj=el))
    return out


# ---------------------------------------------------------------- drawing
def _t(x, y, s, size=12, anchor="start", weight="normal", fill="#212529", cls="") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>'
            f'{html.escape(str(s))}</text>')


def _columns(events: list[Ev]) -> tuple[dict, list]:
    seqs = sorted({e.seq for e in events})
    keep = {e.seq for e in events if e.role}
    if len(seqs) > MAX_COLS:   # keep the ends and the witness accesses, elide the middle
        head, tail = seqs[:MAX_COLS // 2 - 1], seqs[-(MAX_COLS // 2 - 1):]
        chosen = sorted(set(head) | set(tail) | keep)
        col, c, gaps, prev = {}, 0, [], None
        for s in chosen:
            if prev is not None and seqs.index(s) - seqs.index(prev) > 1:
                gaps.append((c, seqs.index(s) - seqs.index(prev) - 1))
                c += 1
            col[s] = c
            c += 1
            prev = s
        return col, gaps
    return {s: i for i, s in enumerate(seqs)}, []


def _wrap(s: str, width: int) -> list[str]:
    return textwrap.wrap(s, width) or [""]


def draw(finding, events: list[Ev], lane_names: list[str], missing: str, note: str = "",
         edge_label: str = "✗ no happens-before", legend: str | None = None) -> str:
    col, gaps = _columns(events)
    ncols = max(list(col.values()) + [c for c, _ in gaps] + [0]) + 1
    width = max(LEFT + ncols * COL_W + 40, 760)
    chars = max(int((width - 40) / 6.6), 60)
    msg = _wrap(f"{finding.rule.code} {finding.rule.name}: {finding.message}", chars)[:4]
    miss = _wrap(f"missing: {missing}", chars)[:4] if missing else []
    lanes_top = TOP + 14 * (len(msg) - 1)
    same_lane_arc = len(lane_names) == 1
    LANE_H = 200 if same_lane_arc else globals()["LANE_H"]
    height = lanes_top + len(lane_names) * LANE_H + 40 + 16 * len(miss) + 13 * 3 + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           '<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="13" '
           'markerHeight="13" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="#d1495b"/></marker>'
           '<marker id="arrg" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#adb5bd"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           _t(20, 28, f"{finding.path}:{finding.line}:{finding.col}", 13, weight="bold")]
    for i, line in enumerate(msg):
        out.append(_t(20, 48 + 14 * i, line, 12, fill="#343a40"))
    # time axis
    axis_y = lanes_top - 10
    out.append(f'<line x1="{LEFT}" y1="{axis_y}" x2="{width - 30}" y2="{axis_y}" stroke="#adb5bd" '
               f'marker-end="url(#arrg)"/>')
    out.append(_t(width - 34, axis_y - 6, "execution order", 10, "end", fill="#868e96"))
    lane_y = {}
    for i, name in enumerate(lane_names):
        y = lanes_top + i * LANE_H + (70 if same_lane_arc else LANE_H / 2)
        lane_y[i] = y
        out.append(f'<rect x="10" y="{lanes_top + i * LANE_H + 6}" width="{width - 20}" height="{LANE_H - 12}" '
                   f'rx="6" fill="{"#f8f9fa" if i % 2 == 0 else "#f1f3f5"}"/>')
        out.append(f'<line x1="{LEFT - 10}" y1="{y}" x2="{width - 30}" y2="{y}" stroke="#ced4da" '
                   'stroke-width="2"/>')
        for j, part in enumerate(_wrap(name, 18)[:3]):
            out.append(_t(20, y - 4 + 14 * j, part, 12, weight="bold"))
    for c, n in gaps:
        x = LEFT + c * COL_W + COL_W / 2
        for i in lane_y:
            out.append(_t(x, lane_y[i] + 4, "⋯", 18, "middle", fill="#868e96"))
        out.append(_t(x, lanes_top + len(lane_names) * LANE_H + 2, f"{n} steps", 10, "middle",
                       fill="#868e96"))
    pos = {}
    # the copy in flight: from its issue to the end of the window
    for e in events:
        if e.role == "first" and e.kind == "async-write" and e.seq in col:
            x0 = LEFT + col[e.seq] * COL_W + COL_W / 2
            landed = next((x for x in events if x.role == "landed" and x.seq in col), None)
            x1 = LEFT + ((col[landed.seq] if landed else ncols - 1)) * COL_W + COL_W / 2
            y = lane_y[e.lane] + BOX_H / 2 + 8
            out.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 4):.1f}" height="8" '
                       'rx="4" fill="#7b2cbf" fill-opacity="0.35"/>')
            lx = (x0 + x1) / 2 if same_lane_arc else x0 + 4   # clear of the missing edge's label
            out.append(_t(lx, y + 20, "copy in flight" + (" until this wait" if landed else
                                                          " (not yet landed)"), 10,
                          "middle" if same_lane_arc else "start", fill="#7b2cbf"))
    # barriers that several lanes reach in one step: a bar across the lanes
    by_seq: dict[int, list[Ev]] = {}
    for e in events:
        if e.kind == "barrier":
            by_seq.setdefault(e.seq, []).append(e)
    for seq, group in by_seq.items():
        if len(group) > 1 and seq in col:
            x = LEFT + col[seq] * COL_W + COL_W / 2
            ys = [lane_y[e.lane] for e in group]
            out.append(f'<line x1="{x}" y1="{min(ys)}" x2="{x}" y2="{max(ys)}" stroke="#495057" '
                       'stroke-width="6" stroke-opacity="0.25"/>')
    for e in events:
        if e.seq not in col:
            continue
        x = LEFT + col[e.seq] * COL_W + (COL_W - BOX_W) / 2
        y = lane_y[e.lane] - BOX_H / 2
        colour = COLOURS.get(e.kind, "#495057")
        strong = e.role in ("first", "second") or e.kind == "never"
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="7" '
                   f'fill="{colour if strong else "white"}" stroke="{colour}" '
                   f'stroke-width="{3 if strong else 1.5}"/>')
        fg = "white" if strong else colour
        label = e.title if len(e.title) <= 21 else e.title[:20] + "…"
        loops = ", ".join(f"{k}={v}" for k, v in e.loops.items())
        sub = (f"line {e.line}" if e.line else "") + (f" · {loops}" if loops else "")
        if len(sub) > 24:
            sub = sub[:23] + "…"
        rows = [(label, 12, "bold")] + ([(e.obj if len(e.obj) <= 22 else e.obj[:21] + "…", 11,
                                          "normal")] if e.obj else []) + [(sub, 10, "normal")]
        y0 = y + BOX_H / 2 - 7 * (len(rows) - 1) + 4
        for k, (txt, size, weight) in enumerate(rows):
            out.append(_t(x + BOX_W / 2, y0 + 14 * k, txt, size, "middle", weight, fg))
        if e.role:
            tag = "the copy lands here" if e.role == "landed" else e.role + " access"
            out.append(_t(x + 2, y - 6, tag, 10, "start", "bold", colour))
        if e.role == "landed":
            out.append(f'<rect x="{x - 2:.1f}" y="{y - 2:.1f}" width="{BOX_W + 4}" '
                       f'height="{BOX_H + 4}" rx="9" fill="none" stroke="#7b2cbf" stroke-width="2"/>')
        pos[(e.role if e.role in ("first", "second") else e.kind, e.lane, e.seq)] = (x, y)
    # the missing ordering edge: dashed red arrow from the first access to the second
    f_ = next(((k, v) for k, v in pos.items() if k[0] == "first"), None)
    s_ = next(((k, v) for k, v in pos.items() if k[0] in ("second", "barrier")
               and (k[0] == "second" or finding.witness.get("arrivals"))), None)
    n_ = next(((k, v) for k, v in pos.items() if k[0] == "never"), None)
    if n_ and not f_:
        f_, s_ = n_, next(((k, v) for k, v in pos.items() if k[0] == "barrier"), None)
    if f_ and s_:
        (fx, fy), (sx, sy) = f_[1], s_[1]
        x1, y1 = fx + BOX_W * 0.85, fy + BOX_H
        x2, y2 = sx + BOX_W * 0.85, sy + BOX_H
        if f_[0][2] == s_[0][2]:    # same step (one statement): a loop under the box
            x1, x2 = fx + BOX_W * 0.3, fx + BOX_W * 0.7
        if abs(y1 - y2) < 1:
            ctrl = max(y1, y2) + 80
            d = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{ctrl:.1f} {x2:.1f},{ctrl:.1f} {x2:.1f},{y2 + 2:.1f}"
            lx, ly = (x1 + x2) / 2, y1 + 0.75 * 80 + 20
        else:
            y1 = fy + (BOX_H if sy > fy else 0)
            y2 = sy + (0 if sy > fy else BOX_H)
            d = f"M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}"
            lx, ly = (x1 + x2) / 2 + 6, (y1 + y2) / 2
        out.append(f'<path d="{d}" fill="none" stroke="#d1495b" stroke-width="2.5" '
                   'stroke-dasharray="7,5" marker-end="url(#arr)"/>')
        out.append(f'<rect x="{lx - 78:.1f}" y="{ly - 13:.1f}" width="156" height="18" rx="4" '
                   'fill="white" fill-opacity="0.9"/>')
        out.append(_t(lx, ly, edge_label, 12, "middle", "bold", "#d1495b"))
    y = lanes_top + len(lane_names) * LANE_H + 30
    for i, line in enumerate(miss):
        out.append(_t(20, y + 16 * i, line, 12, fill="#d1495b", weight="bold" if i == 0 else "normal"))
    if legend is None:
        legend = ("filled: the two accesses of the witness · outlined: what the threads did in "
                  "between · grey bars: one barrier reached together · dashed red: the missing edge")
    for i, part in enumerate(_wrap((note + " — " if note else "") + legend, int(chars * 1.15))[:3]):
        out.append(_t(20, y + 16 * len(miss) + 4 + 13 * i, part, 10, fill="#868e96"))
    out.append("</svg>")
    return "\n".join(out)


def _barrier_picture(finding) -> str:
    w = finding.witness
    lanes, events = [], []
    for i, arr in enumerate(w.get("arrivals", [])):
        lanes.append(f"threads {arr['threads']} ({arr['count']})")
        bid = w.get("barrier_id", 0)
        name = "__syncthreads" if bid == 0 else f"bar.sync {bid}" + (
            f", {w['expected']}" if w.get("expected") else "")
        events.append(Ev(i, i, "barrier", name, arr["line"]))
    for m in w.get("missing_at", []) or ([{"line": None, "threads": w["missing"]}]
                                         if w.get("missing") and w["missing"] != "none" else []):
        lanes.append(f"threads {m['threads']}")
        where = f"stuck at line {m['line']}" if m.get("line") else "finish the kernel"
        events.append(Ev(len(events), len(lanes) - 1, "never", "never arrive", m.get("line"),
                         obj=where))
    # every arrival is "at the same time": one column for barriers, the next for the missing
    for e in events:
        e.seq = 0 if e.kind == "barrier" else 1
    expected = w.get("expected")
    got = sum(a["count"] for a in w.get("arrivals", []))
    missing = (f"{expected} arrivals expected, {got} arrive" if expected else
               f"threads {w.get('missing')} never reach this barrier" if w.get("missing")
               else "the threads meet at different barrier statements")
    return draw(finding, events, lanes, missing, edge_label="✗ barrier waits for them",
                legend="one lane per group of threads · outlined: the barrier where threads "
                       "arrive · red: the threads that do not arrive · dashed red: the arrival "
                       "the barrier waits for")


def _phase_picture(finding) -> str:
    """AG406: the arrive statements of one mbarrier phase in order; the last one is the surplus."""
    w = finding.witness
    arr = w.get("phase_arrivals", [])
    events = [Ev(i, 0, "barrier", f"arrive ({a['count']})", a["line"]) for i, a in enumerate(arr)]
    if events:
        events[-1].kind, events[-1].title = "never", f"surplus arrive ({arr[-1]['count']})"
    got = sum(a["count"] for a in arr)
    missing = (f"init count {w.get('count')}, {got} arrivals in phase {w.get('phase')}: the "
               "surplus counts toward the next phase")
    return draw(finding, events, [f"{w.get('barrier')} phase {w.get('phase')}"], missing,
                edge_label="✗ exceeds the init count",
                legend="the arrive statements of one phase in execution order · red: the arrival "
                       "beyond the init count")


def picture(finding, lines: list[str] | None) -> str | None:
    """SVG text for one finding, or None when its witness has nothing to draw."""
    w = finding.witness or {}
    if "first" in w and "second" in w:
        events = _replay("\n".join(lines or []) + "\n", finding.path, w) if lines else None
        note = "events from a replay of the kernel: both threads' steps between the two accesses"
        if not events:
            events, note = _fallback(w), "the two accesses of the witness (no replay)"
        a, b = w["first"], w["second"]
        lane_threads = list(dict.fromkeys([a["thread"], b["thread"]]))
        names = [f"thread {t}" for t in lane_threads]
        if w.get("block"):
            names = [n + " " + ",".join(f"{k}={v}" for k, v in w["block"].items()) for n in names]
        return draw(finding, events, names, w.get("missing", ""), note)
    if "arrivals" in w:
        return _barrier_picture(finding)
    if "phase_arrivals" in w:
        return _phase_picture(finding)
    return None


def write_witness_pictures(reports, sources: dict, target: str) -> list[str]:
    """One SVG per drawable finding (FILE, FILE-2, ...), or all of them in one HTML page."""
    pics = []
    for rep in reports:
        for f in rep.findings:
            svg = picture(f, (sources or {}).get(rep.path))
            if svg:
                pics.append((f, svg))
    t = Path(target)
    written = []
    if t.suffix.lower() in (".html", ".htm"):
        body = "\n".join(f"<h2>{html.escape(f'{f.path}:{f.line}:{f.col} {f.rule.code}')}</h2>\n{svg}"
                         for f, svg in pics) or "<p>no findings with a witness to draw</p>"
        t.write_text("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>asyncguard "
                     "witnesses</title></head>\n<body style=\"font-family: sans-serif\">\n"
                     f"<h1>asyncguard witnesses</h1>\n{body}\n</body></html>\n", encoding="utf-8")
        return [str(t)]
    for i, (f, svg) in enumerate(pics):
        p = t if i == 0 else t.with_name(f"{t.stem}-{i + 1}{t.suffix or '.svg'}")
        p.write_text(svg + "\n", encoding="utf-8")
        written.append(str(p))
    return written

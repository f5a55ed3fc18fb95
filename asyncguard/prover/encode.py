"""TIR integer expressions -> z3, exactly: `//` and `%` are floor division and floor modulo
(as TVMScript prints FloorDiv/FloorMod); bit operations only where they are arithmetic
(`x >> c`, `x << c`, `x & 1`, `x ^ 1`)."""
from __future__ import annotations

import z3

from .. import ir
from ..engine.exprs import low_mask


class Unencodable(Exception):
    """A term the encoding cannot express exactly."""


class Encoder:
    def __init__(self, env: dict):
        self.env = env            # name -> z3 term
        self.side: list = []      # constraints defining fresh quotient variables

    def floordiv(self, a, c: int):
        if c == 0:
            raise Unencodable("division by zero")
        if c < 0:
            return self.floordiv(-a, -c)
        # one quotient per dividend: named by the dividend's term, so `x // 128` in two
        # constraints of one query is one variable, not two that z3 must prove equal (it took
        # 4M steps for three copies in a varlen case split, past the resource limit), and the
        # name does not depend on how many terms the process encoded before
        q = z3.Int(f"floor({a.sexpr()} / {c})")
        self.side += [c * q <= a, a < c * q + c]
        return q

    def expr(self, e):
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return z3.BoolVal(e.value)
            if isinstance(e.value, int):
                return z3.IntVal(e.value)
            raise Unencodable(f"constant {e.value!r}")
        if isinstance(e, ir.Var):
            if e.name not in self.env:
                raise Unencodable(f"unknown name {e.name}")
            return self.env[e.name]
        if isinstance(e, ir.UnaryOp):
            v = self.expr(e.operand)
            if e.op == "-":
                return -v
            if e.op == "not":
                return z3.Not(v)
            if e.op == "+":
                return v
            raise Unencodable(f"unary {e.op}")
        if isinstance(e, ir.BinOp):
            a, b = self.expr(e.left), self.expr(e.right)
            return self.binop(e.op, a, b, e.right)
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.IfExp):
            return z3.If(self.expr(e.cond), self.expr(e.then), self.expr(e.other))
        raise Unencodable(type(e).__name__)

    def _const(self, e) -> int:
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return e.value
        if isinstance(e, ir.Call) and e.name in ("T.int32", "T.int64") and e.args:
            return self._const(e.args[0])
        raise Unencodable("non-constant divisor, modulus or shift")

    def binop(self, op, a, b, right):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op in ("//", "/"):
            return self.floordiv(a, self._const(right))
        if op == "%":
            c = self._const(right)
            return a - c * self.floordiv(a, c)
        if op == ">>":
            return self.floordiv(a, 2 ** self._const(right))
        if op == "<<":
            return a * 2 ** self._const(right)
        if op in ("&", "^") and low_mask(self._const(right)):
            # a low-bit mask 2**j - 1 keeps (&) or flips (^) a's residue mod 2**j, in two's
            # complement for negative `a` as well (-3 & 15 == 13 == -3 % 16)
            m = self._const(right) + 1
            r = a - m * self.floordiv(a, m)
            return r if op == "&" else a - r + (m - 1 - r)
        cmp = {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b,
               "==": lambda: a == b, "!=": lambda: a != b,
               "and": lambda: z3.And(a, b), "or": lambda: z3.Or(a, b)}
        if op in cmp:
            return cmp[op]()
        raise Unencodable(f"operator {op}")

    def call(self, e: ir.Call):
        name, args = e.name, e.args
        two = {"T.floordiv": "//", "T.floormod": "%", "T.shift_right": ">>", "T.shift_left": "<<",
               "T.bitwise_and": "&", "T.bitwise_xor": "^"}
        if name in two and len(args) == 2:
            return self.binop(two[name], self.expr(args[0]), self.expr(args[1]), args[1])
        if name in ("T.truncdiv", "T.truncmod") and len(args) == 2:
            # C's / and % (toward zero): the floor forms of |a|, with a's sign
            a, c = self.expr(args[0]), self._const(args[1])
            if c <= 0:
                raise Unencodable(f"{name} by {c}")
            q = z3.If(a >= 0, self.floordiv(a, c), -self.floordiv(-a, c))
            return q if name == "T.truncdiv" else a - c * q
        if name in ("T.int32", "T.int64", "T.uint32", "T.bool", "T.likely") and len(args) == 1:
            return self.expr(args[0])
        if name == "T.Cast" and len(args) == 2:
            return self.expr(args[1])
        if name in ("T.min", "T.max") and len(args) == 2:
            a, b = self.expr(args[0]), self.expr(args[1])
            return z3.If(a <= b, a, b) if name == "T.min" else z3.If(a >= b, a, b)
        if name in ("T.Select", "T.if_then_else") and len(args) == 3:
            return z3.If(self.expr(args[0]), self.expr(args[1]), self.expr(args[2]))
        if name == "T.block_rank_in_cluster" and not args:
            # the CTA's cluster rank: fixed for the whole run of its threads, like a block index
            return self.env.get("%cluster_ctarank", z3.Int("cluster_ctarank"))
        if name == "T.ceildiv" and len(args) == 2:
            return -self.floordiv(-self.expr(args[0]), self._const(args[1]))
        raise Unencodable(f"call {name or '?'}")


def encode(e, env: dict):
    """(term, side constraints) for expression `e` with free names bound by `env`."""
    enc = Encoder(env)
    term = enc.expr(e)
    return term, enc.side

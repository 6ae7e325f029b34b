"""Calculator plugin: exact arithmetic on rational numbers, with a safe parser (no eval).

The expression is parsed with `ast` and walked over a short whitelist of node types; numbers become
`Fraction`s (decimals exactly: 0.1 is one tenth), so 0.1 + 0.2 is exactly 0.3. Exponents must be whole and
results are kept to a bounded size, so no expression can eat the machine.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction

from tui_agent.tools import tool

MAX_LENGTH = 500
MAX_NODES = 200
MAX_EXPONENT = 10_000
MAX_BITS = 20_000
"""Largest numerator or denominator kept, in bits (about 6,000 decimal digits)."""

BINARY: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


class CalculationError(ValueError):
    """The expression cannot be computed; the message says why."""


def evaluate(expression: str) -> Fraction:
    """The exact value of an arithmetic expression (+ - * / // % ** or ^, parentheses, decimals)."""
    if len(expression) > MAX_LENGTH:
        raise CalculationError(f"the expression is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression.replace("^", "**").strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculationError(f"not a valid arithmetic expression ({exc.msg})") from exc
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculationError(f"the expression has more than {MAX_NODES} parts")
    return _value(tree.body)


def _value(node: ast.expr) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return _checked(Fraction(node.value))
    if isinstance(node, ast.Constant) and type(node.value) is float:
        if not math.isfinite(node.value):
            raise CalculationError(f"{ast.unparse(node)} is too large a number")
        return _checked(Fraction(Decimal(repr(node.value))))  # the literal as written: 0.1 is exactly 1/10
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _value(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        return _checked(_binary(node.op, _value(node.left), _value(node.right)))
    raise CalculationError(f"{ast.unparse(node)!r} is not allowed: only numbers, + - * / // % ** and parentheses")


def _binary(op: ast.operator, left: Fraction, right: Fraction) -> Fraction:
    if isinstance(op, ast.Div | ast.FloorDiv | ast.Mod) and right == 0:
        raise CalculationError("division by zero")
    if isinstance(op, ast.FloorDiv):
        return Fraction(left // right)
    if isinstance(op, ast.Mod):
        return left % right
    if isinstance(op, ast.Pow):
        return _power(left, right)
    function = BINARY.get(type(op))
    if function is None:
        raise CalculationError("only + - * / // % and ** are supported")
    return function(left, right)


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1:
        raise CalculationError("only whole-number exponents give exact results")
    if abs(exponent) > MAX_EXPONENT:
        raise CalculationError(f"exponents are limited to ±{MAX_EXPONENT}")
    if base == 0 and exponent < 0:
        raise CalculationError("division by zero")
    size = max(base.numerator.bit_length(), base.denominator.bit_length())
    if size * abs(int(exponent)) > MAX_BITS:
        raise CalculationError("the result would be too large to compute exactly")
    return base ** int(exponent)


def _checked(value: Fraction) -> Fraction:
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
        raise CalculationError("the result would be too large to compute exactly")
    return value


def describe(value: Fraction) -> str:
    """An integer as is; a fraction exactly, plus its decimal value when that is not exact."""
    if value.denominator == 1:
        return str(value.numerator)
    with localcontext() as context:
        context.prec = 30
        decimal = Decimal(value.numerator) / Decimal(value.denominator)
    if Fraction(decimal) == value:
        return f"{decimal.normalize():f}"
    return f"{value.numerator}/{value.denominator} (≈ {decimal:.25g})"


@tool(approval="never", effect="read")
def calculate(expression: str) -> str:
    """Compute an arithmetic expression exactly (fractions are kept exact, e.g. 1/3 + 1/6 = 1/2).

    Args:
        expression: Numbers with + - * / // % ** (or ^ for powers) and parentheses, e.g. (2 + 3) * 1.5 ^ 2.
    """
    return describe(evaluate(expression))

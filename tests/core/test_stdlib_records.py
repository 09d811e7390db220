"""`default=fastjcs.stdlib_types` on the values of records, each reading the direct entry makes
without asking Python swept across its cases (issue 31: the faster readings of
csrc/cpython/decimal_layout.c and csrc/cpython/dataclass.c).

Expected values come from the standard library (`str()` of a Decimal) and from the pure-Python
backend (`python_backend.dumps`, which reads every attribute as Python does, each time). On routes
without the direct entry these run through `StdlibTypes.__call__` and hold all the same.
"""

from __future__ import annotations

import decimal

import rfc8785

import fastjcs
from fastjcs import stdlib_types


def one_word_decimals() -> list[decimal.Decimal]:
    """Every coefficient length a word of libmpdec holds (1 to 19 digits, every digit value in
    each position over the lengths), at every exponent of plain notation (0 down to an adjusted
    exponent of -6) and the first of exponent notation below it, with both signs."""
    out = []
    for digits in range(1, 20):
        coefficient = tuple((7 * i + digits) % 10 for i in range(digits))
        coefficient = (coefficient[0] or 1,) + coefficient[1:]  # no leading zero
        for exp in range(0, -(digits + 7), -1):
            for sign in (0, 1):
                out.append(decimal.Decimal((sign, coefficient, exp)))
    out += [decimal.Decimal((s, (0,), e)) for s in (0, 1) for e in range(0, -8, -1)]
    out += [decimal.Decimal(10**k) for k in range(20)] + [decimal.Decimal(10**k - 1) for k in range(1, 20)]
    return out


def test_decimals_of_one_word_are_str():
    # the one-word path (csrc/cpython/decimal_layout.c, one_word) writes with fixed-size copies
    # past the digits' end; its probe's samples leave most lengths and points untried: this does
    # not (a copy of 16 bytes where 20 are needed, say, loses the last digits of "1.234...56789")
    values = one_word_decimals()
    assert fastjcs.dumps(values, default=stdlib_types) == rfc8785.dumps([str(v) for v in values])
    for v in values:  # one at a time too: what lies past the text in the buffer is not kept
        assert fastjcs.dumps({"d": v, "e": 1}, default=stdlib_types) == rfc8785.dumps({"d": str(v), "e": 1})

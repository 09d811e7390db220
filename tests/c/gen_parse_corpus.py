#!/usr/bin/env python3
"""Write "token,expected" lines for tests/c/parse_check.c (the sanitizer run).

expected is the 16 hex digits of float(token)'s bits (CPython's float() rounds correctly, whatever
the token's length), or "overflow" when float() gives an infinity. The seed is fixed, so every run
checks the same tokens; --scale multiplies the random sections.

Sections: random doubles in several renderings (shortest, %.17g, %.25e, %.40e, ...); short
decimals; exact midpoints between adjacent doubles (normal and subnormal), as is and nudged one
unit in a far digit, also beyond the 800 digits the exact path keeps; random digit strings with
random exponents; 19/20-digit significands; powers of ten in several spellings; long tokens.
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
from collections.abc import Iterator

MAX_FINITE_BITS = 0x7FEFFFFFFFFFFFFF


def bits_of(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def double_of(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def expected(token: str) -> str:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        return "overflow"
    return f"{bits_of(value):016x}"


def midpoint_digits(bits: int) -> tuple[int, int]:
    """The midpoint between the doubles with bits and bits + 1 (both >= 0) as digits * 10^exp.

    A double is m 2^e; the midpoint is (2m + 1) 2^(e - 1), and n / 2^k == n 5^k / 10^k exactly.
    Works for bits == MAX_FINITE_BITS too (the midpoint with 2^1024, the overflow threshold).
    """
    e_field = bits >> 52
    m = bits & ((1 << 52) - 1)
    if e_field:
        m |= 1 << 52
        e = e_field - 1075
    else:
        e = -1074
    h, g = 2 * m + 1, e - 1
    if g >= 0:
        return h << g, 0
    return h * 5**-g, g


def halfway_tokens(bits: int, nudges: tuple[int, ...]) -> Iterator[str]:
    """The exact midpoint above `bits`, then for each n in nudges the midpoint plus and minus one
    unit n decimal places further down."""
    digits, exp = midpoint_digits(bits)
    yield f"{digits}e{exp}"
    for n in nudges:
        scaled = digits * 10**n
        yield f"{scaled + 1}e{exp - n}"
        yield f"{scaled - 1}e{exp - n}"


def random_double(rnd: random.Random) -> float:
    while True:
        x = double_of(rnd.getrandbits(64))
        if x == x and x not in (float("inf"), float("-inf")):
            return x


def random_digits(rnd: random.Random, n: int) -> str:
    return "".join(rnd.choice("0123456789") for _ in range(n))


def random_token(rnd: random.Random) -> str:
    """A random token of the RFC 8259 grammar with a random (often extreme) exponent."""
    sign = "-" if rnd.random() < 0.3 else ""
    int_part = "0" if rnd.random() < 0.3 else str(rnd.randint(1, 9)) + random_digits(rnd, rnd.randint(0, 25))
    frac = "." + random_digits(rnd, rnd.randint(1, 30)) if rnd.random() < 0.6 else ""
    exp = ""
    if rnd.random() < 0.8:
        exp = rnd.choice("eE") + rnd.choice(["", "+", "-"]) + str(rnd.randint(0, 360))
    return sign + int_part + frac + exp


def corpus(scale: int, seed: int) -> Iterator[str]:
    rnd = random.Random(seed)
    # Random doubles: every bit pattern equally likely, so all binades and subnormals appear.
    for _ in range(25000 * scale):
        x = random_double(rnd)
        for fmt in ("%.17g", "%.25e", "%.40e", "%.16g", "%.15g", "%.6e"):
            yield fmt % x
        yield repr(x)
    # Short decimals (the common case in JSON documents) and integers.
    for _ in range(20000 * scale):
        yield "%.3f" % (rnd.random() * 10 ** rnd.randint(0, 6))
        yield str(rnd.randint(-(10 ** rnd.randint(1, 20)), 10 ** rnd.randint(1, 20)))
    # Exact halfway cases, normal and subnormal, with nudges in a near and a far digit, and one
    # beyond the digits the exact path keeps (the sticky bit decides those).
    for _ in range(2500 * scale):
        yield from halfway_tokens(rnd.randrange(0, MAX_FINITE_BITS + 1), (1, 30, 820))
        yield from halfway_tokens(rnd.randrange(0, 1 << 52), (1, 30, 820))
    for bits in (0, 1, 2, (1 << 52) - 1, 1 << 52, MAX_FINITE_BITS - 1, MAX_FINITE_BITS):
        yield from halfway_tokens(bits, (1, 30, 820, 2000))
    # Random grammar-shaped tokens.
    for _ in range(30000 * scale):
        yield random_token(rnd)
    # 19- and 20-digit significands near 10^19 and 2^64 (the edge of the 64-bit w).
    for base in (10**19, 2**64, 10**18, 2**63):
        for delta in range(-300, 301):
            for exp in ("", "e-5", "e-300", "e20", "e-320"):
                yield f"{base + delta}{exp}"
    # Powers of ten, spelled several ways.
    for k in range(-350, 311):
        yield f"1e{k}"
        yield f"10e{k - 1}"
        yield f"0.1e{k + 1}"
        yield f"1E{'+' if k >= 0 else '-'}{abs(k):05d}"
        yield ("0." + "0" * (-k - 1) + "1") if k < 0 else "1" + "0" * k
    # Long tokens.
    long_digits = random_digits(rnd, 100000)
    yield "1" + long_digits
    yield "1" + long_digits + "e-100000"
    yield "0." + long_digits
    yield "0." + "0" * 100000 + "1"
    yield "0." + "0" * 100000 + "1e100001"
    yield "1" + "0" * 100000 + "e-100000"
    yield "1e" + "9" * 1000
    yield "1e-" + "9" * 1000
    digits, exp = midpoint_digits(bits_of(1.5))
    yield f"{digits}{'0' * 100000}1e{exp - 100001}"
    yield f"{digits - 1}{'9' * 100000}e{exp - 100000}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20240229)
    parser.add_argument("--scale", type=int, default=1)
    args = parser.parse_args()
    out = sys.stdout
    for token in corpus(args.scale, args.seed):
        out.write(f"{token},{expected(token)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate csrc/schubfach_table.h: the constants of the Schubfach double renderer (number_format.c).

Everything here is exact integer (or Fraction) arithmetic. Floats only propose candidate multipliers;
each constant is then checked against its exact definition over the whole range the C code uses it
on before anything is written, so a wrong constant fails the generation instead of shipping.

What the header holds (R. Giulietti, "The Schubfach way to render doubles", 2021; the names follow
the paper, the widths are this project's, see number_format.c and check_schubfach.py):

  * three floor-log multiply-shift evaluators, each as (multiplier, shift, bias):
        flog10_pow2(q)    = floor(q * log10(2))          for q in [Q_MIN, Q_MAX]
        flog10_3q_pow2(q) = floor(log10(3/4 * 2^q))      for q in [Q_MIN + 1, Q_MAX]
        flog2_pow10(e)    = floor(e * log2(10))          for e in [-K_MAX, -K_MIN]
    evaluated in C as ((q * M + BIAS) >> S) - BIAS / 2^S with BIAS a multiple of 2^S that keeps the
    shifted operand non-negative (a right shift of a negative int is implementation-defined in C);
  * the table g[k - K_MIN] for k in [K_MIN, K_MAX]: g = floor(10^-k * 2^-r) + 1 with
    r = flog2_pow10(-k) - 127, so 2^127 < g <= 2^128 - 1, stored as two 64-bit halves;
  * the powers of ten 10^0 .. 10^17 as 64-bit integers (digit counts in the layout);
  * the exponents: for x = -EXP_MAX .. EXP_MAX (324, the largest |n - 1| of ECMAScript's
    exponential form, at 5e-324), at index x + EXP_MAX, a 64-bit word whose bytes, lowest first,
    are "e", the sign, the ASCII digits of |x| without leading zeros, zero bytes up to byte 6, and
    the length of the whole ("e+1": 3) in byte 7 (stored with memcpy on a little-endian target,
    the characters land in order).

Usage:  python csrc/gen_schubfach_table.py            rewrite csrc/schubfach_table.h
        python csrc/gen_schubfach_table.py --check    exit 1 if the committed header differs
"""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction
from pathlib import Path

HEADER = Path(__file__).resolve().parent / "schubfach_table.h"

# binary64: v = c * 2^q with c < 2^53; q = biased exponent - 1075, subnormals at q = -1074.
P = 53
Q_MIN = -1074
Q_MAX = 2046 - 1075  # 971: the largest finite biased exponent is 2046
G_BITS = 128  # the width of g: 2^(G_BITS-1) < g < 2^G_BITS

INT32_MAX = 2**31 - 1
EXP_MAX = 324  # the largest |n - 1| (5e-324 has n = -323)


# ---- exact floor logarithms (the definitions the multiply-shift constants are checked against) ----


def floor_log(value: Fraction, base: int) -> int:
    """The integer m with base^m <= value < base^(m+1), for value > 0, by exact comparison.

    A float logarithm proposes m; the two loops then move it until the exact integer comparisons
    hold, so the answer does not depend on the float."""
    assert value > 0
    num, den = value.numerator, value.denominator

    def at_most(m: int) -> bool:  # base^m <= num / den
        return base**m * den <= num if m >= 0 else den <= num * base**-m

    m = math.floor((num.bit_length() - den.bit_length()) / math.log2(base))
    while not at_most(m):
        m -= 1
    while at_most(m + 1):
        m += 1
    return m


def exact_flog10_pow2(q: int) -> int:
    return floor_log(Fraction(2) ** q, 10)


def exact_flog10_3q_pow2(q: int) -> int:
    return floor_log(Fraction(3, 4) * Fraction(2) ** q, 10)


def exact_flog2_pow10(e: int) -> int:
    return floor_log(Fraction(10) ** e, 2)


# ---- multiply-shift evaluators ----


def find_multiply_shift(name, exact, lo, hi, alpha, offset=0.0):
    """The smallest shift S, with a multiplier M and subtrahend C, such that
    floor((x * M - C) / 2^S) == exact(x) for every x in [lo, hi].

    The function is floor(x * alpha + offset). Candidates for M and C come from the float alpha and
    offset (they only propose); what makes a constant valid is the exact check on every x of the
    range against the exact floor logarithm. Returns (M, S, C, BIAS, T): the C expression is
    ((x * M + BIAS) >> S) - T with BIAS = T * 2^S - C, so the shifted operand is never negative.
    T is the least that does it, -min(exact): for flog10_pow2 that is -K_MIN, so the shift alone is
    k - K_MIN, the index of g (no subtraction before the load).
    """
    want = {x: exact(x) for x in range(lo, hi + 1)}
    t = -min(want.values())
    for s in range(8, 40):
        scale = 2**s
        m0 = int(alpha * scale)
        c0 = int(-offset * scale)
        for m in range(m0 - 2, m0 + 3):
            for c in range(c0 - 3, c0 + 4):
                if all((x * m - c) // scale == k for x, k in want.items()):
                    bias = t * scale - c
                    assert all(x * m + bias >= 0 for x in (lo, hi))
                    assert all(((x * m + bias) >> s) - t == k for x, k in want.items())
                    # The C code evaluates x * M + BIAS in int32_t.
                    assert all(abs(x * m) + abs(bias) <= INT32_MAX for x in (lo, hi)), name
                    return m, s, c, bias, t
    raise RuntimeError(f"no multiply-shift constant found for {name}")


@functools.cache
def build():
    k_min = exact_flog10_pow2(Q_MIN)  # -324: the smallest k of any double (regular case)
    k_min = min(k_min, exact_flog10_3q_pow2(Q_MIN + 1))
    k_max = exact_flog10_pow2(Q_MAX)  # 292

    log10_2 = math.log10(2)
    f10p2 = find_multiply_shift("flog10_pow2", exact_flog10_pow2, Q_MIN, Q_MAX, log10_2)
    f10tq = find_multiply_shift("flog10_3q_pow2", exact_flog10_3q_pow2, Q_MIN + 1, Q_MAX, log10_2, math.log10(0.75))
    f2p10 = find_multiply_shift("flog2_pow10", exact_flog2_pow10, -k_max, -k_min, math.log2(10))

    table = []
    for k in range(k_min, k_max + 1):
        r = exact_flog2_pow10(-k) - (G_BITS - 1)
        g = (Fraction(10) ** -k * Fraction(2) ** -r).__floor__() + 1
        assert 2 ** (G_BITS - 1) < g < 2**G_BITS, k
        table.append(g)
    return k_min, k_max, f10p2, f10tq, f2p10, table


@functools.cache
def h_from_fraction() -> tuple[int, int]:
    """(M, S) with h = ((t mod 2^S10) * M >> S) + 1 for every q in [Q_MIN, Q_MAX], where t = q * M10
    + BIAS10 is flog10_pow2's operand (k = t >> S10 - T10) and h = q + flog2_pow10(-k) + 1, the
    shift of the scaled significand (1..4): h - 1 = floor(log2(2^q / 10^k)), read from the
    fraction k's multiply-shift leaves. Checked on every q; the product fits in int32_t."""
    k_min, k_max, f10p2, _f10tq, f2p10, _table = build()
    m10, s10, _c10, b10, t10 = f10p2
    m2, s2, _c2, b2, t2 = f2p10
    want = {}
    for q in range(Q_MIN, Q_MAX + 1):
        t = q * m10 + b10
        k = (t >> s10) - t10
        want[q] = (t & (2**s10 - 1), q + ((-k * m2 + b2) >> s2) - t2 + 1)
        assert want[q][1] == q + exact_flog2_pow10(-k) + 1
    for s in range(1, 40):
        m0 = int(math.log2(10) * 2**s / 2**s10)
        for m in range(max(1, m0 - 3), m0 + 4):
            if all(((frac * m) >> s) + 1 == h for frac, h in want.values()):
                assert (2**s10 - 1) * m <= INT32_MAX
                return m, s
    raise RuntimeError("no multiply-shift constant found for h")


def exponent_word(x: int) -> int:
    """The table word of the exponent x: "e", its sign and its decimal digits as ASCII bytes from
    the low byte up, the length of those in the top byte."""
    text = f"e{'-' if x < 0 else '+'}{abs(x)}".encode("ascii")
    assert 3 <= len(text) <= 5
    word = sum(b << (8 * i) for i, b in enumerate(text))
    return word | len(text) << 56


def render() -> str:
    k_min, k_max, f10p2, f10tq, f2p10, table = build()
    out = []
    w = out.append
    w("/*")
    w(" * schubfach_table.h: GENERATED by csrc/gen_schubfach_table.py; do not edit (rerun the script).")
    w(" *")
    w(" * Constants of the Schubfach renderer in number_format.c, all computed and checked in exact")
    w(" * integer arithmetic by the script (tests/c/test_schubfach_table.py regenerates and compares). */")
    w("#ifndef FJCS_SCHUBFACH_TABLE_H")
    w("#define FJCS_SCHUBFACH_TABLE_H")
    w("")
    w("#include <stdint.h>")
    w("")
    w(f"#define FJCS_Q_MIN ({Q_MIN})  /* exponent of the subnormals: v = c * 2^q */")
    w(f"#define FJCS_Q_MAX {Q_MAX}")
    w(f"#define FJCS_K_MIN ({k_min})  /* range of k = the decimal exponent of the step 10^k */")
    w(f"#define FJCS_K_MAX {k_max}")
    w("")
    for name, (m, s, _c, bias, t), dom in (
        ("FLOG10_POW2", f10p2, "floor(q * log10(2)), q in [Q_MIN, Q_MAX]"),
        ("FLOG10_3Q_POW2", f10tq, "floor(log10(3/4 * 2^q)), q in [Q_MIN + 1, Q_MAX]"),
        ("FLOG2_POW10", f2p10, "floor(e * log2(10)), e in [-K_MAX, -K_MIN]"),
    ):
        w(f"/* {dom}: ((x * M + BIAS) >> S) - T, checked on every x of the range */")
        w(f"#define FJCS_{name}_M {m}")
        w(f"#define FJCS_{name}_S {s}")
        w(f"#define FJCS_{name}_BIAS {bias}")
        w(f"#define FJCS_{name}_T {t}")
    hm, hs = h_from_fraction()
    w("/* h = q + flog2_pow10(-k) + 1 from the fraction of flog10_pow2's operand t = q * M + BIAS:")
    w(" * ((t mod 2^FLOG10_POW2_S) * M >> S) + 1, checked on every q in [Q_MIN, Q_MAX] */")
    w(f"#define FJCS_H_FROM_FRACTION_M {hm}")
    w(f"#define FJCS_H_FROM_FRACTION_S {hs}")
    w("")
    w("/* g(k) = floor(10^-k * 2^-r) + 1, r = flog2_pow10(-k) - 127, for k = K_MIN..K_MAX:")
    w(" * fjcs_g[0][k - K_MIN] its high 64 bits, fjcs_g[1][k - K_MIN] its low 64 bits; 2^127 < g < 2^128.")
    w(" * Two rows, not a pair per k: an index into either is scaled by 8, which an x86-64 address")
    w(" * does itself (a pair's 16 took a shift and an add). */")
    w(f"static const uint64_t fjcs_g[2][{len(table)}] = {{")
    for half, name in ((0, "high"), (1, "low")):
        w(f"    {{ /* the {name} words */")
        for i, g in enumerate(table):
            word = g >> 64 if half == 0 else g & (2**64 - 1)
            w(f"        0x{word:016x}u,  /* {k_min + i:4d} */")
        w("    },")
    w("};")
    w("")
    w("/* 10^i for i = 0..17: digit counts and padding to seventeen digits. */")
    w("static const uint64_t fjcs_pow10[18] = {")
    for i in range(0, 18, 3):
        w("    " + " ".join(f"UINT64_C({10**j})," for j in range(i, min(i + 3, 18))))
    w("};")
    w("")
    w(f'/* The exponent x = -{EXP_MAX}..{EXP_MAX} of the form d.ddde+x, at index x + {EXP_MAX}: "e", its sign')
    w(" * and its digits as ASCII from the low byte up, then zero bytes, and in the top byte their")
    w(" * number. */")
    w(f"#define FJCS_EXP_MAX {EXP_MAX}")
    w(f"static const uint64_t fjcs_exponents[{2 * EXP_MAX + 1}] = {{")
    words = [exponent_word(x) for x in range(-EXP_MAX, EXP_MAX + 1)]
    for i in range(0, len(words), 4):
        w("    " + " ".join(f"0x{word:016x}u," for word in words[i : i + 4]))
    w("};")
    w("")
    w("#endif /* FJCS_SCHUBFACH_TABLE_H */")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if HEADER.read_text(encoding="utf-8") != text:
            print(f"{HEADER} differs from what {Path(__file__).name} generates", file=sys.stderr)
            return 1
        return 0
    HEADER.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

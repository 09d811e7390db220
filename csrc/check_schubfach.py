#!/usr/bin/env python3
"""Prove, exponent by exponent, the bound the round-to-odd scaling of number_format.c relies on.

number_format.c computes, for x in {4c-2 or 4c-1, 4c, 4c+2} (x <= 2^55 - 2) and every binary
exponent q with its decimal exponent k, the round-to-odd of E(x) = x * 2^q * 10^-k as

    P = (x << h) * g,   vbp = floor(P / 2^128) | (P mod 2^128 >= 2^61)

with g and h from csrc/schubfach_table.h. That equals floor(E) | (E is not an integer) when, for
every x in [1, 2^55] (a superset of the x that occur):

  (a) the error eps = (x << h) * (g - 10^-k * 2^-r) of P against E * 2^128 is below 2^61, so an
      integer E leaves P mod 2^128 < 2^61 and floor(P / 2^128) = E;
  (b) a non-integer E has frac(E) * 2^128 >= 2^61, so P mod 2^128 >= 2^61 (the sticky bit is set);
  (c) a non-integer E has (1 - frac(E)) * 2^128 > eps, so adding eps does not carry into the integer
      part and floor(P / 2^128) = floor(E).

frac(E(x)) = (x * A mod B) / B with A / B = 2^q * 10^-k in lowest terms. When B <= 2^55, frac is 0
or at least 1/B >= 2^-55, and at most 1 - 1/B: (b) and (c) hold outright. Otherwise B > 2^55 >= x
and, A and B being coprime, frac is never 0; its minimum and maximum over 1 <= x <= X come from a
walk down the Stern-Brocot tree of A / B (min_max_residue), accelerated over runs, the classic
continued-fraction argument: first checked against brute force on small cases.

Also checked: 1 <= h <= 4 and x << h < 2^64 for every case, and the table's g against its
definition.

Second, the choice's shortcut: in the regular case (bounds 4c -/+ 2) number_format.c takes the
nearer multiple of 10^k to v, n, without testing it against the bounds. That is exact when the
half-width of the interval, D = E(2) = 2^(q+1) * 10^-k in the units of E (10^k = 4 units), is
above 2, the farthest n can be from E(4c): then E - D < 4n < E + D, so vbp(E - D) <= 4n - 1 and
vbp(E + D) >= 4n + 1 (vbp(y) for y < 4n is floor(y) | 1 at most, an odd number below 4n; likewise
above), and the bounds moved inwards by one unit for an open interval still hold 4n. D = 2 exactly
only at q = k = 0, where E(4c) = 4c is itself a multiple of 4 (n = c, 4n = E). Checked per (q, k)
by nearest_inside(); the irregular interval (c = 2^52, lower half-width 2^q * 10^-k) fails that
test for some exponents, and the proof asserts that it does (so the test is not vacuous), which
is why the irregular case keeps the full choice.

Third, the bounds from the centre's product (scale_regular): with u = 2 << h and D = P(2) = g * u,
the sums A = floor(P(4c) / 2^64) + g0 * u and B = floor(P(4c) / 2^64) - g0 * u (g0 = floor(g /
2^64); g0 * u = D / 2^64 - f, 0 <= f < u) satisfy A in (P(4c+2) / 2^64 - 1 - u, P(4c+2) / 2^64] and
B in (P(4c-2) / 2^64 - 1, P(4c-2) / 2^64 + u), and P(x) / 2^64 = E(x) * 2^64 + eps(x) / 2^64 with
0 < eps < max_eps (from (a)). So E(4c+2) * 2^64 - A lies in (-max_eps / 2^64, 1 + u) and
E(4c-2) * 2^64 - B in (-u - max_eps / 2^64, 1). The code takes the high word of A (of B) as
floor(E), E not an integer, when the low word a satisfies M <= a <= 2^64 - 1 - M for M =
BOUND_MARGIN, read from number_format.c: that is exact when the offsets cannot reach the word's
edges, M > u + max_eps / 2^64 and 2^64 - 1 - M + 1 + u <= 2^64 (bound_margin_needed, with the
largest u); the proof fails for a smaller M. fast_bounds() models the C word arithmetic, and is
compared with the exact floors on sample significands at every exponent.

Fourth, the common path compares the floors fl, fr of its bounds, not their round-to-odd values
vbl = fl | 1, vbr = fr | 1 (the bounds are not integers there), and drops the open interval's
inward move (vbl + 1, vbr - 1 for an odd c): for every integer y and open in {0, 1}, a multiple of
4 is >= (y | 1) + open exactly when it is > y, and floor(((y | 1) - open) / 40) = floor(y / 40)
(40 divides no odd number). floors_suffice() checks both identities over whole periods, and
check_fast_bounds compares the common path's choice (common_choice) with the exact path's
(choice, with the move for an odd c) on every sample.

Fifth, the centre: the common path takes n = (top + 2) >> 2 from the top word of floor(P(4c) /
2^64) where its low word is not 0, for nearer(top | 1) (the round-to-odd vb of a centre that is
not an integer: by (a) an integer centre leaves that low word 0), and nearer(vb) with the sticky
bit from P's low word where it is 0. no_tie_form() checks (top + 2) >> 2 == nearer(top | 1) over
whole periods (both move by 2 when top moves by 8); fast_bounds models the C and its n is
compared with the exact choice on every sample.
"""

from __future__ import annotations

import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_schubfach_table as gen  # noqa: E402

X_MAX = 2**55  # every x = 4c + 2 <= 4 * (2^53 - 1) + 2 is below this
STICKY = 2**61  # the threshold on P mod 2^128 in round_to_odd()


def min_max_residue(a: int, b: int, xmax: int) -> tuple[int, int]:
    """(min, max) of (a * x mod b) over 1 <= x <= xmax, for gcd(a, b) = 1 and 1 <= xmax < b.

    The lattice of points (x, y = a*x - b*p) is walked with a basis L = (xL, yL), yL > 0, and
    R = (xR, yR), yR < 0, starting from (0, b) and (1, a - b); each step replaces one by the mediant
    L + R. Every lattice point with x > 0 and 0 < y < yL (or yR < y < 0) is i*L + j*R with i, j >= 1,
    so its x is at least xL + xR: once xL + xR > xmax, yL is the smallest positive residue and
    b + yR the largest one reachable with x <= xmax. Runs of steps on the same side are taken at once.
    """
    a %= b
    x_l, y_l = 0, b
    x_r, y_r = 1, a - b
    while x_l + x_r <= xmax:
        if y_l + y_r > 0:  # the mediant is above: it becomes L, as many times as it stays so
            j = min((y_l - 1) // -y_r, (xmax - x_l) // x_r)
            x_l, y_l = x_l + j * x_r, y_l + j * y_r
        else:
            j = min((-y_r - 1) // y_l, (xmax - x_r) // x_l)
            x_r, y_r = x_r + j * x_l, y_r + j * y_l
    assert 1 <= x_l <= xmax and 1 <= x_r <= xmax
    return y_l, b + y_r


def self_test_min_max(rounds: int = 20000) -> None:
    rng = random.Random(8785)
    done = 0
    while done < rounds:
        b = rng.randint(2, 2000)
        a = rng.randint(1, b - 1)
        if math.gcd(a, b) != 1:
            continue
        xmax = rng.randint(1, b - 1)
        residues = [a * x % b for x in range(1, xmax + 1)]
        assert min_max_residue(a, b, xmax) == (min(residues), max(residues)), (a, b, xmax)
        done += 1


def c_floor(x: int, m: int, s: int, bias: int, t: int) -> int:
    """The C multiply-shift evaluation ((x * M + BIAS) >> S) - T."""
    return ((x * m + bias) >> s) - t


def bound_margin() -> int:
    """BOUND_MARGIN as number_format.c defines it."""
    text = (Path(__file__).resolve().parent / "number_format.c").read_text(encoding="utf-8")
    found = re.search(r"^#define BOUND_MARGIN (\d+)$", text, re.M)
    assert found, "number_format.c defines no BOUND_MARGIN"
    return int(found.group(1))


def bound_margin_needed(max_eps: Fraction, u_max: int) -> int:
    """The least M with M > u + max_eps / 2^64 (the lower sum's offsets) and M >= u (the upper
    sum's: a + 1 + u <= 2^64 for a <= 2^64 - 1 - M), for the largest u = 2 << h."""
    assert 0 < max_eps < 2**64
    return max(math.floor(u_max + max_eps / 2**64) + 1, u_max)


def nearer(vb: int) -> int:
    """The nearer multiple of 10^k, in units of 10^k, from the centre's round-to-odd vb."""
    return (vb + 1 + ((vb >> 2) & 1)) >> 2


def no_tie_form(period: int = 8) -> bool:
    """(top + 2) >> 2 == nearer(top | 1) for every top: three periods decide it."""
    return all((top + 2) >> 2 == nearer(top | 1) for top in range(0, 3 * period))


def fast_bounds(g: int, h: int, cb: int, margin: int) -> tuple[int, int, int] | None:
    """scale_regular's results as the C computes them: the bounds' floors and n, (fl, n, fr), or
    None where it falls back."""
    cp = cb << h
    mid = (cp * g) >> 64  # floor(P(4c) / 2^64): the C's two products and carry
    if mid % 2**64:
        n = ((mid >> 64) + 2) >> 2
    else:  # the sticky bit from P's low word (P mod 2^128 >= 2^61)
        n = nearer((mid >> 64) | ((cp * g) % 2**128 >= STICKY))
    d = (g >> 64) * (2 << h)  # g0 * u
    up, down = mid + d, mid - d
    for word in (up % 2**64, down % 2**64):
        if not margin <= word <= 2**64 - 1 - margin:
            return None
    return down >> 64, n, up >> 64


def choice(vbl: int, vb: int, vbr: int, open_: int) -> int:
    """The decimal the C picks from the three round-to-odd values (shortest_common's arithmetic,
    with the exact path's move inwards for an open interval when open_ is 1)."""
    lo, hi = vbl + open_, vbr - open_
    w10 = 10 * (hi // 40)
    return w10 if 4 * w10 >= lo else nearer(vb)


def common_choice(fl: int, n: int, fr: int) -> int:
    """The decimal shortest_common picks, from the bounds' floors (no move for an open interval)."""
    w10 = 10 * (fr // 40)
    return w10 if 4 * w10 > fl else n


def floors_suffice(period: int = 40) -> bool:
    """For every y and open in {0, 1}: 4m >= (y | 1) + open iff 4m > y, and ((y | 1) - open) // 40
    == y // 40. Both sides move by whole periods when y and m do (y by 40, m by 10), so three
    periods of y with every m that can matter decide them."""
    for y in range(0, 3 * period):
        for open_ in (0, 1):
            if ((y | 1) - open_) // 40 != y // 40:
                return False
            for m in range(0, y // 4 + 3):
                if (4 * m >= (y | 1) + open_) != (4 * m > y):
                    return False
    return True


def nearest_inside(q: int, k: int, half_width: Fraction) -> bool:
    """Whether the nearer multiple of 10^k to any v = c * 2^q lies inside an interval reaching
    half_width (in units of 10^k / 4) on that side: above 2, or 2 where E(4c) = 4c * 2^q * 10^-k
    is always a multiple of 4 (2^q * 10^-k an integer)."""
    if half_width > 2:
        return True
    return half_width == 2 and (Fraction(2) ** q / Fraction(10) ** k).denominator == 1


def check_fast_bounds(table, k_min, f10p2, f2p10, margin, per_q: int = 6) -> int:
    """fast_bounds against the exact round-to-odd floors of E(4c -/+ 2), at every regular exponent
    for the extreme significands and a few random ones; returns how many took the fast path."""
    rng = random.Random(8785)
    done = 0
    for q in range(gen.Q_MIN, gen.Q_MAX + 1):
        k = c_floor(q, f10p2[0], f10p2[1], f10p2[2], f10p2[3])
        h = q + c_floor(-k, f2p10[0], f2p10[1], f2p10[2], f2p10[3]) + 1
        g = table[k - k_min]
        c_lo = 1 if q == gen.Q_MIN else 2**52
        for c in [c_lo, 2**53 - 1] + [rng.randrange(c_lo, 2**53) for _ in range(per_q)]:
            got = fast_bounds(g, h, 4 * c, margin)
            if got is None:
                continue
            exact = []
            for x in (4 * c - 2, 4 * c, 4 * c + 2):
                e = Fraction(x) * Fraction(2) ** q / Fraction(10) ** k
                exact.append(math.floor(e) | (e.denominator != 1))
            assert (got[0] | 1, got[2] | 1) == (exact[0], exact[2]), (q, c)
            assert common_choice(*got) == choice(*exact, c & 1), (q, c)
            done += 1
    return done


def check() -> str:
    self_test_min_max()
    k_min, k_max, f10p2, f10tq, f2p10, table = gen.build()
    m10, s10, _, b10, t10 = f10p2
    mtq, stq, _, btq, ttq = f10tq
    m2, s2, _, b2, t2 = f2p10
    hm, hs = gen.h_from_fraction()

    worst_low = worst_high = worst_eps = None
    worst_h = 0
    cases = 0
    irregular_outside = 0
    for q in range(gen.Q_MIN, gen.Q_MAX + 1):
        ks = {c_floor(q, m10, s10, b10, t10)}
        if q > gen.Q_MIN:  # c = 2^52 at q > Q_MIN: the irregular interval
            ks.add(c_floor(q, mtq, stq, btq, ttq))
        k_regular = c_floor(q, m10, s10, b10, t10)
        unit = Fraction(2) ** q / Fraction(10) ** k_regular  # E(1): 2^q * 10^-k
        assert nearest_inside(q, k_regular, 2 * unit), (q, k_regular)  # lower and upper: E(2)
        if q > gen.Q_MIN:
            k_irr = c_floor(q, mtq, stq, btq, ttq)
            # the irregular lower half-width E(1) = 2^q * 10^-k: not always enough
            irregular_outside += not nearest_inside(q, k_irr, Fraction(2) ** q / Fraction(10) ** k_irr)
        for k in ks:
            cases += 1
            flog2 = c_floor(-k, m2, s2, b2, t2)
            assert flog2 == gen.exact_flog2_pow10(-k)
            h = q + flog2 + 1
            assert 1 <= h <= 4, (q, k, h)
            if k == k_regular:  # flog10_pow2_h's h, from the fraction of k's operand
                t = q * m10 + b10
                assert ((t & (2**s10 - 1)) * hm >> hs) + 1 == h, (q, k)
            worst_h = max(worst_h, h)
            assert (X_MAX << h) < 2**64, (q, k)
            r = flog2 - 127
            g = table[k - k_min]
            exact_g = Fraction(10) ** -k * Fraction(2) ** -r
            delta = g - exact_g
            assert 0 < delta <= 1, (q, k)
            # (a) the error of P against E * 2^128, at its largest x
            eps = (X_MAX << h) * delta
            assert eps < STICKY, (q, k)
            ratio = Fraction(2) ** q / Fraction(10) ** k
            a, b = ratio.numerator, ratio.denominator
            if b <= X_MAX:
                lo, hi = 1, b - 1  # residues may be 0 (E an integer); nonzero ones lie here
            else:
                lo, hi = min_max_residue(a, b, X_MAX)
            low = Fraction(lo, b) * 2**128  # smallest nonzero frac(E) * 2^128
            high = Fraction(b - hi, b) * 2**128  # smallest (1 - frac(E)) * 2^128
            assert low >= STICKY, (q, k, float(low))  # (b)
            assert high > eps, (q, k)  # (c)
            if worst_low is None or low < worst_low[0]:
                worst_low = (low, q, k)
            if worst_high is None or high < worst_high[0]:
                worst_high = (high, q, k)
            if worst_eps is None or eps > worst_eps[0]:
                worst_eps = (eps, q, k)
    assert irregular_outside > 0  # the shortcut's test can fail: it is not vacuous
    assert floors_suffice()
    assert no_tie_form()
    margin = bound_margin()
    needed = bound_margin_needed(worst_eps[0], 2 << worst_h)
    assert margin >= needed, f"BOUND_MARGIN {margin} < {needed}"
    sampled = check_fast_bounds(table, k_min, (m10, s10, b10, t10), (m2, s2, b2, t2), margin)
    return (
        f"ok: {cases} (q, k) cases, the nearer decimal inside every regular interval "
        f"({irregular_outside} irregular exponents need the full choice); bounds from the "
        f"centre exact at BOUND_MARGIN {margin} (needs {needed}; model agrees on {sampled} samples); "
        f"min frac(E) = 2^{math.log2(worst_low[0]) - 128:.2f} "
        f"(q={worst_low[1]}, k={worst_low[2]}), min 1 - frac(E) = "
        f"2^{math.log2(worst_high[0]) - 128:.2f} (q={worst_high[1]}, k={worst_high[2]}), "
        f"max eps = 2^{math.log2(worst_eps[0]) - 128:.2f}; sticky threshold 2^{61 - 128}"
    )


if __name__ == "__main__":
    print(check())

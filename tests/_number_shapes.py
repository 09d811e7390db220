"""Number tokens in every shape near the limits of the C text path's copy (csrc/text.c,
number_token): tests/core/test_number_tokens.py checks them through both backends,
tests/c/test_text_builds.py through each build of the C core."""

from __future__ import annotations

import math

import rfc8785


def reference(token: str) -> bytes | None:
    """The canonical form of a number token, or None when it overflows a double."""
    x = float(token)
    if math.isinf(x):
        return None
    return rfc8785.dumps(x)


def spellings(digits: str, exp10: int) -> list[str]:
    """Ways to write the value 0.digits * 10^exp10 (digits without leading zeros): plain with the
    point anywhere, "0." with zeros, and exponent forms of each spelling."""
    out = []
    k = len(digits)
    # plain, when the point falls within reach of the digits
    if -10 <= exp10 <= 25:
        if exp10 <= 0:
            out.append("0." + "0" * -exp10 + digits)
            out.append("0." + "0" * -exp10 + digits + "0")
        elif exp10 >= k:
            out.append(digits + "0" * (exp10 - k))
            out.append(digits + "0" * (exp10 - k) + ".0")
        else:
            out.append(digits[:exp10] + "." + digits[exp10:])
            out.append(digits[:exp10] + "." + digits[exp10:] + "00")
    # one digit before the point, the exponent exp10 - 1 spelled every way
    e = exp10 - 1
    mant = digits[0] + ("." + digits[1:] if k > 1 else "")
    sign = "+" if e >= 0 else "-"
    for marker in ("e", "E"):
        out.append(f"{mant}{marker}{sign}{abs(e)}")
        out.append(f"{mant}{marker}{e}")
        out.append(f"{mant}{marker}{sign}0{abs(e)}")
    out.append(f"{mant}0e{sign}{abs(e)}")  # a trailing zero
    # all digits before the point, and a leading "0."
    out.append(f"{digits}e{e - k + 1}")
    out.append(f"0.{digits}e{exp10}")
    out.append(f"{digits}.0e{e - k + 1}")
    return out


DIGIT_STRINGS = [
    "1",
    "5",
    "9",
    "12",
    "15",
    "99",
    "123456",
    "100000000000001",  # 15 digits
    "999999999999999",
    "123456789012345",
    "1000000000000001",  # 16 digits
    "9999999999999999",
    "1234567890123456",
    "2225073858507201",
    "17976931348623157",  # 17 digits
    "12345678901234567",
    "10000000000000001",
    "49406564584124654",
    "123456789012345678",  # 18 and 19: never the shortest
    "1234567890123456789",
]

EXPONENTS = sorted(
    {*range(-8, 3), *range(14, 24), -305, -306, -307, -308, -309, -320, -323, -324, 300, 307, 308, 309, 310}
)


def tokens() -> list[str]:
    """Every spelling of every digit string at every exponent, with either sign."""
    return [
        sign + t
        for digits in DIGIT_STRINGS
        for exp10 in EXPONENTS
        for sign in ("", "-")
        for t in spellings(digits, exp10)
    ]

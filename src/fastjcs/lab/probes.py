"""The probes of `fastjcs bench`: fixed inputs whose RFC 8785 form is written out here, each naming
the RFC clause it tests, and `probe_report`, which labels a candidate JCS-correct or not by them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Callable

from .canonicalizers import Candidate, CannotStart

# ---------------------------------------------------------------------------------------------------
# Probes: each gives a JSON text (and, where Python values can say the same thing, the parsed value)
# and the RFC 8785 bytes it must produce, or None where it must be refused. The expected bytes are
# typed from RFC 8785 (section 3.2.2's and 3.2.3's examples, as in the repository's vectors/rfc8785)
# and from the ES6 Number-to-String rules the RFC adopts (section 3.2.2.3); docs/contract.md
# ("The canonical form") states the same rules.
# ---------------------------------------------------------------------------------------------------

_TEXT_ONLY = object()  # a probe Python values cannot state (a JSON number beyond 2^53, "-0" as text)


@dataclass(frozen=True)
class Probe:
    name: str
    clause: str  # the RFC clause it tests
    text: bytes  # the input in text mode
    want: bytes | None  # the canonical bytes; None: the input must be refused
    obj: Any = _TEXT_ONLY  # the input in object mode, or _TEXT_ONLY
    #: an integer beyond 2^53: I-JSON lets a receiver refuse it (the lab's class i-json-choice;
    #: a test holds it to classify.beyond_2_53)
    may_refuse: bool = False

    @property
    def has_obj(self) -> bool:
        return self.obj is not _TEXT_ONLY


def _v(name: str, clause: str, value: Any, want: bytes | None) -> Probe:
    """A probe stated as a Python value; its text is json.dumps of it."""
    return Probe(name, clause, json.dumps(value).encode("ascii"), want, value)


def _t(name: str, clause: str, text: str, want: bytes | None, obj: Any = _TEXT_ONLY, may_refuse: bool = False) -> Probe:
    return Probe(name, clause, text.encode("ascii"), want, obj, may_refuse)


_NUM = "RFC 8785 3.2.2.3 (ES6 Number serialization)"
_STR = "RFC 8785 3.2.2.2 (strings)"
_SORT = "RFC 8785 3.2.3 (sorting by UTF-16 code units)"

PROBES: list[Probe] = [
    _v(
        "rfc8785-3.2.2-numbers",
        "RFC 8785 3.2.2 (example)",
        {"numbers": [333333333.33333329, 1e30, 4.50, 2e-3, 0.000000000000000000000000001]},
        b'{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]}',
    ),
    _v(
        "rfc8785-3.2.2-string",
        "RFC 8785 3.2.2 (example)",
        {"string": "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/"},
        '{"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'.encode("utf-8"),
    ),
    _v(
        "rfc8785-3.2.2-literals",
        "RFC 8785 3.2.2 (example)",
        {"literals": [None, True, False]},
        b'{"literals":[null,true,false]}',
    ),
    _v(
        "rfc8785-3.2.3-sorting",
        "RFC 8785 3.2.3 (example)",
        {
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\U0001f600": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis",
        },
        (
            '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",'
            '"\u20ac":"Euro Sign","\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
        ).encode("utf-8"),
    ),
    _v("astral-vs-private-use", _SORT, {"\ue000": 1, "\U0001f602": 2}, '{"\U0001f602":2,"\ue000":1}'.encode("utf-8")),
    _t(
        "astral-vs-bmp-top-escaped",
        _SORT,
        '{"\\uffff":3,"\\ue000":1,"\\ud83d\\ude02":2}',
        '{"\U0001f602":2,"\ue000":1,"\uffff":3}'.encode("utf-8"),
        {"\uffff": 3, "\ue000": 1, "\U0001f602": 2},
    ),
    _v("1e21", _NUM, [1e21, 1e20], b"[1e+21,100000000000000000000]"),
    _t("1e21-boundary", _NUM, "[999999999999999868928,1e21]", b"[999999999999999900000,1e+21]", may_refuse=True),
    _v("1e-7", _NUM, [1e-7, 1e-6], b"[1e-7,0.000001]"),
    _v("-0", _NUM, [-0.0, 0.0], b"[0,0]"),
    _t("-0-text", _NUM, "[-0,-0.0,-0e5]", b"[0,0,0]"),
    _v("integral-float", _NUM, [1.0, -5.0], b"[1,-5]"),
    _v("extremes", _NUM, [5e-324, 1.7976931348623157e308], b"[5e-324,1.7976931348623157e+308]"),
    _t(
        "subnormal",
        _NUM,
        "[2.5e-324,4.9406564584124654e-324,2.2250738585072009e-308]",
        b"[5e-324,5e-324,2.225073858507201e-308]",
        [5e-324, 5e-324, 2.2250738585072009e-308],
    ),
    _v("tie-to-even", _NUM, [1424953923781206.2], b"[1424953923781206.2]"),
    _t("halfway", _NUM, "[1.00000000000000011102230246251565404236316680908203125]", b"[1]", [1.0], True),
    _t(
        "near-halfway",
        _NUM,
        "[1.00000000000000011102230246251565404236316680908203126]",
        b"[1.0000000000000002]",
        [1.0000000000000002],
        True,
    ),
    _t("int-2^53+1", _NUM, "[9007199254740993]", b"[9007199254740992]", may_refuse=True),
    _t("int-17-digits", _NUM, "[12345678901234567]", b"[12345678901234568]", may_refuse=True),
    _t(
        "int-2^63",
        _NUM,
        "[9223372036854775808,-9223372036854775808]",
        b"[9223372036854776000,-9223372036854776000]",
        may_refuse=True,
    ),
    _t("int-2^64", _NUM, "[18446744073709551616]", b"[18446744073709552000]", may_refuse=True),
    _v("controls", _STR, ["\u0000\u001f\u007f\u2028"], '["\\u0000\\u001f\u007f\u2028"]'.encode("utf-8")),
    _t(
        "u2028-uffff",
        _STR,
        '["\\u2028\\u2029\\uffff"]',
        '["\u2028\u2029\uffff"]'.encode("utf-8"),
        ["\u2028\u2029\uffff"],
    ),
    _v("non-ascii-raw", "RFC 8785 3.2.4 (UTF-8)", ["\u00e9\U0001f602"], '["\u00e9\U0001f602"]'.encode("utf-8")),
    _t(
        "lone-surrogate-refused",
        "RFC 8785 3.2.2.2 with I-JSON (RFC 7493 2.1): a lone surrogate is refused",
        '["\\ud800","\\udc00x"]',
        None,
        ["\ud800", "\udc00x"],
    ),
]


def probe_report(c: Candidate) -> tuple[list[str], list[str]]:
    """(wrong, refused): the probes `c` gets wrong (wrong bytes, a refusal of a valid input, or
    bytes for an input that must be refused), and the probes with an integer beyond 2^53 it
    refuses (an I-JSON choice, IJSON_CHOICE_WORDS; the lab's class i-json-choice). Those
    refusals are reported, not counted against JCS-correctness: RFC 8785 leans on
    I-JSON, which lets a receiver refuse such numbers (rfc8785 refuses integers beyond 2^53)."""
    wrong: list[str] = []
    refused: list[str] = []
    for p in PROBES:
        calls: list[Callable[[], bytes]] = [functools.partial(c.text, p.text)]
        if p.has_obj and c.obj_native:
            calls.insert(0, functools.partial(c.from_obj, p.obj))
        outcome = "ok"
        for call in calls:
            try:
                out: bytes | None = call()
            except CannotStart:
                raise
            except Exception:  # noqa: BLE001 - a peer may raise anything: a refusal
                out = None
            if out != p.want:
                outcome = "refused" if out is None and p.may_refuse else "wrong"
                if outcome == "wrong":
                    break
        if outcome == "wrong":
            wrong.append(p.name)
        elif outcome == "refused":
            refused.append(p.name)
    return wrong, refused


def probe(c: Candidate) -> list[str]:
    """The names of the probes `c` gets wrong: wrong bytes, or an input that must be refused
    accepted. (Refusals of valid probes are in probe_report.)"""
    return probe_report(c)[0]

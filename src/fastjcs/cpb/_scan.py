"""A token-level scanner for jcs-n and the checker: it sees what json.loads collapses.

`json.loads` cannot tell `-0` from `0`, `1.0` or `1e0` from `1`, and keeps only the last of two
equal member names; the jcs-n wire rules are about exactly those things. This scanner walks the
text with the reference parser's own pieces (`fastjcs.core.parser`: string scanning, number and literal
errors, the same byte offsets), so every text that `fastjcs.canonicalize` refuses is refused here
with the same exception class, message and offset: strict RFC 8259 first. On top of that it records
findings, each with its JSON path and byte offset:

    R  non-integer-number  a number token outside 0|-?[1-9][0-9]*  (12.50, 1e2, -0)
    R  unsafe-integer      an integer token outside +/-(2^53-1)
    R  duplicate-name      a member name equal to an earlier one of the same object after NFC
    P  empty-member        a member whose value is null, [] or {} (array elements are exempt)

Three modes:
    "jcs"    RFC 8785 only: an exact duplicate name raises DuplicateKeyError, as canonicalize does;
             no findings.
    "jcs-n"  an exact duplicate raises DuplicateNameTextError (a DuplicateKeyError) where
             canonicalize would raise; the R findings are recorded for the caller to judge (the
             caller drops those under excluded top-level members).
    "check"  everything is a finding, exact duplicates included; nothing but RFC 8259 raises.

Like the reference parser it never recurses: containers live on an explicit stack, and the depth
limit raises DepthLimitError at the bracket that opens one container too many.
"""

from __future__ import annotations

import re
import unicodedata
from json.encoder import encode_basestring as _json_string
from typing import Any, NamedTuple, Union, cast

from ..core.errors import DuplicateKeyError, FloatDomainError, IntegerDomainError
from ..core.parser import INF, Parser, integer_token_refusal
from .errors import DuplicateNameTextError

#: The jcs-n integer token grammar (the design contract in the docs, "jcs-n"). \A...\Z, never ^...$: `$` matches
#: before a newline. The scanner applies it as the core's integer-only rule
#: (`fastjcs.core.parser.integer_token_refusal`) plus jcs-n's own refusal of `-0`.
INTEGER_TOKEN = re.compile(r"\A(?:0|-?[1-9][0-9]*)\Z")

PathSegment = Union[str, int]
Path = tuple[PathSegment, ...]


def format_path(path: Path) -> str:
    """`$` then `["name"]` per member (a JSON string, escaped as RFC 8785 escapes) and `[i]` per element."""
    return "$" + "".join(f"[{_json_string(seg)}]" if isinstance(seg, str) else f"[{seg}]" for seg in path)


def nfc(name: str) -> str:
    """The NFC form of a member name (ASCII is already NFC)."""
    if name.isascii():
        return name
    return unicodedata.normalize("NFC", name)


class Finding(NamedTuple):
    """One rule violation found in the text."""

    rule: str  # "P" or "R"
    code: str  # empty-member, non-integer-number, unsafe-integer, duplicate-name
    path: Path  # where: the member (P, duplicate-name) or the number's place (R numbers)
    offset: int  # byte offset: the member name's quote, or the number token
    token: str | None = None  # the number token, for R numbers
    earlier: tuple[str, ...] = ()  # duplicate-name: the earlier names it repeats (NFC-equal)

    @property
    def key(self) -> str | None:
        return self.path[-1] if self.path and type(self.path[-1]) is str else None


class Scan(NamedTuple):
    value: Any  # Python values: safe integer tokens as int, other numbers as float
    findings: list[Finding]  # in the order met (not sorted)


class _Frame:
    __slots__ = ("value", "key", "key_index", "names", "dup")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key: str | None = None
        self.key_index = 0
        self.names: dict[str, list[str]] | None = {} if type(value) is dict else None
        self.dup: tuple[int, str, Path] | None = None  # first exact duplicate, raised at close


def _path(stack: list[_Frame]) -> Path:
    """The JSON path of the value being stored in the innermost open container."""
    out: list[PathSegment] = []
    for frame in stack:
        container = frame.value
        # an object's frame holds the name of the member whose value is being read
        out.append(len(container) if type(container) is list else cast(str, frame.key))
    return tuple(out)


class _Scanner(Parser):
    """The reference parser, its hooks extended to record findings (module docstring)."""

    frame_type = _Frame

    def __init__(self, data: bytes, max_depth: int, mode: str) -> None:
        super().__init__(data, max_depth)
        self.mode = mode
        self.record = mode != "jcs"
        self.check = mode == "check"
        self.findings: list[Finding] = []

    def number(self, m: re.Match[str], i: int) -> Any:
        token = m.group(0)
        value = float(token)
        if value == INF or value == -INF:
            raise self.src.fail(FloatDomainError, "number overflows a double", i)
        # Integer-only JCS's rule (the core's, one for all), then jcs-n's own: `-0` is refused too.
        refusal = integer_token_refusal(m)
        if refusal is None and token != "-0":
            return int(token)  # at most 16 digits: the rule decided on the digits, before int()
        if refusal is IntegerDomainError:
            if self.record:
                self.findings.append(Finding("R", "unsafe-integer", _path(self.stack), i, token))
        elif self.record:
            self.findings.append(Finding("R", "non-integer-number", _path(self.stack), i, token))
        return value

    def store(self, frame: Any, key: str, value: Any) -> None:
        container = frame.value
        if self.record:
            at = frame.key_index
            if self.check and (value is None or (type(value) in (dict, list) and not value)):
                self.findings.append(Finding("P", "empty-member", _path(self.stack), at))
            earlier = frame.names.setdefault(nfc(key), [])
            if earlier and (self.check or key not in earlier):
                self.findings.append(Finding("R", "duplicate-name", _path(self.stack), at, None, tuple(earlier)))
            if key not in earlier:
                earlier.append(key)
        if not self.check and key in container and frame.dup is None:
            frame.dup = (frame.key_index, key, _path(self.stack))
        container[key] = value

    def close(self, frame: Any) -> Any:
        """An exact duplicate: refused where and as the reference parser refuses it (in "check"
        mode it is a finding, recorded by store)."""
        if frame.dup is None:
            return frame.value
        at, name, path = frame.dup
        msg = f"duplicate member name {name!r}"
        if self.mode == "jcs":
            raise self.src.fail(DuplicateKeyError, msg, at, key=name)
        raise DuplicateNameTextError(msg, format_path(path), self.src.data, at, key=name)


def scan(data: bytes, max_depth: int, mode: str) -> Scan:
    """Parse strict JSON text into values and findings (see the module docstring), iteratively."""
    if mode not in ("jcs", "jcs-n", "check"):
        raise ValueError(f"unknown scan mode {mode!r}")
    scanner = _Scanner(data, max_depth, mode)
    return Scan(scanner.parse(), scanner.findings)

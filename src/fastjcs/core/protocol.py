"""The backend interface: every operation the API asks of a backend, with its signature.

Both backends (`fastjcs.core.python_backend`, the reference, and `fastjcs.core.native_backend`,
the C core) are modules that implement this Protocol, with the same answers and the same
exceptions; a test holds each to it. The API checks and normalizes the arguments first: data is
a contiguous bytes-like object, `max_depth` a non-negative int no larger than sys.maxsize,
`algorithm` an exact "sha256" or "sha384", `strict_integers` and `integers_only` bools
(`integers_only`, integer-only JCS, refuses floats and number tokens with a fraction or an
exponent part with NonIntegerNumberError, and implies `strict_integers` for text).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Union

from .errors import CanonicalizationError

Buffer = Union[bytes, bytearray, memoryview]


class Backend(Protocol):
    """What a backend module provides."""

    #: "python" or "native"
    NAME: str

    def dumps(self, obj: Any, max_depth: int, integers_only: bool = False, default: Any = None) -> bytes:
        """The canonical UTF-8 bytes of a Python value (`default`: called for a value of another
        type, its result written in its place)."""

    def canonicalize(self, data: Buffer, max_depth: int, strict_integers: bool, integers_only: bool = False) -> bytes:
        """The canonical UTF-8 bytes of a JSON text, parsed strictly."""

    def canonicalize_to(
        self,
        data: Buffer,
        write: Callable[[Any], Any],
        max_depth: int,
        strict_integers: bool,
        integers_only: bool = False,
    ) -> None:
        """Canonicalize, then pass the result to `write` in one call, only on success."""

    def format_double(self, x: float) -> str:
        """A float formatted as ECMAScript formats it."""

    def digest(self, obj: Any, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None) -> str:
        """The digest of a value's canonical form, rendered "<algorithm>:<lowercase hex>"."""

    def digest_text(
        self, data: Buffer, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
    ) -> str:
        """The digest of a JSON text's canonical form, rendered "<algorithm>:<lowercase hex>"."""

    def digest_many(
        self, objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
    ) -> list[bytes]:
        """The raw digest of each value's canonical form; the first failure is raised with
        `index` set to its position."""

    def digest_many_rendered(
        self, objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
    ) -> list[str]:
        """digest_many's digests, rendered "<algorithm>:<lowercase hex>"."""

    def digest_texts(
        self, texts: list[bytes], max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
    ) -> list[bytes | CanonicalizationError]:
        """Per text: the raw digest of its canonical form, or the error it raised (`index`
        set); nothing is raised for a bad text."""

    def digest_lines_hex(
        self,
        data: Buffer,
        max_depth: int,
        strict_integers: bool,
        algorithm: str,
        prefix: str,
        integers_only: bool = False,
    ) -> tuple[bytes, int, list]:
        """The lines of a JSONL text (`fastjcs.core.jsonl_split.split_lines`) digested for the command
        line: (output, number of lines, failures). The output holds, per line that
        canonicalizes, prefix + hex digest + "\\n"; a failing line puts nothing there and adds
        a tuple (line index, line start, position of its line in the output, byte offset of the
        error in the line or None, "ErrorClass: message" on one line)."""

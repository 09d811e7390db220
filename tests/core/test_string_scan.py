"""The text parser copies a string without escapes as it validates it, 16 bytes at a time (8
without SSE2), stopping at '"', '\\', a control or a byte >= 0x80. These put each kind of byte at
every position of the first blocks, and at the input's last bytes (fewer than a block), in values
and in member names. Expected canonical forms from rfc8785 over json.loads; expected error
offsets from how each text is built.

Catches: a wrong first flagged byte (an off-by-one in the block's offset), bytes >= 0x80 or
controls let through unvalidated, a copy that keeps part of a string that then took the escaped
path, a member name recorded with the wrong bytes (wrong order, duplicates missed), the closing
quote missed near the end of the input.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785

import fastjcs
from fastjcs.core import backends

LENGTHS = list(range(0, 36)) + [47, 48, 49, 63, 64, 65]
PIECES = ["\u00e9", "\u4e2d", "\U0001f600", '"', "\\", "\n", "\x01", "\x7f", "/"]


def text_of(value) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def canonical(text: bytes) -> bytes:
    return rfc8785.dumps(json.loads(text))


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("filler", ["a", "\u00e9"])
def test_piece_at_every_position(piece, filler):
    for before in LENGTHS:
        for after in (0, 1, 15, 16, 17):
            s = filler * before + piece + filler * after
            for value in (s, [s, "x"], {s: 1, "a": s}, {"z": s, s: [s]}):
                text = text_of(value)
                assert fastjcs.canonicalize(text) == canonical(text), (before, after, value)


def test_names_that_differ_late_are_ordered_and_told_apart():
    # Two names alike up to a byte past the first block(s): ordered by that byte; the same name
    # twice is a duplicate, reported at the second one's opening quote.
    for n in LENGTHS:
        a, b = "k" * n + "b", "k" * n + "a"
        text = text_of({a: 1, b: 2})
        assert fastjcs.canonicalize(text) == canonical(text)
        dup = ('{"' + a + '": 1, "' + a + '": 2}').encode()
        with pytest.raises(fastjcs.DuplicateKeyError) as info:
            fastjcs.canonicalize(dup)
        assert info.value.offset == len('{"' + a + '": 1, '), n


BAD_BYTES = [
    (b"\x01", "control character"),
    (b"\x1f", "control character"),
    (b"\x80", "invalid UTF-8"),  # a continuation byte first
    (b"\xc0\xaf", "invalid UTF-8"),  # overlong
    (b"\xed\xa0\x80", "invalid UTF-8"),  # a surrogate
    (b"\xf4\x90\x80\x80", "invalid UTF-8"),  # above U+10FFFF
    (b"\xe4\xb8a", "invalid UTF-8"),  # cut short
    (b"\xff", "invalid UTF-8"),
    (b"\\x", "invalid escape"),
    (b"\\ud800a", "lone surrogate"),
]


@pytest.mark.parametrize("bad, words", BAD_BYTES)
def test_error_at_every_position(bad, words):
    for before in LENGTHS:
        for prefix in (b'["', b'{"'):
            for after in (b'"]', b"a" * 20 + b'"]'):
                text = prefix + b"a" * before + bad + after
                at = len(prefix) + before
                with pytest.raises(fastjcs.InvalidJSONError) as info:
                    fastjcs.canonicalize(text)
                assert info.value.offset == at, (text, str(info.value))
                assert words in str(info.value)
                # A valid escape earlier in the string: the escaped path finds the same error.
                text = prefix + b"\\n" + b"a" * before + bad + after
                with pytest.raises(fastjcs.InvalidJSONError) as info:
                    fastjcs.canonicalize(text)
                assert info.value.offset == at + 2, (text, str(info.value))


def test_unterminated_at_every_length():
    for n in LENGTHS:
        for body in (b"a" * n, "\u00e9".encode() * n, b"\\n" + b"a" * n):
            text = b'["' + body
            with pytest.raises(fastjcs.InvalidJSONError) as info:
                fastjcs.canonicalize(text)
            assert info.value.offset == len(text), text
            assert "unterminated string" in str(info.value)


def test_json_lines_strings_end_at_their_line():
    # Through the batch path of `digest --jsonl`: each line is its own input, so a string is not
    # read past its line's end, and a raw newline ends an unterminated string at the line's end.
    impl = backends.impl()
    lines = [text_of({"k" * n: "v" * n + "\u00e9"}) for n in LENGTHS]
    data = b"\n".join(lines) + b'\n["abc\n["' + b"d" * 40 + b'"]\n'
    out, count, failures = impl.digest_lines_hex(data, 1000, False, "sha256", "sha256:", False)
    assert count == len(lines) + 2
    expected = b"".join(b"sha256:%s\n" % hashlib.sha256(canonical(line)).hexdigest().encode() for line in lines)
    assert out.startswith(expected)
    assert len(failures) == 1
    index, start, _out_at, offset, what = failures[0]
    assert (index, offset) == (len(lines), 5)
    assert "unterminated string" in what

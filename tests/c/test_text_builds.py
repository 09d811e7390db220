"""The text parser built with each way of scanning strings (tests/c/text_check.c): 16 bytes at a
time with SSE2 (the default on x86-64), 8 at a time with little-endian words
(-DFJCS_HAVE_SSE2=0), and a word test then byte by byte (-DFJCS_HAVE_SSE2=0
-DFJCS_HAVE_LITTLE_ENDIAN=0), each under AddressSanitizer and UndefinedBehaviorSanitizer where the
compiler has them. Each kind of byte is put at every position of the first blocks of a string and
among its last bytes. Expected canonical forms from rfc8785 over json.loads; expected errors (code
and offset) from how each text is built.

Number tokens too (tests/_number_shapes.py), in a fourth build whose numbers take the exact
reading path alone.

Catches, in any one build: a wrong first byte to look at, a byte >= 0x80 or a control let through
unvalidated, a copy that keeps part of a string that then took the escaped path, a name recorded
with the wrong bytes, a read past the end of the input (ASan).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import rfc8785
from _number_shapes import reference
from _number_shapes import tokens as number_tokens

ROOT = Path(__file__).resolve().parents[2]
REQUIRE_NATIVE = os.environ.get("FASTJCS_REQUIRE_NATIVE", "") not in ("", "0")

# fastjcs.h's codes
UTF8, SURROGATE, DUPKEY, ESCAPE, CONTROL, UNTERMINATED, FLOAT_DOMAIN = 3, 4, 5, 14, 15, 17, 7

BUILDS = {
    "default": [],
    "words": ["-DFJCS_HAVE_SSE2=0"],
    "bytes": ["-DFJCS_HAVE_SSE2=0", "-DFJCS_HAVE_LITTLE_ENDIAN=0"],
    # numbers read by the exact path alone, formatted without the integer shortcut
    "exact": ["-DFJCS_PARSE_EISEL_LEMIRE=0", "-DFJCS_PARSE_CLINGER=0", "-DFJCS_INTEGER_FAST_PATH=0"],
}
LENGTHS = list(range(0, 36)) + [47, 48, 49, 63, 64, 65]
PIECES = ["\u00e9", "\u4e2d", "\U0001f600", '"', "\\", "\n", "\x01", "\x7f", "/"]
BAD = [
    (b"\x01", CONTROL),
    (b"\x1f", CONTROL),
    (b"\x80", UTF8),
    (b"\xc0\xaf", UTF8),
    (b"\xed\xa0\x80", UTF8),
    (b"\xf4\x90\x80\x80", UTF8),
    (b"\xe4\xb8a", UTF8),
    (b"\xff", UTF8),
    (b"\\x", ESCAPE),
    (b"\\ud800a", SURROGATE),
]


def cases() -> list[tuple[bytes, str]]:
    """(text, expected line of text_check)."""
    out = []
    for filler in ("a", "\u00e9"):
        for piece in PIECES:
            for before in LENGTHS:
                for after in (0, 1, 15, 16, 17):
                    s = filler * before + piece + filler * after
                    for value in (s, {s: 1, "a": s}):
                        text = json.dumps(value, ensure_ascii=False).encode()
                        out.append((text, "ok " + rfc8785.dumps(json.loads(text)).hex()))
    for n in LENGTHS:
        a = "k" * n + "b"
        first = '{"' + a + '": 1, '
        out.append(((first + '"' + a + '": 2}').encode(), f"err {DUPKEY} {len(first)}"))
        for body in (b"a" * n, "\u00e9".encode() * n, b"\\n" + b"a" * n):
            out.append((b'["' + body, f"err {UNTERMINATED} {len(body) + 2}"))
        for bad, code in BAD:
            for escape in (b"", b"\\n"):
                text = b'["' + escape + b"a" * n + bad + b"a" * 20 + b'"]'
                out.append((text, f"err {code} {2 + len(escape) + n}"))
    # number tokens (tests/_number_shapes.py): alone (the input ends with the token: a read past it
    # is ASan's), and twice in an array (the copy of 32 bytes when the input has them)
    for token in number_tokens():
        want = reference(token)
        data = token.encode()
        if want is None:
            out.append((data, f"err {FLOAT_DOMAIN} 0"))
            continue
        out.append((data, "ok " + want.hex()))
        out.append((b"[" + data + b"," + data + b"]", "ok " + (b"[" + want + b"," + want + b"]").hex()))
    return out


def _compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _sanitizers(cc: str, tmp: Path) -> list[str]:
    """-fsanitize=address,undefined when this compiler links them, else nothing."""
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    probe = tmp / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    ok = subprocess.run([cc, *flags, str(probe), "-o", str(tmp / "probe")], capture_output=True).returncode == 0
    return flags if ok else []


@pytest.mark.parametrize("build", list(BUILDS))
def test_every_build_gives_the_expected_answers(build, tmp_path):
    cc = _compiler()
    if cc is None:
        if REQUIRE_NATIVE:
            pytest.fail("no C compiler to build tests/c/text_check.c")
        pytest.skip("no C compiler to build tests/c/text_check.c")
    exe = tmp_path / f"text_check_{build}"
    sources = [str(p) for p in sorted((ROOT / "csrc").glob("*.c"))]
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-g",
            "-Wall",
            "-Wextra",
            "-Werror",
            *_sanitizers(cc, tmp_path),
            *BUILDS[build],
            f"-I{ROOT / 'csrc'}",
            str(ROOT / "tests" / "c" / "text_check.c"),
            *sources,
            "-o",
            str(exe),
        ],
        check=True,
    )
    todo = cases()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1", UBSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run(
        [str(exe)], input="".join(t.hex() + "\n" for t, _ in todo), capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = proc.stdout.splitlines()
    assert len(got) == len(todo)
    for (text, expected), answer in zip(todo, got):
        assert answer == expected, text

"""The other sources: the repository's JCS vectors, the ES6 number corpus, user corpora, and
`load` by source name."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import fastjcs

from ...core.hashing import hash_module
from .cases import _NUM, Case, CorpusCheckError, CorpusError, expectation, generate
from .number import es6_layout

#: The ES6 corpus's hash: its chain of blocks and its published digests (pycryptodome's SHA-256)
_SHA256 = hash_module("sha256")


#: The JCS vector folders of the source tree's vectors/, shipped as package data (in the source
#: tree, the package's vectors/ holds symbolic links to them; a build copies the files).
VECTOR_FOLDERS = ("rfc8785", "text-canonical", "text-must-fail")
_CLAUSE = re.compile(r"RFC (\d{4})(?: (?:sections? (\d(?:[\d.]*\d)?(?:-\d+)?)|(Appendix [A-Z])))?")


def _package_vectors() -> Path:
    root = Path(__file__).with_name("vectors")
    if not all((root / f).is_dir() for f in VECTOR_FOLDERS):
        raise CorpusError(
            "the JCS vectors (package data of fastjcs.lab.corpus) are missing from this "
            "installation: name their folder or files"
        )
    return root


def _clause(*texts: str) -> str:
    """The first RFC clause named in the texts (one with a section preferred), else a fallback."""
    bare = ""
    for text in texts:
        for m in _CLAUSE.finditer(text or ""):
            where = m.group(2) or m.group(3)
            if where:
                return f"RFC {m.group(1)} {where}"
            bare = bare or f"RFC {m.group(1)}"
    return bare or "fastjcs's own limits (no RFC clause)"


def _only_too_deep(text: bytes) -> bool:
    """Is the text a valid JSON text that fastjcs refuses only for its default depth limit?"""
    try:
        fastjcs.canonicalize(text, max_depth=1 << 30)
    except fastjcs.FastJCSError:
        return False
    return True


def _vector_files(paths: Sequence[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.rglob("*.json"))
        elif p.is_file():
            files.append(p)
        else:
            raise CorpusError(f"no such vector file or folder: {p}")
    return files


def _parts(parts: list[list[Any]]) -> bytes:
    return "".join(str(text) * int(count) for text, count in parts).encode("utf-8")


def _vector_input(v: dict[str, Any]) -> bytes:  # a vector as JSON gives it
    if "input_hex" in v:
        return bytes.fromhex(str(v["input_hex"]))
    if "input_str" in v:  # fastjcs encodes a str with surrogatepass: so does the peer's document
        return str(v["input_str"]).encode("utf-8", "surrogatepass")
    if "input_parts" in v:
        return _parts(v["input_parts"])
    return str(v["input"]).encode("utf-8")


def _cases_of_file(path: Path) -> list[Case]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path}: not a readable JSON vector file ({exc})") from None
    folder = path.parent.name
    base = f"vectors/{folder}/{path.name}"
    category = f"vectors-{folder}"
    filewide = (str(data.get("about", "")), str(data.get("source", "")))
    out: list[Case] = []
    if "rows" in data:  # RFC 8785 Appendix B: a double and its rendering (none for NaN, Infinity)
        for i, row in enumerate(data["rows"]):
            if row.get("json") is None:
                continue
            x = struct.unpack(">d", bytes.fromhex(row["ieee754"]))[0]
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(*filewide),
                    repr(x).encode("ascii"),
                    row["json"].encode("ascii"),
                    f"{row['ieee754']} {row.get('comment', '')}".strip(),
                )
            )
    elif "examples" in data:
        for i, ex in enumerate(data["examples"]):
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(ex.get("source", ""), *filewide),
                    ex["input"].encode("utf-8"),
                    ex["output"].encode("utf-8"),
                    ex["name"],
                )
            )
    elif "vectors" in data:
        for i, v in enumerate(data["vectors"]):
            if v.get("options"):  # a keyword of fastjcs.canonicalize no peer is given
                continue
            if "output" in v or "output_parts" in v:
                want: bytes | None = _parts(v["output_parts"]) if "output_parts" in v else v["output"].encode("utf-8")
            elif "error" in v:
                want = None
                if v["error"] == "DepthLimitError" and _only_too_deep(_vector_input(v)):
                    continue  # refused for fastjcs's own depth limit only: no RFC asks a peer to
            else:
                raise CorpusError(f"{base}#{i}: a vector with neither an output nor an error")
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(v.get("note", ""), *filewide),
                    _vector_input(v),
                    want,
                    v.get("name", ""),
                )
            )
    else:
        raise CorpusError(f"{path}: not a JCS vector file (no rows, examples or vectors)")
    return out


def vector_cases(paths: Sequence[str | Path] | None = None) -> list[Case]:
    """The JCS vectors of the given files or folders (default: vectors/rfc8785, text-canonical
    and text-must-fail, shipped with the package; CorpusError where an installation lacks them).
    Expected bytes are the vector files' own (`output`, `json`; None for an `error`), never
    fastjcs's. Skipped, as no peer can be given them: vectors with `options`
    (fastjcs keywords) and Appendix B's NaN and Infinity rows (no JSON text holds them); and, as
    no RFC asks a peer for it, a valid text refused only for fastjcs's default depth limit.
    Appendix B's documents are repr() of the row's double."""
    if paths is None:
        root = _package_vectors()
        paths = [root / f for f in VECTOR_FOLDERS]
    cases = [c for f in _vector_files(paths) for c in _cases_of_file(f)]
    if not cases:
        raise CorpusError(f"no JCS vectors in {', '.join(map(str, paths))}")
    return cases


# ---------------------------------------------------------------------------------------------------
# The ES6 number corpus
# ---------------------------------------------------------------------------------------------------

#: The corpus's 168 static values (16 hex digits a line), shipped with the package.
ES6_STATIC_VALUES = Path(__file__).resolve().with_name("es6-static-values.txt")
#: SHA-256 of the corpus's first N "<hex>,<rendering>\n" lines, as published
#: (docs/contract.md#the-es6-number-corpus).
ES6_PUBLISHED = {
    1_000: "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
    10_000: "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
    100_000: "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
    1_000_000: "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
    100_000_000: "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272",
}
_SMALLEST_NORMAL = 0x0010000000000000
_EXPONENT_MASK = 0x7FF0000000000000
_MAGNITUDE_MASK = 0x7FFFFFFFFFFFFFFF


def es6_static_values() -> list[int]:
    """The corpus's static values, as 64-bit patterns."""
    return [int(line, 16) for line in ES6_STATIC_VALUES.read_text(encoding="ascii").split()]


def es6_bit_patterns() -> Iterator[int]:
    """The corpus's bit patterns, in order, without end: the static values, 2000 patterns
    counting up from the smallest normal, then the four little-endian 64-bit words of each block
    of the chain block = SHA-256(block) from 32 zero bytes, skipping 0, NaN and the infinities."""
    yield from es6_static_values()
    yield from range(_SMALLEST_NORMAL, _SMALLEST_NORMAL + 2000)
    unpack = struct.Struct("<4Q").unpack
    block = bytes(32)
    while True:
        block = _SHA256.new(block).digest()
        for word in unpack(block):
            # Skip +0/-0 (magnitude 0) and NaN/infinities (all exponent bits set).
            if word & _MAGNITUDE_MASK and word & _EXPONENT_MASK != _EXPONENT_MASK:
                yield word


def es6_cases(lines: int) -> list[Case]:
    """The first `lines` lines of the ES6 number corpus as cases: the document is a one-element
    array of a token that reads back to the line's double (repr(), and every other line a
    17-significant-digit spelling), the expected bytes the array of its rendering (an array, not
    the bare number: peers that take only objects and arrays are held to their numbers too).
    Every rendering (fastjcs's) is checked against `es6_layout`, and the "<hex>,<rendering>\\n"
    lines against the published SHA-256 at every published count up to `lines`
    (CorpusCheckError on a mismatch)."""
    if lines < 1:
        raise CorpusError(f"es6: the number of lines must be positive, not {lines}")
    hasher = _SHA256.new()
    patterns = es6_bit_patterns()
    unpack = struct.Struct("<d").unpack
    pack = struct.Struct("<Q").pack
    cases: list[Case] = []
    for line in range(1, lines + 1):
        bits = next(patterns)
        x = unpack(pack(bits))[0]
        rendering = fastjcs.format_double(x)
        if rendering != es6_layout(x):
            raise CorpusCheckError(
                f"es6/{line}: fastjcs renders {x!r} as {rendering}, the ES6 rules give {es6_layout(x)}"
            )
        text = repr(x) if line % 2 else f"{x:.16e}"
        if float(text) != x:
            raise CorpusCheckError(f"es6/{line}: {text} does not read back to {x!r}")
        hasher.update(f"{bits:x},{rendering}\n".encode("ascii"))
        published = ES6_PUBLISHED.get(line)
        if published is not None and hasher.hexdigest() != published:
            raise CorpusCheckError(
                f"es6: the first {line} lines hash to {hasher.hexdigest()}, not the published {published}"
            )
        cases.append(
            Case(
                f"es6/{line}",
                "es6",
                _NUM,
                f"[{text}]".encode("ascii"),
                f"[{rendering}]".encode("ascii"),
                f"{bits:016x}",
            )
        )
    return cases


# ---------------------------------------------------------------------------------------------------
# User corpora, and loading by source name
# ---------------------------------------------------------------------------------------------------


def user_cases(path: str | Path) -> list[Case]:
    """A user corpus: a JSON Lines file (each line one document, its bytes as they are without
    the line ending, "\\n" or "\\r\\n"; lines of only ASCII whitespace skipped; ids
    "user/<file>:<line number>") or a folder (every regular file under it one document, in sorted
    order; ids "user/<folder>/<relative path>"). Category "user"; expected bytes are fastjcs's."""
    p = Path(path)
    docs: list[tuple[str, bytes]] = []
    if p.exists() and not p.is_dir():  # a regular file, or a pipe or FIFO read to its end
        for n, line in enumerate(p.read_bytes().split(b"\n"), 1):
            line = line[:-1] if line.endswith(b"\r") else line
            if line.strip():
                docs.append((f"user/{p.name}:{n}", line))
    elif p.is_dir():
        files = sorted((f for f in p.rglob("*") if f.is_file()), key=lambda f: f.relative_to(p).parts)
        docs = [(f"user/{p.name}/{f.relative_to(p).as_posix()}", f.read_bytes()) for f in files]
    else:
        raise CorpusError(f"no such corpus file or folder: {p}")
    if not docs:
        raise CorpusError(f"the corpus {p} holds no document")
    cases = []
    for case_id, text in docs:
        expected, limit = expectation(text)
        cases.append(Case(printable(case_id), "user", "RFC 8785", text, expected, "", limit))
    return cases


def printable(name: str) -> str:
    """A file name as reports can write it: a byte that is not UTF-8 (held by Python as a lone
    surrogate, which no UTF-8 encoder writes) shown as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


#: The quick corpus ("quick"): of every category, this many of its listed cases (the first, the
#: middle and the last) and of its sampled ones; the first lines of the ES6 corpus.
QUICK_LISTED, QUICK_SAMPLED, QUICK_ES6 = 5, 2, 16


def quick_cases(seed: int) -> list[Case]:
    """A cut of the default corpus for a peer run once per document (a process a case): of every
    category, QUICK_LISTED of its listed cases spread from the first to the last and its first
    QUICK_SAMPLED sampled ones; then the first QUICK_ES6 lines of the ES6 corpus. About 200
    cases, ids as in the whole corpus."""
    return generate(seed, QUICK_SAMPLED, listed=QUICK_LISTED) + es6_cases(QUICK_ES6)


#: What `fastjcs interop` runs when no --corpus is given: every generated category and the first
#: 2,000 lines of the ES6 number corpus (the JCS vectors are a source of their own: `vectors`).
DEFAULT_SOURCES = ("gen", "es6:2000")
#: What `fastjcs crosscheck --canon-impl` runs when no --corpus is given: a process per case, so
#: the quick cut of the same corpus (about 200 cases, every category and class of case in it).
CANON_SOURCES = ("quick",)


def load(sources: Sequence[str], seed: int, per_category: int) -> list[Case]:
    """The cases of the named sources, in order: "gen" (`generate(seed, per_category)`), "quick"
    (`quick_cases(seed)`),
    "vectors" (`vector_cases()`), "vectors:PATH" (the vectors of a checkout's vectors/ folder, or
    of the files or folder PATH), "es6:N" (`es6_cases(N)`), else a path (`user_cases`).
    CorpusError for a malformed source or ids that repeat."""
    cases: list[Case] = []
    for source in sources:
        if source == "gen":
            cases += generate(seed, per_category)
        elif source == "quick":
            cases += quick_cases(seed)
        elif source == "vectors":
            cases += vector_cases()
        elif source.startswith("vectors:"):
            root = Path(source[len("vectors:") :])
            folders = [root / f for f in VECTOR_FOLDERS]
            cases += vector_cases(folders if all(f.is_dir() for f in folders) else [root])
        elif source.startswith("es6:") or source == "es6":
            count = source[4:]
            if not count.isdigit():
                raise CorpusError(f"es6 needs a number of lines, e.g. es6:100000, not {source!r}")
            cases += es6_cases(int(count))
        else:
            cases += user_cases(source)
    seen: dict[str, None] = {}
    for c in cases:
        if c.id in seen:
            raise CorpusError(f"case id {c.id} appears twice (a source named twice?)")
        seen[c.id] = None
    return cases

"""fastjcs.lab.corpus: the lab's corpora. Deterministic per seed; every category gives the
valid and invalid cases it means to; the expected answers are checked from outside fastjcs
(halfway decimals with Fraction arithmetic, numbers with the rfc8785 package, vectors from their
files, the ES6 corpus against its published hashes), and the generator's own checks fire on a
wrong canonicalizer."""

from __future__ import annotations

import json
import math
import re
import shutil
import struct
from collections import defaultdict
from fractions import Fraction

import pytest
import rfc8785
from conftest import VECTORS

import fastjcs
from fastjcs.lab import corpus
from fastjcs.lab.corpus import Case, CorpusCheckError, CorpusError

SEED = 8785
#: What each category means to give: only valid documents unless named here.
BOTH = {
    "number-overflow",
    "number-spelling",
    "string-control",
    "string-escape",
    "string-surrogate",
    "string-utf8",
    "string-bom",
    "structure-duplicate",
    "number-sweep",
}
#: Categories of listed cases only (every entry once, nothing sampled).
LISTED_ONLY = {"number-sweep", "structure-deep", "large-object", "large-array"}
INVALID_ONLY = {"whitespace-illegal", "syntax-lenient", "syntax-broken"}
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+-]*")


@pytest.fixture(scope="module")
def generated() -> list[Case]:
    return corpus.generate(SEED, 60)


def _by_category(cases: list[Case]) -> dict[str, list[Case]]:
    out: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        out[c.category].append(c)
    return out


def _token(c: Case) -> bytes:
    """The one number token of a number-family document (its frame holds no digit)."""
    tokens = _NUMBER.findall(c.text)
    assert len(tokens) == 1, c
    return tokens[0]


# --- es6_layout -------------------------------------------------------------------------------


def test_es6_layout_gives_appendix_b():
    rows = json.loads((VECTORS / "rfc8785" / "appendix-b.json").read_text())["rows"]
    for row in rows:
        x = struct.unpack(">d", bytes.fromhex(row["ieee754"]))[0]
        if row["json"] is None:
            with pytest.raises(ValueError):
                corpus.es6_layout(x)
        else:
            assert corpus.es6_layout(x) == row["json"], row


def test_es6_layout_agrees_with_rfc8785_on_the_es6_corpus_head():
    pack, unpack = struct.Struct("<Q").pack, struct.Struct("<d").unpack
    patterns = corpus.es6_bit_patterns()
    for _ in range(5000):
        x = unpack(pack(next(patterns)))[0]
        assert corpus.es6_layout(x) == rfc8785.dumps(x).decode(), x


# --- generate -----------------------------------------------------------------------------------


def _sampled(cases: list[Case]) -> list[Case]:
    return [c for c in cases if "/listed-" not in c.id]


def _listed(cases: list[Case]) -> list[Case]:
    return [c for c in cases if "/listed-" in c.id]


def test_same_seed_same_cases_other_seed_other_cases(generated):
    assert corpus.generate(SEED, 60) == generated
    other = corpus.generate(SEED + 1, 60)
    assert [c.id for c in other] == [c.id for c in generated]
    # the sampled cases change with the seed; the listed ones are the same in every run
    assert sum(a.text != b.text for a, b in zip(_sampled(other), _sampled(generated))) > 0.9 * len(_sampled(generated))
    assert _listed(other) == _listed(generated) and _listed(generated)


def test_more_cases_per_category_keep_the_first_ones(generated):
    """Each category has its own random stream: asking for more extends it, ids stay stable;
    the listed cases are all there whatever --per-category says."""
    fewer = {c.id: c for c in corpus.generate(SEED, 20)}
    assert fewer and all(
        generated_case == fewer[generated_case.id] for generated_case in generated if generated_case.id in fewer
    )
    assert len(fewer) == len(_listed(generated)) + sum(
        min(20, len(v)) for v in _by_category(_sampled(generated)).values()
    )
    one = corpus.generate(SEED, 1)
    assert _listed(one) == _listed(generated)


def test_every_category_gives_what_it_means_to(generated):
    by = _by_category(generated)
    assert list(by) == list(corpus.CATEGORIES)
    for name, cases in by.items():
        valid = sum(c.expected is not None for c in cases)
        invalid = len(cases) - valid
        assert (valid > 0) == (name not in INVALID_ONLY), name
        assert (invalid > 0) == (name in BOTH or name in INVALID_ONLY), name
        assert len({c.text for c in cases}) == len(cases), f"{name} repeats a document"
        # a category gives what it is asked for unless its description says it caps, on top of
        # its listed cases; a category of listed cases only samples none
        sampled = len(_sampled(cases))
        if name in LISTED_ONLY:
            assert sampled == 0 and cases, name
        else:
            assert sampled == 60 or "at most" in corpus.CATEGORIES[name][1], name


def test_every_case_has_a_clause_an_id_and_a_note(generated):
    for name, (clause, description) in corpus.CATEGORIES.items():
        assert re.fullmatch(r"RFC \d{4} [\d.A-Za-z-]+(; RFC \d{4} [\d.A-Za-z-]+)*", clause), name
        assert description and "\n" not in description
    assert len({c.id for c in generated}) == len(generated)
    for c in generated:
        assert c.clause == corpus.CATEGORIES[c.category][0]
        assert c.id.startswith(f"gen/{c.category}/") and c.note


def test_halfway_tokens_are_exactly_halfway(generated):
    cases = [c for c in generated if c.category == "number-halfway"]
    assert cases
    for c in cases:
        t = Fraction(_token(c).decode())
        x = float(t)  # correctly rounded (Fraction true division)
        midpoints = {(Fraction(x) + Fraction(math.nextafter(x, to))) / 2 for to in (-math.inf, math.inf)}
        assert t in midpoints, c


def test_near_halfway_tokens_are_within_one_last_digit_of_a_midpoint(generated):
    cases = [c for c in generated if c.category == "number-nearhalf"]
    assert cases
    for c in cases:
        token = _token(c).decode()
        mantissa, _, exponent = token.lower().partition("e")
        places = len(mantissa.partition(".")[2])
        unit = Fraction(10) ** (int(exponent or 0) - places)
        t = Fraction(token)
        x = float(t)
        midpoints = [(Fraction(x) + Fraction(math.nextafter(x, to))) / 2 for to in (-math.inf, math.inf)]
        assert t not in midpoints, c
        assert min(abs(t - m) for m in midpoints) <= unit, c


def test_valid_number_documents_are_what_rfc8785_makes_of_them(generated):
    """The number documents' expected bytes, from another implementation (numbers read by Python
    as doubles, rendered by the rfc8785 package)."""
    cases = [c for c in generated if c.category.startswith("number-") and c.expected is not None]
    assert len(cases) > 400
    for c in cases:
        value = json.loads(c.text, parse_int=float, parse_float=float)
        assert rfc8785.dumps(value) == c.expected, c


def test_choices_fastjcs_makes_are_the_expected_answers(generated):
    bom = [c for c in generated if c.text.startswith(b"\xef\xbb\xbf")]
    assert bom and all(c.expected is None for c in bom)
    nonchar = [c for c in generated if c.category == "string-unicode" and "U+FFFF" in c.note]
    assert nonchar and all(c.expected is not None for c in nonchar)


def test_depth_reaches_the_default_limit_and_no_further():
    depths = [int(c.note.split()[1]) for c in corpus.generate(SEED, 200) if c.category == "structure-depth"]
    assert max(depths) == fastjcs.DEFAULT_MAX_DEPTH and min(depths) >= 1


def test_generation_on_each_backend(backend, generated):
    assert corpus.generate(SEED, 60) == generated


def _wrong(monkeypatch, change):
    real = fastjcs.canonicalize
    monkeypatch.setattr(fastjcs, "canonicalize", lambda text, **kw: change(real(text, **kw)))


def test_the_number_check_fires_on_a_wrong_renderer(monkeypatch):
    _wrong(monkeypatch, lambda out: out.replace(b"e+", b"E+"))
    with pytest.raises(CorpusCheckError, match="the ES6 rules give"):
        corpus.generate(SEED, 30)


def test_the_validity_check_fires_on_a_canonicalizer_that_accepts_anything(monkeypatch):
    monkeypatch.setattr(corpus.cases, "_REGISTRY", {"syntax-broken": corpus._REGISTRY["syntax-broken"]})
    monkeypatch.setattr(fastjcs, "canonicalize", lambda text, **kw: b"null")
    with pytest.raises(CorpusCheckError, match="meant invalid, fastjcs accepts"):
        corpus.generate(SEED, 30)


def test_the_validity_check_fires_on_a_canonicalizer_that_refuses_too_much(monkeypatch):
    def refuse_astral(text, **kw):
        if b"\xf0" in text:
            raise fastjcs.InvalidJSONError("no astral")
        return real(text, **kw)

    real = fastjcs.canonicalize
    monkeypatch.setattr(fastjcs, "canonicalize", refuse_astral)
    with pytest.raises(CorpusCheckError, match="meant valid, fastjcs refuses"):
        corpus.generate(SEED, 30)


def test_the_order_check_fires_on_code_point_order(monkeypatch):
    monkeypatch.setattr(corpus.cases, "_REGISTRY", {"order-utf16": corpus._REGISTRY["order-utf16"]})
    monkeypatch.setattr(
        fastjcs,
        "canonicalize",
        lambda text, **kw: json.dumps(
            json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        ).encode(),
    )
    with pytest.raises(CorpusCheckError, match="UTF-16 order"):
        corpus.generate(SEED, 30)


@pytest.mark.slow
def test_a_hundred_thousand_cases():
    cases = corpus.generate(SEED, 3700)
    assert len(cases) > 100_000


# --- ES6 corpus ---------------------------------------------------------------------------------


def test_es6_cases_read_back_to_the_corpus_doubles():
    cases = corpus.es6_cases(1000)
    assert [c.id for c in cases[:2]] == ["es6/1", "es6/2"] and len(cases) == 1000
    assert cases[2].text == b"[5e-324]" and cases[2].expected == b"[5e-324]"
    for i, c in enumerate(cases):
        x = struct.unpack(">d", bytes.fromhex(c.note))[0]
        assert float(c.text[1:-1]) == x and c.category == "es6" and c.clause == "RFC 8785 3.2.2.3"
        assert c.text == b"[" + (repr(x) if i % 2 == 0 else f"{x:.16e}").encode() + b"]"
        assert c.expected == rfc8785.dumps([x])


def test_es6_static_values_ship_with_the_package():
    values = corpus.es6_static_values()
    assert len(values) == 168 and values[:3] == [0, 0x8000000000000000, 1]


def test_es6_cases_check_fastjcs_against_the_es6_rules(monkeypatch):
    real = fastjcs.format_double
    monkeypatch.setattr(fastjcs, "format_double", lambda x: "4.94e-324" if x == 5e-324 else real(x))
    with pytest.raises(CorpusCheckError, match="es6/3: fastjcs renders"):
        corpus.es6_cases(10)


def test_es6_cases_check_the_published_hash(monkeypatch):
    """A renderer wrong in a way the line check shares is still caught by the published hash."""
    real = fastjcs.format_double

    def wrong(x):
        return "4.94e-324" if x == 5e-324 else real(x)

    monkeypatch.setattr(fastjcs, "format_double", wrong)
    monkeypatch.setattr(corpus.sources, "es6_layout", wrong)
    assert len(corpus.es6_cases(999)) == 999  # no published count reached: nothing to hold it to
    with pytest.raises(CorpusCheckError, match="first 1000 lines hash to"):
        corpus.es6_cases(1000)


# --- vectors ------------------------------------------------------------------------------------


def _vector_paths():
    return [VECTORS / f for f in corpus.VECTOR_FOLDERS]


def test_vector_cases_take_their_expected_bytes_from_the_files():
    cases = corpus.vector_cases(_vector_paths())
    by = _by_category(cases)
    assert sorted(by) == ["vectors-rfc8785", "vectors-text-canonical", "vectors-text-must-fail"]
    assert all(c.expected is None for c in by["vectors-text-must-fail"])
    assert all(c.expected is not None for c in by["vectors-rfc8785"] + by["vectors-text-canonical"])
    assert all(c.clause.startswith("RFC ") or "fastjcs" in c.clause for c in cases)
    first = cases[0]
    assert first.id == "vectors/rfc8785/appendix-b.json#0" and first.text == b"0.0"
    assert first.expected == b"0" and first.clause == "RFC 8785 Appendix B"
    # NaN and Infinity rows, and vectors with fastjcs options, cannot be put to a peer
    ids = {c.id for c in cases}
    assert "vectors/rfc8785/appendix-b.json#9" not in ids
    assert "vectors/text-must-fail/limits.json#0" not in ids


def test_a_changed_vector_file_changes_the_expected_bytes(tmp_path):
    folder = tmp_path / "text-canonical"
    shutil.copytree(VECTORS / "text-canonical", folder)
    path = folder / "numbers.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["vectors"][0]["output"] == "0"
    data["vectors"][0]["output"] = "-0"
    path.write_text(json.dumps(data), encoding="utf-8")
    changed = {c.id: c for c in corpus.vector_cases([folder])}
    original = {c.id: c for c in corpus.vector_cases([VECTORS / "text-canonical"])}
    assert changed.keys() == original.keys()
    key = "vectors/text-canonical/numbers.json#0"
    assert (original[key].expected, changed[key].expected) == (b"0", b"-0")
    assert [k for k in changed if changed[k] != original[k]] == [key]


def test_vector_errors_are_one_line(tmp_path, monkeypatch):
    with pytest.raises(CorpusError, match="no such vector file or folder"):
        corpus.vector_cases([tmp_path / "nope"])
    (tmp_path / "x.json").write_text('{"something": []}')
    with pytest.raises(CorpusError, match="not a JCS vector file"):
        corpus.vector_cases([tmp_path / "x.json"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="no JCS vectors"):
        corpus.vector_cases([tmp_path / "empty"])
    # an installation that lacks the package's vectors: no default
    monkeypatch.setattr(
        corpus.sources, "__file__", str(tmp_path / "site" / "fastjcs" / "lab" / "corpus" / "sources.py")
    )
    with pytest.raises(CorpusError, match="missing from this installation") as exc:
        corpus.vector_cases()
    assert "\n" not in str(exc.value)


# --- user corpora and load ----------------------------------------------------------------------


def test_user_jsonl(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_bytes(b'{"b":1,"a":2}\r\n\n  \n[1e21]\n"\xff"\n\xef\xbb\xbf{}')
    cases = corpus.user_cases(path)
    assert [(c.id, c.text, c.expected) for c in cases] == [
        ("user/mine.jsonl:1", b'{"b":1,"a":2}', b'{"a":2,"b":1}'),
        ("user/mine.jsonl:4", b"[1e21]", b"[1e+21]"),
        ("user/mine.jsonl:5", b'"\xff"', None),
        ("user/mine.jsonl:6", b"\xef\xbb\xbf{}", None),
    ]
    assert {c.category for c in cases} == {"user"} and all(c.clause for c in cases)


def test_user_folder(tmp_path):
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "b.json").write_bytes(b"[1,2]\n")
    (root / "a.json").write_bytes(b'"\xed\xa0\x80"')
    (root / "sub" / "c.json").write_bytes(b"{}")
    cases = corpus.user_cases(root)
    assert [(c.id, c.expected) for c in cases] == [
        ("user/docs/a.json", None),
        ("user/docs/b.json", b"[1,2]"),
        ("user/docs/sub/c.json", b"{}"),
    ]
    assert cases[1].text == b"[1,2]\n"


def test_user_errors_are_one_line(tmp_path):
    with pytest.raises(CorpusError, match="no such corpus file or folder"):
        corpus.user_cases(tmp_path / "missing.jsonl")
    (tmp_path / "blank.jsonl").write_bytes(b"\n \n")
    with pytest.raises(CorpusError, match="holds no document"):
        corpus.user_cases(tmp_path / "blank.jsonl")
    (tmp_path / "none").mkdir()
    with pytest.raises(CorpusError, match="holds no document"):
        corpus.user_cases(tmp_path / "none")


def test_load_combines_sources_and_refuses_repeated_ids(tmp_path):
    path = tmp_path / "u.jsonl"
    path.write_bytes(b"[]\n")
    cases = corpus.load(["gen", "es6:5", str(path)], SEED, 2)
    assert cases[: len(cases) - 6] == corpus.generate(SEED, 2)
    assert [c.id for c in cases[-6:]] == [f"es6/{i}" for i in range(1, 6)] + ["user/u.jsonl:1"]
    with pytest.raises(CorpusError, match="appears twice"):
        corpus.load([str(path), str(path)], SEED, 1)
    for bad in ("es6", "es6:many"):
        with pytest.raises(CorpusError, match="es6 needs a number of lines"):
            corpus.load([bad], SEED, 1)
    with pytest.raises(CorpusError, match="no such corpus file or folder"):
        corpus.load(["gne"], SEED, 1)


def test_load_vectors_from_the_package():
    """`vectors` reads the package's copy (package data; in the source tree, links to vectors/),
    from a checkout and from an installed wheel alike: the same cases as the source tree's files."""
    assert corpus.load(["vectors"], SEED, 1) == corpus.vector_cases(_vector_paths())


def test_the_package_data_holds_every_vector_file():
    tomllib = pytest.importorskip("tomllib")
    from conftest import REPO

    globs = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]["fastjcs"]
    package = REPO / "src" / "fastjcs"
    shipped = {p.resolve() for g in globs for p in package.glob(g)}
    files = {p.resolve() for f in corpus.VECTOR_FOLDERS for p in (VECTORS / f).rglob("*") if p.is_file()}
    assert files and files <= shipped


def test_vectors_source_names_a_checkouts_folder(tmp_path):
    from conftest import REPO

    whole = corpus.load([f"vectors:{REPO / 'vectors'}"], 1, 1)
    folders = [REPO / "vectors" / f for f in corpus.VECTOR_FOLDERS]
    assert [c.id for c in whole] == [c.id for c in corpus.vector_cases(folders)] and len(whole) > 200
    one = corpus.load([f"vectors:{REPO / 'vectors' / 'rfc8785'}"], 1, 1)
    assert one and all(c.category == "vectors-rfc8785" for c in one)
    with pytest.raises(corpus.CorpusError):
        corpus.load([f"vectors:{tmp_path / 'absent'}"], 1, 1)


def test_a_user_corpus_can_be_a_fifo(tmp_path):
    import os
    import threading

    fifo = tmp_path / "docs.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(b'{"b":1,"a":2}\n[1]\n',))
    writer.start()
    cases = corpus.user_cases(fifo)
    writer.join()
    assert [(c.id, c.expected) for c in cases] == [("user/docs.fifo:1", b'{"a":2,"b":1}'), ("user/docs.fifo:2", b"[1]")]

"""Write the seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/), deterministically.

    python fuzz/make_corpus.py

Text harnesses (fuzz_text, atheris_text) get JSON texts covering every construct of the grammar,
the canonical-form corner cases, and one near miss of each error; fuzz_marshal gets marshal
encodings (format 4, plus 2 and 3) of varied Python values, shared and circular ones included;
atheris_dumps gets programs for fuzzlib.build_value, atheris_walker the same behind a first byte
saying what Python code runs during the walk (fuzzlib.check_walker). The files are small: libFuzzer and atheris
grow their own corpora from them (in fuzz/build/, not committed).
"""

from __future__ import annotations

import marshal
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fuzzlib  # noqa: E402
from fuzzlib import (  # noqa: E402
    OP_CYCLE,
    OP_DICT,
    OP_FLOAT,
    OP_LIST,
    OP_SHARED,
    OP_SMALL_INT,
    OP_STR_BYTES,
    OP_SUBCLASS,
    OP_TUPLE,
    OP_UNSUPPORTED,
)

TEXTS = {
    # scalars and numbers
    "null": b"null",
    "true": b"true",
    "false": b" false ",
    "int": b"123",
    "int-negative-zero": b"-0",
    "int-16-digits": b"9007199254740993",
    "int-20-digits": b"12345678901234567890",
    "float-small": b"-1.5e-7",
    "float-exp": b"1E30",
    "float-frac": b"[0.1,1.0,100.50,5e-324,1.7976931348623157e308]",
    "float-overflow": b"1e400",
    # strings
    "string-plain": b'"plain"',
    "string-escapes": b'"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f\\u00e9"',
    "string-pairs": b'"\\ud83d\\ude02\\uD800\\uDC00\\udbff\\udfff"',
    "string-utf8": '"\u00e9\u20ac\U0001f602\u2028\ue000\ufb33\x7f"'.encode("utf-8"),
    # containers
    "empty": b'[{},[],"",{"":[]}]',
    "object-unsorted": b'{"b":1,"a":2,"c":{"z":null,"y":[true,false]}}',
    "object-utf16-order": '{"\ufb33":1,"\U0001f602":2,"\u00e9":3,"e":4}'.encode("utf-8"),
    "object-escaped-keys": b'{"\\u0062":1,"a\\n":2,"a":3}',
    "object-prefix-keys": b'{"abc":1,"ab":2,"abcd":3,"a":4,"":5}',
    "whitespace": b' \t\n\r{ "a" :\n[ 1 ,\t2 ] , "b" : { } }\r\n',
    "nested": b'[[[[[[[[[[[[{"a":[[[]]]}]]]]]]]]]]]]',
    "record": b'{"id":42,"name":"Ada","tags":["x","y"],"score":9.5,"ok":true,"next":null,'
    b'"nested":{"b":[1,2,{"c":"d"}],"a":-7}}',
    "jsonl": b'{"a":1}\n[2,1]\n"x"\n{"a":1,"a":2}\n\n{"b":\n',
    # near misses: one error each
    "bad-bom": b"\xef\xbb\xbf{}",
    "bad-trailing-comma": b"[1,2,]",
    "bad-duplicate": b'{"a":1,"\\u0061":2}',
    "bad-lone-surrogate": b'["\\ud800x"]',
    "bad-utf8-overlong": b'"\xc0\x80"',
    "bad-utf8-surrogate": b'"\xed\xa0\x80"',
    "bad-utf8-truncated": b'"\xf0\x9f\x98"',
    "bad-utf8-too-big": b'"\xf4\x90\x80\x80"',
    "bad-control": b'"a\x01b"',
    "bad-leading-zero": b"[01]",
    "bad-number": b"[1.,-,1e,.5]",
    "bad-unterminated": b'{"a":"b',
    "bad-literal": b"[tru]",
    "bad-nan": b"NaN",
    "bad-comment": b"[1 /* c */]",
    "bad-two-values": b"1 2",
}


def _marshal_values() -> dict:
    shared = {"z": [1, 2.5, "s"], "a": None}
    cyclic_list: list = [1]
    cyclic_list.append(cyclic_list)
    cyclic_dict: dict = {"k": []}
    cyclic_dict["k"].append({"back": cyclic_dict})
    deep: list = []
    for _ in range(60):
        deep = [deep]
    return {
        "none": None,
        "true": True,
        "false": False,
        "int-small": -7,
        "int-int32": 2**31 - 1,
        "int-long": 2**40,
        "int-max-safe": 2**53 - 1,
        "int-too-big": 2**53,
        "int-huge": -(2**100),
        "float": 1.5,
        "float-zero": -0.0,
        "float-tiny": 5e-324,
        "float-nan": float("nan"),
        "float-inf": float("-inf"),
        "float-e": 1e-7,
        "str-ascii": "plain",
        "str-long-ascii": "x" * 300,
        "str-escapes": '"\\\n\t\x00\x1f',
        "str-unicode": "\u00e9\u20ac\U0001f602\u2028\ue000",
        "str-surrogate": "a\ud800b",
        "list": [1, "a", None, True, 2.5],
        "tuple": (1, (2, 3)),
        "tuple-big": tuple(range(300)),
        "dict-sorted": {"a": 1, "b": [2]},
        "dict-unsorted": {"b": 1, "a": {"d": 4, "c": 3}},
        "dict-utf16-order": {"\ufb33": 1, "\U0001f602": 2, "\u00e9": 3},
        "dict-escaped-keys": {"a\n": 1, "a": 2, '"': 3},
        "dict-int-key": {1: "x"},
        "dict-surrogate-key": {"\udc80": 1},
        "shared": {"x": shared, "y": [shared, shared], "s": ["k", "k", "k"]},
        "cycle-list": cyclic_list,
        "cycle-dict": cyclic_dict,
        "deep": deep,
        "bytes": [b"x"],
        "set": {1, 2},
        "frozenset": frozenset(),
        "complex": 1j,
        "ellipsis": ...,
        "batch": [{"id": i, "v": [i, str(i)], "f": i / 4} for i in range(6)],
    }


def _dumps_programs() -> dict:
    plain = {
        "record": {
            "id": 42,
            "name": "Ada",
            "tags": ["x", "y"],
            "ok": True,
            "next": None,
            "nested": {"b": [1, 2, {"c": "d"}], "a": -7},
        },
        "unsorted": {"b": 1, "a": 2, "\ufb33": 3, "\U0001f602": 4},
        "scalars": [None, True, False, 0, -1, 2**53 - 1, 2**53, -(2**70), 1.0, 2.5, "s"],
        "strings": ["", '"\\\n\x00', "\u00e9\u20ac", "a\ud800"],
        "tuples": (1, (2, [3]), ()),
        "floats": [float("nan"), float("inf"), -0.0, 0.1, 1e21, 5e-324],
    }
    programs = {name: fuzzlib.encode_value(v) for name, v in plain.items()}
    programs["depth-limit"] = fuzzlib.encode_value([[[1]]], max_depth=2)
    # Hand-written: the operations encode_value does not produce.
    programs["cycle-list"] = bytes([0, OP_LIST, 2, OP_SMALL_INT, 5, OP_CYCLE, 0])
    programs["cycle-deep"] = bytes([0, OP_DICT, 1, 0, 1, ord("k"), OP_LIST, 1, OP_DICT, 1, 0, 1, ord("j"), OP_CYCLE, 0])
    programs["shared"] = bytes([0, OP_LIST, 3, OP_LIST, 1, OP_SMALL_INT, 1, OP_SHARED, 0, OP_SHARED, 0])
    programs["subclasses"] = bytes([0, OP_LIST, 8] + [b for k in range(8) for b in (OP_SUBCLASS, k, OP_SMALL_INT, k)])
    programs["unsupported"] = bytes([0, OP_TUPLE, 5] + [b for k in range(5) for b in (OP_UNSUPPORTED, k)])
    programs["non-str-keys"] = bytes([0, OP_DICT, 2, 9, OP_SMALL_INT, 1, 0, 1, ord("a"), OP_FLOAT] + [0] * 8)
    programs["surrogate-bytes"] = bytes([0, OP_STR_BYTES, 3, ord("a"), 0xFF, ord("b")])
    return programs


def write(directory: Path, files: dict) -> None:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    for name, data in sorted(files.items()):
        (directory / name).write_bytes(data)


def main() -> None:
    corpus = HERE / "corpus"
    texts = {f"{name}.json": data for name, data in TEXTS.items()}
    write(corpus / "fuzz_text", texts)
    write(corpus / "fuzz_stream", texts)  # the same documents, streamed
    write(corpus / "atheris_text", texts)
    encodings = {}
    for name, value in _marshal_values().items():
        encodings[f"{name}.v4"] = marshal.dumps(value, 4)
    for name in ("dict-unsorted", "shared", "str-unicode"):
        value = _marshal_values()[name]
        encodings[f"{name}.v2"] = marshal.dumps(value, 2)
        encodings[f"{name}.v3"] = marshal.dumps(value, 3)
    write(corpus / "fuzz_marshal", encodings)
    programs = {f"{name}.bin": p for name, p in _dumps_programs().items()}
    write(corpus / "atheris_dumps", programs)
    # atheris_walker: the same programs, each behind three of these first bytes (fuzzlib.check_walker)
    modes = [0x01, 0x0A, 0x12, 0x1B, 0x23, 0x2C, 0x45, 0x4A, 0x83, 0x8D, 0x05, 0x1C, 0x2A, 0x49]
    walker = {}
    for i, name in enumerate(sorted(programs)):
        for j in range(3):
            mode = modes[(i * 3 + j) % len(modes)]
            walker[f"{name}-mode{mode:02x}"] = bytes([mode]) + programs[name]
    write(corpus / "atheris_walker", walker)
    for sub in sorted(corpus.iterdir()):
        print(f"{sub.name}: {len(list(sub.iterdir()))} files")


if __name__ == "__main__":
    main()

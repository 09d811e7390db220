"""fastjcs.digest_file and canonicalize_file, on both backends, and `fastjcs digest FILE` /
`canon FILE` through them: the answers and exceptions of the in-memory functions on the same
bytes, pipes, a file that changes while it is read, objects nested too deep to stream, nothing
partial left at a path, and memory that does not grow with the document."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from _cli import fastjcs as run_cli
from _cli import one_line_error
from _markers import MEASURED_ENV, rss_is_meaningful

import fastjcs
from fastjcs.core import python_backend

DOCS = [
    b'{"b":[1,2.50,"\\u00e9"],"a":{"z":null,"\xc3\xa9":true}}',
    b"[]",
    b' "x" ',
    b"1e400",
    b'{"a":1,"a":2}',
    b"[1,2",
    b"\xef\xbb\xbf{}",
    b'{"n":9007199254740993}',
    b"",
]


@pytest.fixture(params=["python", "native"])
def backend(request, swap_backend):
    """Each backend in turn, for the whole stack (fastjcs.core.backends.use)."""
    impl = python_backend if request.param == "python" else request.getfixturevalue("native")
    swap_backend(impl)
    return request.param


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        return ("error", type(exc).__name__, getattr(exc, "offset", None), str(exc))


@pytest.mark.parametrize("one_read", [True, False])
@pytest.mark.parametrize("strict", [False, True])
def test_digest_file_is_digest_text(backend, tmp_path, strict, one_read, monkeypatch):
    """Both ways digest_file reads: a small file in one call (to digest_text), and the stream (a
    file above files.IN_ONE_READ; here every file, the bound set below the empty file's size)."""
    if not one_read:
        monkeypatch.setattr("fastjcs.core.files.IN_ONE_READ", -1)
    path = tmp_path / "doc.json"
    for doc in DOCS:
        path.write_bytes(doc)
        for algorithm in ("sha256", "sha384"):
            want = outcome(fastjcs.digest_text, doc, algorithm, strict_integers=strict)
            assert outcome(fastjcs.digest_file, path, algorithm, strict_integers=strict) == want, doc


def test_canonicalize_file_is_canonicalize(backend, tmp_path):
    src, dst = tmp_path / "doc.json", tmp_path / "out.json"
    for doc in DOCS:
        src.write_bytes(doc)
        want = outcome(fastjcs.canonicalize, doc)
        got = outcome(fastjcs.canonicalize_file, src, dst)
        if want[0] == "ok":
            assert got == ("ok", None) and dst.read_bytes() == want[1]
        else:
            assert got == want, doc
        dst.unlink(missing_ok=True)
        assert sorted(os.listdir(tmp_path)) == ["doc.json"], "a temporary file was left"


def test_canonicalize_file_onto_its_source_and_into_a_file_object(backend, tmp_path):
    src = tmp_path / "doc.json"
    src.write_bytes(b'{"b":1, "a":[1.0]}')
    fastjcs.canonicalize_file(src, src)
    assert src.read_bytes() == b'{"a":[1],"b":1}'
    parts = []

    class Sink:
        def write(self, data):
            parts.append(bytes(data))

    fastjcs.canonicalize_file(src, Sink())
    assert b"".join(parts) == b'{"a":[1],"b":1}'


def test_a_failed_canonicalize_file_keeps_the_old_target(backend, tmp_path):
    src, dst = tmp_path / "doc.json", tmp_path / "out.json"
    dst.write_bytes(b"old")
    src.write_bytes(b"[" + b"1," * 400_000 + b"x]")  # the error is found after 800 kB
    with pytest.raises(fastjcs.InvalidJSONError):
        fastjcs.canonicalize_file(src, dst)
    assert dst.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["doc.json", "out.json"]


def test_a_fifo_is_spooled(backend, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    doc = b'{"b":"' + b"y" * 3_000_000 + b'","a":[3, 2, 1]}'

    def feed():
        with open(fifo, "wb") as f:
            f.write(doc)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert fastjcs.digest_file(fifo) == fastjcs.digest_text(doc)
    finally:
        writer.join()


def test_large_objects_nested_too_deep_to_stream_are_read_whole(backend, tmp_path):
    """Objects larger than the window nested 12 deep (the stream walks 8): the same digest, from
    the in-memory path."""
    doc = b'{"b":0,"a":' * 12 + b'"' + b"s" * (3 << 20) + b'"' + b"}" * 12
    path = tmp_path / "deep.json"
    path.write_bytes(doc)
    assert fastjcs.digest_file(path) == fastjcs.digest_text(doc)


def test_too_deep_to_stream_after_parts_were_written(native, tmp_path):
    """The nest of large objects comes after 2 MB of output: the digest starts over, a path or a
    seekable file gets the whole form once, and an output that cannot be rewound is an OSError."""
    records = b",".join(b'{"b":%d,"a":"%d"}' % (i, i) for i in range(150_000))
    nest = b'{"b":0,"a":' * 12 + b'"' + b"s" * (3 << 20) + b'"' + b"}" * 12
    doc = b"[" + records + b"," + nest + b"]"
    path, out = tmp_path / "doc.json", tmp_path / "out.json"
    path.write_bytes(doc)
    assert fastjcs.digest_file(path) == fastjcs.digest_text(doc)
    fastjcs.canonicalize_file(path, out)
    assert out.read_bytes() == fastjcs.canonicalize(doc)
    with open(out, "wb") as f:
        f.write(b"kept:")
        fastjcs.canonicalize_file(path, f)
    assert out.read_bytes() == b"kept:" + fastjcs.canonicalize(doc)

    class Pipe:
        def write(self, data):
            pass

    with pytest.raises(OSError, match="cannot be streamed"):
        fastjcs.canonicalize_file(path, Pipe())


def test_a_file_that_changes_while_streamed(native, tmp_path):
    from fastjcs.core import native_stream

    path = tmp_path / "doc.json"
    doc = b"[" + b",".join(b'{"b":%d,"a":"%d"}' % (i, i) for i in range(200_000)) + b"]"
    for change in ("truncate", "rewrite"):
        path.write_bytes(doc)
        fd = os.open(path, os.O_RDONLY)
        try:
            parts = native_stream.parts(fd, 10_000, 0)
            next(parts)
            if change == "truncate":
                os.truncate(path, len(doc) // 2)
            else:
                with open(path, "r+b") as f:  # the same size, other bytes (a new mtime)
                    f.write(doc.replace(b'"b"', b'"c"'))
            with pytest.raises(OSError, match="changed while it was read"):
                for _ in parts:
                    pass
        finally:
            os.close(fd)


def test_cli_streams_a_regular_file(tmp_path):
    path = tmp_path / "doc.json"
    doc = b"[" + b",".join(b'{"b":%d,"a":[%d.50]}' % (i, i) for i in range(100_000)) + b"]"
    path.write_bytes(doc)
    p = run_cli("digest", path)  # a FILE is named, as sha256sum names it
    assert p.returncode == 0 and p.stdout.decode() == f"{fastjcs.digest_text(doc)}  {path}\n"
    out = tmp_path / "out.json"
    p = run_cli("canon", path, "-o", out)
    assert p.returncode == 0 and out.read_bytes() == fastjcs.canonicalize(doc)
    p = run_cli("canon", path)
    assert p.returncode == 0 and p.stdout == fastjcs.canonicalize(doc)


def test_cli_error_found_late_leaves_nothing_at_o(tmp_path):
    path, out = tmp_path / "doc.json", tmp_path / "out.json"
    doc = b"[" + b",".join(b'{"b":%d,"a":"%d"}' % (i, i) for i in range(100_000)) + b',{"a":1,"a":2}]'
    path.write_bytes(doc)
    offset = doc.rindex(b'"a":2')
    for args in (("canon", path, "-o", out), ("digest", path)):
        p = run_cli(*args)
        assert p.returncode == 2
        one_line_error(p, "DuplicateKeyError", f"(byte {offset})")
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["doc.json"]


def test_cli_error_found_late_leaves_nothing_in_a_redirected_stdout(tmp_path):
    """`canon FILE > OUT`: the parts streamed before a late error are cut from OUT (what was in it
    before the command stays)."""
    path, out = tmp_path / "doc.json", tmp_path / "out.json"
    path.write_bytes(b"[" + b",".join(b'{"b":%d,"a":"%d"}' % (i, i) for i in range(100_000)) + b",x]")
    with open(out, "wb") as f:
        f.write(b"before\n")
        f.flush()
        p = subprocess.run([sys.executable, "-m", "fastjcs", "canon", str(path)], stdout=f, stderr=subprocess.PIPE)
    assert p.returncode == 2
    one_line_error(p, "InvalidJSONError")
    assert out.read_bytes() == b"before\n"


# ---- memory that does not grow with the document -------------------------------------------------

# The child's peak RSS is its own memory's high-water mark (VmHWM): getrusage's ru_maxrss would
# start from the parent's, as the child is forked from this (large) test process.
_MEASURE = """
import re, sys, time
import fastjcs
t = time.process_time()
print(fastjcs.digest_file(sys.argv[1]))
print(time.process_time() - t)
print(re.search(r"VmHWM:\\s*(\\d+) kB", open("/proc/self/status").read()).group(1))
"""


def _digest_in_child(path):
    p = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        capture_output=True,
        check=True,
        text=True,
        env={**os.environ, **MEASURED_ENV},
    )
    digest, seconds, rss_kb = p.stdout.split()
    return digest, float(seconds), int(rss_kb) * 1024


@pytest.mark.slow
@rss_is_meaningful
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_peak_rss_and_time_grow_with_the_largest_object_not_the_document(native, tmp_path):
    """A 6 MB and a 24 MB array of records, each digested in a child process: the larger one's peak
    RSS is within 8 MB of the smaller's (the in-memory path holds the text and its canonical form:
    3x the document), and its CPU time at most 6x (linear: 4x)."""
    measured = {}
    for k in (1, 4):
        path = tmp_path / f"doc{k}.json"
        doc = b"[" + b",".join(b'{"b":%d,"a":"%d","c":[true]}' % (i, i) for i in range(200_000 * k)) + b"]"
        path.write_bytes(doc)
        digest, seconds, rss = _digest_in_child(path)
        assert digest == fastjcs.digest_text(doc)
        measured[k] = (len(doc), seconds, rss)
    (n1, t1, r1), (n4, t4, r4) = measured[1], measured[4]
    assert n4 > 3.9 * n1
    assert r4 - r1 < 8 << 20, measured
    assert t4 / max(t1, 1e-3) < 6, measured

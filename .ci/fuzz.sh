#!/usr/bin/env bash
# Fuzz every harness of fuzz/ for a bounded time and fail on any finding.
#
#   .ci/fuzz.sh [SECONDS] [HARNESS...]     SECONDS per harness (default 60); all six harnesses
#                                          unless some are named (fuzz_text fuzz_marshal fuzz_stream
#                                          atheris_text atheris_dumps atheris_walker); FASTJCS_FUZZ_JOBS of
#                                          them at a time (default 2)
#
# libFuzzer harnesses (fuzz/fuzz_*.c) are built with clang straight from csrc/*.c with
# -fsanitize=fuzzer,address,undefined (every UB report fatal); atheris harnesses run in a virtual
# environment of their own (.venv-fuzz) against an extension built in fuzz/build/py. Each starts
# from the committed seeds (fuzz/corpus/<harness>) and replays the reproducers of fixed bugs
# (fuzz/regressions/<harness>); what it learns goes to fuzz/build/corpus/<harness> (not committed).
# A finding (crash, sanitizer report, leak, failed check, timeout, out-of-memory) fails the
# script; the input is kept in fuzz/build/artifacts/ (FASTJCS_FUZZ_BUILD=DIR: DIR instead of
# fuzz/build, e.g. for a long session beside short ones).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_text fuzz_marshal fuzz_stream atheris_text atheris_dumps atheris_walker)
build=${FASTJCS_FUZZ_BUILD:-$root/fuzz/build}  # where binaries, grown corpora, logs and findings go
mkdir -p "$build/artifacts"

# ---- tools --------------------------------------------------------------------------------------
probe_libfuzzer() {
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$build/probe.c"
    clang -fsanitize=fuzzer,address,undefined "$build/probe.c" -o "$build/probe" 2>/dev/null
}
if ! command -v clang >/dev/null; then
    flock /tmp/fastjcs-ci-apt.lock apt-get update -qq && flock /tmp/fastjcs-ci-apt.lock apt-get install -y -qq clang >/dev/null
fi
if ! probe_libfuzzer; then  # Debian ships libFuzzer in libclang-rt-N-dev
    flock /tmp/fastjcs-ci-apt.lock apt-get update -qq && flock /tmp/fastjcs-ci-apt.lock apt-get install -y -qq "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev" >/dev/null
    probe_libfuzzer || { echo "fuzz: clang cannot link -fsanitize=fuzzer (libFuzzer missing)"; exit 1; }
fi

venv=$root/.venv-fuzz
needs_atheris=0
for h in "${harnesses[@]}"; do case $h in atheris_*) needs_atheris=1 ;; esac; done
if [ $needs_atheris = 1 ]; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    # setuptools at the floor of pyproject.toml's build-system (setup.py runs here without isolation)
    "$venv/bin/python" -c "import atheris, cffi, Crypto, setuptools, sys
sys.exit(int(setuptools.__version__.split('.')[0]) < 77)" 2>/dev/null ||
        "$venv/bin/python" -m pip install --quiet --upgrade atheris cffi pycryptodome "setuptools>=77" wheel
    # The package, with its extension, in a directory of its own (never the source tree's build).
    rm -rf "$build/py" && mkdir -p "$build/py" && cp -r src/fastjcs "$build/py/"
    rm -f "$build"/py/fastjcs/_native_ext*.so "$build"/py/fastjcs/_direct*.so
    FASTJCS_REQUIRE_NATIVE=1 "$venv/bin/python" setup.py -q build_ext --force \
        -b "$build/py" -t "$build/py-tmp" >"$build/py-build.log" 2>&1 ||
        { cat "$build/py-build.log"; exit 1; }
fi

# ---- runs ---------------------------------------------------------------------------------------
# Built first, one after another; then run FASTJCS_FUZZ_JOBS at a time (default 2: CI's cores), each
# for SECONDS, so the step takes SECONDS per pair of harnesses and each harness gets a core.
run() {  # harness, command...: prints its summary, exit status 1 on a finding
    local name=$1 log=$build/$1.log
    shift
    local dirs=("$build/corpus/$name" "fuzz/corpus/$name")
    [ -d "fuzz/regressions/$name" ] && dirs+=("fuzz/regressions/$name")
    mkdir -p "$build/corpus/$name"
    local status=0
    "$@" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$name-" "${dirs[@]}" >"$log" 2>&1 || status=$?
    printf '==== %s: %ss\n' "$name" "$secs"
    if [ $status = 0 ]; then
        # The last status line (executions, coverage, corpus) and the totals.
        grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true
        grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | tr '\n' ' ' || true
        echo
    else
        echo "FINDING in $name (exit $status): last lines of $log"
        tail -40 "$log"
        ls -1 "$build/artifacts/$name-"* 2>/dev/null || true
        return 1
    fi
}

commands=()
for h in "${harnesses[@]}"; do
    case $h in
    fuzz_*)
        clang -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
            -fno-sanitize-recover=all -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wmissing-prototypes -Wshadow -Werror -include fuzz/alloc_hook.h \
            -Icsrc -Ifuzz "fuzz/$h.c" csrc/*.c -o "$build/$h"
        extra=""
        case $h in fuzz_text | fuzz_stream) extra=-dict=fuzz/json.dict ;; esac
        commands+=("$build/$h $extra")
        ;;
    atheris_*)
        extra=""
        [ "$h" = atheris_text ] && extra=-dict=fuzz/json.dict
        commands+=("env PYTHONPATH=$build/py $venv/bin/python fuzz/atheris_fuzz.py ${h#atheris_} $extra")
        ;;
    *) echo "unknown harness $h"; exit 2 ;;
    esac
done

jobs=${FASTJCS_FUZZ_JOBS:-2}
for i in "${!harnesses[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    # shellcheck disable=SC2086  # (the command's words: paths of this tree and fixed options)
    { if run "${harnesses[$i]}" ${commands[$i]} >"$build/${harnesses[$i]}.summary"; then rm -f "$build/${harnesses[$i]}.failed"
      else touch "$build/${harnesses[$i]}.failed"; fi; } &
done
wait

failed=()
for h in "${harnesses[@]}"; do
    cat "$build/$h.summary"
    [ ! -e "$build/$h.failed" ] || failed+=("$h")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in: ${failed[*]}"
    exit 1
fi
echo "fuzz: no findings (${harnesses[*]}, ${secs}s each, $jobs at a time)"

#!/usr/bin/env bash
# Install the pinned JCS peers of the interop lab from their registries, build their adapters,
# smoke-test each one through the batch protocol and write interop/build/peers.json.
#
# usage: interop/setup.sh [--python PY] [--only NAME]...
#   --python PY   the interpreter whose environment gets the PyPI peers; their adapter is
#                 `PY -m fastjcs serve-canon --candidate NAME`, so PY needs fastjcs too (default: python3)
#   --only NAME   set up only this peer or ecosystem (npm, go, cargo, maven, pypi); repeatable
#
# An ecosystem whose toolchain is missing, a package that does not resolve or build, and an adapter
# that fails its smoke test each print one line "skip NAME: why" and land in peers.json's "skipped".
# The exit status is 0 whenever peers.json was written, even if it lists no peer: what a run with no
# peer means is for the lab's driver to say (a run that compares nothing is a failure there). Usage
# errors exit 2; a peers.json that cannot be written exits 1.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=$here/build
py=python3
only=()

usage_error() { echo "setup.sh: $1 (usage: interop/setup.sh [--python PY] [--only NAME]...)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --python) [ $# -ge 2 ] || usage_error "--python needs a value"; py=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || usage_error "--only needs a value"; only+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage_error "unknown argument: $1" ;;
    esac
done

# peer name -> ecosystem (the --only vocabulary, and the order of peers.json)
peers_npm=(canonicalize json-canonicalize truestamp-canonify)
peers_go=(gowebpki-jcs cyberphone-go)
peers_cargo=(serde_jcs serde_json_canonicalizer)
peers_maven=(java-json-canonicalization)
peers_pypi=(rfc8785 jcs json-canonical jsoncanon jcs-admit)
known=" npm go cargo maven pypi ${peers_npm[*]} ${peers_go[*]} ${peers_cargo[*]} ${peers_maven[*]} ${peers_pypi[*]} "
for name in ${only[@]+"${only[@]}"}; do
    case $known in *" $name "*) ;; *) usage_error "--only $name: no such peer or ecosystem" ;; esac
done

# wanted ECOSYSTEM NAME: is this peer selected by --only (or is there no --only)?
wanted() {
    [ ${#only[@]} -eq 0 ] && return 0
    local o
    for o in "${only[@]}"; do [ "$o" = "$1" ] || [ "$o" = "$2" ] && return 0; done
    return 1
}
# selected ECOSYSTEM: prints that ecosystem's peers selected by --only
selected() {
    local eco=$1 n
    case $eco in
        npm) set -- "${peers_npm[@]}" ;;
        go) set -- "${peers_go[@]}" ;;
        cargo) set -- "${peers_cargo[@]}" ;;
        maven) set -- "${peers_maven[@]}" ;;
        pypi) set -- "${peers_pypi[@]}" ;;
    esac
    for n in "$@"; do wanted "$eco" "$n" && echo "$n"; done
}

mkdir -p "$build/bin" "$build/logs" || { echo "setup.sh: cannot create $build" >&2; exit 1; }
records=$build/peers.tsv
: > "$records"

skip() {   # skip NAME WHY
    local why; why=$(printf '%s' "$2" | tr '\t\n\r' '   ')
    echo "skip $1: $why"
    printf 'skip\t%s\t%s\n' "$1" "$why" >> "$records"
}
one_line() { tr -s '[:space:]' ' ' | sed 's/ $//' | cut -c1-160; }
last_line() {   # the last non-blank line of a log, as a one-line reason
    grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | one_line
}
npm_error() {   # npm's first error line that says more than its code (the rest is usage text)
    grep '^npm error' "$1" 2>/dev/null | grep -Ev '^npm error( code .*)?[[:space:]]*$' | head -n 1 | one_line
}
shell_join() {   # a command line for sh -c, each word quoted
    local out="" w
    for w in "$@"; do out+="$(printf '%q' "$w") "; done
    printf '%s' "${out% }"
}

# The smoke test: {"b":1,"a":2} must come back as {"a":2,"b":1}, an unfinished document must be
# refused, and nothing else may be printed.
smoke_in=$(printf '%s\n%s\n' "$(printf '{"b":1,"a":2}' | base64)" "$(printf '{"b":' | base64)")
smoke() {   # smoke COMMAND: prints why it failed, returns 1; silent and 0 when it passed
    local out status
    out=$(printf '%s\n' "$smoke_in" | timeout 120 sh -c "$1" 2>"$build/logs/smoke.err")
    status=$?
    if [ $status -ne 0 ]; then
        echo "smoke test: exit $status ($(last_line "$build/logs/smoke.err"))"; return 1
    fi
    local first second rest
    first=$(printf '%s\n' "$out" | sed -n 1p)
    second=$(printf '%s\n' "$out" | sed -n 2p)
    rest=$(printf '%s\n' "$out" | sed -n '3,$p')
    if [ "$first" != "ok eyJhIjoyLCJiIjoxfQ==" ]; then
        echo "smoke test: {\"b\":1,\"a\":2} answered '$(printf '%s' "$first" | cut -c1-100)'"; return 1
    fi
    case $second in
        "error "*) ;;
        *) echo "smoke test: an unfinished document answered '$(printf '%s' "$second" | cut -c1-100)'"; return 1 ;;
    esac
    if [ -n "$rest" ]; then echo "smoke test: more answer lines than documents"; return 1; fi
    return 0
}
offer() {   # offer NAME ECOSYSTEM LANGUAGE PACKAGE VERSION COMMAND: smoke-test, then record or skip
    local why
    if [ -z "$5" ]; then skip "$1" "the installed version of $4 could not be read"; return; fi
    if why=$(smoke "$6"); then
        echo "peer $1: $4 $5"
        printf 'peer\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" >> "$records"
    else
        skip "$1" "$why"
    fi
}
timed() {   # timed ECOSYSTEM FUNCTION: runs it when one of its peers is wanted, prints its time
    local started=$SECONDS
    "$2"
    echo "time $1: $((SECONDS - started)) s"
}

setup_npm() {
    local names n pkg log=$build/logs/npm.log
    names=$(selected npm)
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        for n in $names; do skip "$n" "node and npm are not both on PATH"; done; return
    fi
    mkdir -p "$build/node"
    cp "$here/node/package.json" "$here/node/package-lock.json" "$here/node/adapter.mjs" "$build/node/"
    if ! (cd "$build/node" && npm ci --no-audit --no-fund --ignore-scripts) >"$log" 2>&1; then
        for n in $names; do skip "$n" "npm ci failed: $(npm_error "$log")"; done; return
    fi
    local node_bin; node_bin=$(command -v node)
    for n in $names; do
        case $n in truestamp-canonify) pkg=@truestamp/canonify ;; *) pkg=$n ;; esac
        offer "$n" npm JavaScript "$pkg" \
            "$(node -p 'require(process.argv[1]).version' "$build/node/node_modules/$pkg/package.json" 2>/dev/null)" \
            "$(shell_join "$node_bin" "$build/node/adapter.mjs" "$pkg")"
    done
}

setup_go() {
    local names n mod sel log=$build/logs/go.log bin=$build/bin/jcspeer-go
    names=$(selected go)
    if ! command -v go >/dev/null; then
        for n in $names; do skip "$n" "go is not on PATH"; done; return
    fi
    if ! (cd "$here/go" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go build -trimpath -o "$bin" .) >"$log" 2>&1; then
        for n in $names; do skip "$n" "go build failed: $(last_line "$log")"; done; return
    fi
    for n in $names; do
        case $n in
            gowebpki-jcs) mod=github.com/gowebpki/jcs; sel=gowebpki ;;
            cyberphone-go) mod=github.com/cyberphone/json-canonicalization; sel=cyberphone ;;
        esac
        # the version the binary was built with, as Go recorded it in the binary
        offer "$n" Go Go "$mod" "$(go version -m "$bin" | awk -v m="$mod" '$1 == "dep" && $2 == m {print $3}')" \
            "$(shell_join "$bin" "$sel")"
    done
}

setup_cargo() {
    local names n log=$build/logs/cargo.log bin=$build/bin/jcspeer-rust
    names=$(selected cargo)
    if ! command -v cargo >/dev/null; then
        for n in $names; do skip "$n" "cargo is not on PATH"; done; return
    fi
    if ! cargo build --release --locked --manifest-path "$here/rust/Cargo.toml" \
            --target-dir "$build/rust" >"$log" 2>&1 ||
       ! cp "$build/rust/release/jcspeer" "$bin"; then
        for n in $names; do skip "$n" "cargo build failed: $(last_line "$log")"; done; return
    fi
    for n in $names; do
        # the version Cargo.lock pins (--locked built exactly that)
        offer "$n" crates.io Rust "$n" \
            "$(awk -v c="$n" '$1 == "name" && $3 == "\"" c "\"" {getline; gsub(/"/, "", $3); print $3}' "$here/rust/Cargo.lock")" \
            "$(shell_join "$bin" "$n")"
    done
}

setup_maven() {
    local names n log=$build/logs/maven.log
    names=$(selected maven)
    if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
        for n in $names; do skip "$n" "java and mvn are not both on PATH"; done; return
    fi
    rm -rf "$build/java/dependency"
    if ! mvn -B -q -f "$here/java/pom.xml" compile dependency:copy-dependencies >"$log" 2>&1; then
        for n in $names; do skip "$n" "mvn failed: $(last_line "$log")"; done; return
    fi
    # the version Maven resolved: copy-dependencies names the jar ARTIFACT-VERSION.jar
    local jars=("$build"/java/dependency/java-json-canonicalization-*.jar) version=""
    if [ -f "${jars[0]}" ]; then version=${jars[0]##*/java-json-canonicalization-}; version=${version%.jar}; fi
    offer java-json-canonicalization Maven Java io.github.erdtman:java-json-canonicalization "$version" \
        "$(shell_join "$(command -v java)" -cp "$build/java/classes:$build/java/dependency/*" fastjcs.interop.Adapter)"
}

setup_pypi() {
    local names n log=$build/logs/pypi.log pyabs
    names=$(selected pypi)
    pyabs=$(command -v "$py")
    if [ -z "$pyabs" ]; then
        for n in $names; do skip "$n" "python $py not found"; done; return
    fi
    case $pyabs in /*) ;; *) pyabs=$(cd "$(dirname "$pyabs")" && pwd)/$(basename "$pyabs") ;; esac
    # without fastjcs the packages could not be served: install nothing into that interpreter
    if ! "$pyabs" -c 'import fastjcs' >/dev/null 2>&1; then
        for n in $names; do skip "$n" "$pyabs cannot import fastjcs (pass --python of an environment that has it)"; done
        return
    fi
    if ! "$pyabs" -m pip install --disable-pip-version-check -q -r "$here/python/requirements.txt" >"$log" 2>&1; then
        for n in $names; do skip "$n" "pip install failed: $(last_line "$log")"; done; return
    fi
    for n in $names; do
        offer "$n" PyPI Python "$n" \
            "$("$pyabs" -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' "$n" 2>/dev/null)" \
            "$(shell_join "$pyabs" -m fastjcs serve-canon --candidate "$n")"
    done
}

for eco in npm go cargo maven pypi; do
    [ -n "$(selected "$eco")" ] && timed "$eco" "setup_$eco"
done

# peers.json, from the records above
writer=$(command -v "$py" || command -v python3) || { echo "setup.sh: no python to write peers.json" >&2; exit 1; }
"$writer" - "$records" "$build/peers.json" <<'EOF' || { echo "setup.sh: could not write peers.json" >&2; exit 1; }
import datetime, json, sys
peers, skipped = [], []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        kind, *fields = line.rstrip("\n").split("\t")
        if kind == "peer":
            name, ecosystem, language, package, version, command = fields
            peers.append({"name": name, "ecosystem": ecosystem, "language": language, "package": package,
                          "version": version, "command": command, "protocol": "batch"})
        else:
            skipped.append({"name": fields[0], "why": fields[1]})
doc = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
       "peers": peers, "skipped": skipped}
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
print(f"interop: {len(peers)} peers ready, {len(skipped)} skipped -> {sys.argv[2]}")
EOF

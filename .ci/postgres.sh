# A throw-away PostgreSQL server on loopback for the execution registry's tests. Source it:
#
#     . .ci/postgres.sh start    # before the tests
#     . .ci/postgres.sh stop     # after them
#
# `start` installs Debian's postgresql with apt-get where it is missing (as root), installs the
# `postgres` extra (psycopg 3) into the active Python, makes a cluster in a temporary directory
# (owned by the unprivileged `postgres` user when run as root), starts it on 127.0.0.1 on a free
# port with trust authentication, and exports:
#
#     FASTJCS_TEST_POSTGRES_URL   postgresql://postgres@127.0.0.1:PORT/postgres
#     FASTJCS_TEST_POSTGRES_CTL   a pg_ctl command line for this cluster; the restart test
#                                 appends "stop -m fast" and "start" to it
#
# and prints the two export lines. Where anything fails it prints one line "SKIPPED: ..." and
# exports nothing, so the PostgreSQL tests skip with a message; it never fails the caller, which
# may run under `set -e`. `stop` stops the server and removes the directory.

_fastjcs_pg_log() { printf '%s\n' "$*" >&2; }

_fastjcs_pg_start() {
    local bindir dir port user run py
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bindir" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        _fastjcs_pg_log "postgres.sh: installing Debian's postgresql"
        { DEBIAN_FRONTEND=noninteractive flock /tmp/fastjcs-ci-apt.lock apt-get install -y -q postgresql >/dev/null 2>&1 ||
          { flock /tmp/fastjcs-ci-apt.lock apt-get update -q >/dev/null 2>&1 &&
            DEBIAN_FRONTEND=noninteractive flock /tmp/fastjcs-ci-apt.lock apt-get install -y -q postgresql >/dev/null 2>&1; }; } ||
            { echo "SKIPPED: apt-get install postgresql failed; the PostgreSQL registry tests skip"; return 1; }
        bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    fi
    [ -n "$bindir" ] && [ -x "$bindir/initdb" ] ||
        { echo "SKIPPED: no PostgreSQL server binaries (initdb); the PostgreSQL registry tests skip"; return 1; }

    py=$(command -v python3 || command -v python)
    if ! "$py" -c "import psycopg, psycopg_pool" 2>/dev/null; then
        # the postgres extra's requirements, not the project (pip would build and install it over
        # the environment's own, an editable install among them)
        local reqs
        read -ra reqs <<<"$("$py" "${FASTJCS_PG_ROOT:-.}/.ci/readme_command.py" --extra postgres)"
        "$py" -m pip install --quiet "${reqs[@]}" >/dev/null 2>&1 ||
            { echo "SKIPPED: pip could not install fastjcs[postgres] (psycopg 3); the PostgreSQL registry tests skip"; return 1; }
    fi

    if [ "$(id -u)" = 0 ]; then
        user=postgres
        id "$user" >/dev/null 2>&1 || { echo "SKIPPED: no 'postgres' user to run the server as"; return 1; }
        run="runuser -u $user --"
    else
        user=$(id -un)
        run=""
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/fastjcs-pg.XXXXXX") || { echo "SKIPPED: mktemp failed"; return 1; }
    chmod 0755 "$dir" && chown "$user" "$dir" ||
        { echo "SKIPPED: cannot give $dir to $user"; rm -rf "$dir"; return 1; }
    port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if ! $run "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C \
            >"$dir/initdb.log" 2>&1; then
        echo "SKIPPED: initdb failed ($(tail -n 1 "$dir/initdb.log")); the PostgreSQL registry tests skip"
        rm -rf "$dir"
        return 1
    fi
    # One role that must give its password (the tests of a wrong password; every other role is trusted).
    { printf 'host all fastjcs_password_test 127.0.0.1/32 scram-sha-256\n'; cat "$dir/data/pg_hba.conf"; } \
        >"$dir/pg_hba.conf.new" && mv "$dir/pg_hba.conf.new" "$dir/data/pg_hba.conf" && chown "$user" "$dir/data/pg_hba.conf"
    printf "port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nmax_connections = 200\n" \
        "$port" "$dir" >>"$dir/data/postgresql.conf"
    local ctl="$run $bindir/pg_ctl -D $dir/data -l $dir/server.log -w -t 60"
    if ! $ctl start >/dev/null 2>&1; then
        echo "SKIPPED: the PostgreSQL server did not start ($(tail -n 1 "$dir/server.log" 2>/dev/null)); the PostgreSQL registry tests skip"
        rm -rf "$dir"
        return 1
    fi
    export FASTJCS_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/postgres"
    export FASTJCS_TEST_POSTGRES_CTL="${ctl# }"
    export FASTJCS_PG_DIR="$dir"
    echo "export FASTJCS_TEST_POSTGRES_URL='$FASTJCS_TEST_POSTGRES_URL'"
    echo "export FASTJCS_TEST_POSTGRES_CTL='$FASTJCS_TEST_POSTGRES_CTL'"
}

_fastjcs_pg_stop() {
    [ -n "${FASTJCS_PG_DIR:-}" ] || return 0
    $FASTJCS_TEST_POSTGRES_CTL stop -m fast >/dev/null 2>&1 || true
    rm -rf "$FASTJCS_PG_DIR"
    unset FASTJCS_TEST_POSTGRES_URL FASTJCS_TEST_POSTGRES_CTL FASTJCS_PG_DIR
}

case "${1:-}" in
    start) _fastjcs_pg_start || true ;;
    stop) _fastjcs_pg_stop ;;
    *) echo "usage: . .ci/postgres.sh start|stop" >&2 ;;
esac

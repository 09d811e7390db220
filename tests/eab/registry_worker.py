"""A child process for tests/eab/test_registry.py (run as a script; not collected by pytest).

DB is a registry target: a SQLite path or a PostgreSQL URL.

    registry_worker.py contend DB GO_FILE WORKER KEYS ROUNDS
        Wait until GO_FILE exists, then admit each of KEYS keys ROUNDS times in a shuffled order,
        odd workers with another binding for every fifth key. Print one JSON list of
        [key, binding, answer] at the end.
    registry_worker.py loop DB
        Admit exec-0, exec-1, ... forever; print "admitted N" after each admit returned (so it is
        committed), and every third one is also finalized, printing "completed N".
    registry_worker.py create DB GO_FILE
        Wait until GO_FILE exists, then ExecutionRegistry.create(DB); after RegistryExistsError
        open it with ExecutionRegistry(DB). Admit one key and print one JSON object: "created"
        (true or false), "error" (the class of the create error, or null) and "answer".
    registry_worker.py stall DB N
        Admit exec-0 .. exec-(N-1), then admit exec-N but stop inside its transaction, after the
        reservation is written and before its audit event: print "inside" and sleep (to be
        killed).
    registry_worker.py through-restart DB WORKER STOP_FILE
        Admit exec-0, exec-1, ... (call_id "wWORKER") until STOP_FILE exists, retrying a key
        after each RegistryError (the server restarting). Print "ready" once the registry is open
        and has answered, and at the end one JSON list of [key, answer, errors before the answer].
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

from fastjcs.eab import ExecutionRegistry, RegistryError, RegistryExistsError, _postgres, _sqlite


def wait_for(go_file: str) -> None:
    deadline = time.monotonic() + 30
    while not os.path.exists(go_file):
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.001)


def binding_for(key: int, variant: int) -> str:
    return f"sha256:{key:032x}{variant:032x}"


def agent_for(key: int) -> str:
    return f"spiffe://agent.example/w{key % 3}"


def contend(db: str, go_file: str, worker: int, keys: int, rounds: int) -> None:
    order = list(range(keys)) * rounds
    random.Random(worker).shuffle(order)
    wait_for(go_file)
    out = []
    with ExecutionRegistry(db) as reg:
        for key in order:
            variant = 1 if worker % 2 and key % 5 == 0 else 0
            binding = binding_for(key, variant)
            answer = reg.admit(agent_for(key), f"exec-{key}", binding, call_id=f"w{worker}")
            out.append([key, binding, answer.name])
    print(json.dumps(out))


def loop(db: str) -> None:
    with ExecutionRegistry(db) as reg:
        n = 0
        while True:
            reg.admit("spiffe://agent.example/loop", f"exec-{n}", binding_for(n, 0))
            print(f"admitted {n}", flush=True)
            if n % 3 == 0:
                reg.finalize("spiffe://agent.example/loop", f"exec-{n}", "completed")
                print(f"completed {n}", flush=True)
            n += 1


def create(db: str, go_file: str) -> None:
    wait_for(go_file)
    try:
        reg, error = ExecutionRegistry.create(db), None
    except RegistryExistsError as exc:
        reg, error = ExecutionRegistry(db), type(exc).__name__
    with reg:
        answer = reg.admit("spiffe://agent.example/creator", "exec-1", binding_for(1, 0))
    print(json.dumps({"created": error is None, "error": error, "answer": answer.name}))


def stall(db: str, n: int) -> None:
    agent = "spiffe://agent.example/stall"
    with ExecutionRegistry(db) as reg:
        for k in range(n):
            reg.admit(agent, f"exec-{k}", binding_for(k, 0))
        tx_class = _postgres._PostgresTx if reg.storage == "postgresql" else _sqlite._SQLiteTx

        def inside(*args: object) -> None:
            print("inside", flush=True)
            time.sleep(600)

        tx_class.record = inside
        reg.admit(agent, f"exec-{n}", binding_for(n, 0))


def through_restart(db: str, worker: int, stop_file: str) -> None:
    out = []
    with ExecutionRegistry(db, timeout=5) as reg:
        reg.get(agent_for(0), "exec-0")  # a connection made and used
        print("ready", flush=True)
        key = 0
        while not os.path.exists(stop_file):
            errors = 0
            while True:
                try:
                    answer = reg.admit(agent_for(key), f"exec-{key}", binding_for(key, 0), call_id=f"w{worker}")
                    break
                except RegistryError:
                    errors += 1
                    time.sleep(0.05)
            out.append([key, answer.name, errors])
            key += 1
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "contend":
        contend(sys.argv[2], sys.argv[3], *map(int, sys.argv[4:7]))
    elif sys.argv[1] == "loop":
        loop(sys.argv[2])
    elif sys.argv[1] == "create":
        create(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "stall":
        stall(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "through-restart":
        through_restart(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]!r}")

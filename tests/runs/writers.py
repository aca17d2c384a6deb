"""Many writers at once: ``python writers.py SPEC.json`` runs the command lines the spec
lists, each in a process of its own, all released at the same moment, and prints their exit
codes and outputs as JSON.

The spec: ``{"home": RAGDASH_HOME for the writers, "warm_home": a scratch home,
"argvs": [[...], ...]}``. This process imports ragdash and runs the first command once
against ``warm_home`` (so the lazy imports are done), then forks one child per command:
twenty writers start in a fraction of a second on two cores, each with its own SQLite
connections, as twenty ``python -m ragdash ...`` in twenty terminals are. The children wait
on a pipe until all are forked, so they reach the store together.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    from ragdash.cli import main as ragdash_main

    os.environ["RAGDASH_HOME"] = spec["warm_home"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        ragdash_main(spec["argvs"][0])
    from ragdash.runs import store

    store._stores.clear()  # each child opens the writers' store itself
    outs = [f"{spec_path}.{i}.out" for i in range(len(spec["argvs"]))]
    go_read, go_write = os.pipe()
    pids = []
    for argv, out in zip(spec["argvs"], outs):
        pid = os.fork()
        if pid == 0:  # a writer
            os.close(go_write)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.environ["RAGDASH_HOME"] = spec["home"]
            os.read(go_read, 1)  # blocks until the parent lets all go
            try:
                code = ragdash_main(argv)
            except BaseException as exc:  # a traceback is a failure the test shows
                import traceback

                traceback.print_exc()
                code = 99 if not isinstance(exc, SystemExit) else exc.code
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(code or 0))
        pids.append(pid)
    os.close(go_read)
    os.write(go_write, b"x" * len(pids))
    os.close(go_write)
    codes = []
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        codes.append(os.waitstatus_to_exitcode(status))
    texts = [Path(out).read_text(encoding="utf-8") for out in outs]
    print(json.dumps({"codes": codes, "outputs": texts}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

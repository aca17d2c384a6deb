"""A setup, declared once, as data: what to retrieve with, how to cut, fuse and rerank, and
how to score — read from a TOML setup file, the command line's flags or the app's form, built
into stages, run, and recorded with every run it makes.

    setup = load_setup("hybrid.toml")        # checked: one sentence naming file, line and key
    run = run_setup(setup, store=get_store())
    setup_to_toml(setup_from_run(run))       # any saved run, as the file that reruns it

The parameters themselves (names, types, defaults, ranges, help) are declared in
:mod:`ragdash.params`; ``docs/setup-file.md`` is generated from them
(``python -m ragdash.setup.reference``).
"""

from .build import KeySource, Stages, build, build_reranker, build_retriever, environment_keys
from .files import load_setup, parse_setup, setup_to_toml
from .model import FirstStage, Setup, Source, setup_from_dict, setup_to_dict
from .run import load_setup_dataset, run_setup, setup_from_config, setup_from_run, setup_record

__all__ = ["FirstStage", "KeySource", "Setup", "Source", "Stages", "build", "build_reranker",
           "build_retriever", "environment_keys", "load_setup", "load_setup_dataset",
           "parse_setup", "run_setup", "setup_from_config", "setup_from_dict",
           "setup_from_run", "setup_record", "setup_to_dict", "setup_to_toml"]

"""The end's process: it loads the plotting stack while the run goes on, and its failure is
the exception's line (the plugin adds how to render the stored records later)."""

import time

import pytest

from reporting.storage.run import RunContext
from reporting.render.run_end import EndProcess, RunEnd
from reporting.analysis.verdict_settings import VerdictSettings


def unknown_run(tmp_path) -> RunEnd:
    return RunEnd(run=RunContext("never-begun", tmp_path), experiments={},
                  settings=VerdictSettings(), thresholds=[], baseline=None, baseline_spec=None,
                  alpha=0.05, received=[], expected=0, missing=[], stopped=False,
                  exit_status=0, model_calls=0, cached_calls=0)


def test_a_failing_end_raises_with_the_childs_exception(tmp_path):
    process = EndProcess()
    process.send(unknown_run(tmp_path))
    with pytest.raises(RuntimeError, match="^KeyError: \"no run 'never-begun'"):
        process.result()


def test_an_end_never_asked_for_is_stopped(tmp_path):
    process = EndProcess()
    time.sleep(0.2)  # importing, or already waiting on its stdin
    process.close()
    assert process._process.poll() is not None

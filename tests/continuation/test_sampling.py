"""Every option is sent (seed 0 too); options an endpoint refuses are dropped and reported."""

import asyncio
import warnings

import openai
import pytest

from benchmarks.continuation import sampling
from fixtures.engine.models import OpenAIChatModel
from fixtures.engine.recording import SampleRecorder
from tests.doubles.scripted_server import Fault, ScriptedServer

OPTIONS = {"top_k": 100, "top_p": 1.0, "min_p": 0.1, "repeat_penalty": 1.01,
           "repetition_penalty": 1.01}


@pytest.fixture
def server():
    sampling.forget()
    with ScriptedServer("echo") as running:
        yield running
    sampling.forget()


def ask(server, seed=0):
    model = OpenAIChatModel("scripted", server.base_url, "key", max_retries=0)
    record = SampleRecorder("continuation", "ctx1k-r0", "node", "run", {})
    record.stimulus([{"role": "user", "content": "Once upon a time."}], max_tokens=16)
    completion = asyncio.run(sampling.ask(record, model, temperature=1.0, sampling=OPTIONS,
                                          seed=seed, replicate=0))
    return completion, record.record


def test_everything_is_sent_seed_zero_included(server):
    completion, record = ask(server)
    sent = server.requests[-1]
    assert completion.ok and sent["seed"] == 0 and sent["temperature"] == 1.0
    assert {k: sent[k] for k in OPTIONS} == OPTIONS
    assert "unsupported_params" not in record.details
    assert record.model["sampling"]["seed"] == 0


def test_refused_option_is_dropped_recorded_and_warned_once(server):
    server.faults.append(Fault(400, {"error": {
        "message": "Unrecognized request argument supplied: top_k",
        "type": "invalid_request_error"}}))
    with pytest.warns(UserWarning, match="refused 'top_k'"):
        completion, record = ask(server)
    assert completion.ok and "top_k" in server.requests[0] and "top_k" not in server.requests[1]
    assert record.details["unsupported_params"] == ["top_k"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        _, later = ask(server, seed=1)
    assert "top_k" not in server.requests[-1] and later.details["unsupported_params"] == ["top_k"]


def test_a_400_naming_no_option_is_a_harness_failure(server):
    server.faults.append(Fault(400, {"error": {"message": "malformed messages"}}))
    with pytest.raises(openai.BadRequestError):
        ask(server)


def test_names_match_whole_words_only():
    sent = {"top_k", "top_p", "repeat_penalty", "repetition_penalty", "seed"}
    assert sampling.refused_options("Extra inputs are not permitted: 'repetition_penalty'",
                                    sent) == ["repetition_penalty"]
    assert sampling.refused_options("bad top_kk", sent) == []

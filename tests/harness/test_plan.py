"""--plan's planning model: the size of a sample's first request, counted, never sent."""

import asyncio

import pytest

from fixtures.plan import Planned, PlanningModel
from fixtures.tokenizer import o200k

MESSAGES = [{"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is the capital of France?"}]


class TemplatedUnit:
    """o200k's counts with a chat template's tokens, as a model's own unit has them."""

    chat_overhead, turn_overhead = 7, 3

    def count_many(self, texts):
        return o200k().count_many(texts)

    def template_tokens(self, messages):
        return self.chat_overhead + max(0, messages - 1) * self.turn_overhead


def planned(model, messages, **counted):
    with pytest.raises(Planned):
        asyncio.run(model.complete(messages, max_tokens=64, **counted))
    return model.requests[-1]


def test_a_request_is_counted_in_the_unit_with_its_chat_template():
    model = PlanningModel("m", None, TemplatedUnit())
    contents = sum(o200k().count(m["content"]) for m in MESSAGES)
    assert planned(model, MESSAGES) == (contents + 7 + 3, 64)


def test_the_stimulus_own_count_is_taken_and_agrees_with_counting():
    """record.ask passes the stimulus's count (the run's unit, the template in): the plan takes
    it instead of counting a 128k-token conversation again, and it is what counting gives."""
    unit = TemplatedUnit()
    counting, given = PlanningModel("m", None, unit), PlanningModel("m", None, unit)
    counted = planned(counting, MESSAGES)[0]
    assert planned(given, MESSAGES, prompt_tokens=counted) == (counted, 64)
    assert planned(given, MESSAGES, prompt_tokens=5) == (5, 64)  # taken as given, not recounted


def test_the_planning_stop_passes_through_a_solvers_handler_for_failed_requests():
    async def solver():
        try:
            await PlanningModel("m", None, o200k()).complete(MESSAGES, max_tokens=8)
        except Exception:  # a solver's handler for a request that failed
            return "handled"

    with pytest.raises(Planned):
        asyncio.run(solver())

"""The episode: the trajectory's one request, the live loop under each condition, and every
way an episode ends, named and scored."""

from __future__ import annotations

import asyncio
import json

import pytest

from benchmarks.agent_accumulation import episode, grid, scoring, stimulus, tools
from fixtures.engine.toolcalls import tool_history_problem

from .helpers import Agent, Reply, count, small_ledger, tool_reply


def play(built, ask, condition="full", max_steps=18):
    return asyncio.run(episode.live(built, ask, count, grid.parse_conditions(condition)[0],
                                    max_steps))


def test_the_trajectory_is_one_request_that_forces_submit():
    built, agent = small_ledger(), Agent()
    played = asyncio.run(episode.trajectory(built, agent, count))
    assert len(agent.sent) == 1 and agent.sent[0][1] == tools.FORCE_SUBMIT
    assert agent.sent[0][0] == stimulus.trajectory(built)
    assert played.end == episode.SUBMITTED
    assert scoring.score(built, played) == {"exact": True, "id_f1": 1.0, "submitted": True}


@pytest.mark.parametrize("condition", ["full", "clear:2", "drop:0.5", "trim:0.5", "compact:3000"])
def test_a_perfect_agent_is_exact_under_every_condition(condition):
    built, agent = small_ledger(needles=4, size=120), Agent()
    played = play(built, agent, condition)
    assert played.end == episode.SUBMITTED, played.details()
    assert scoring.score(built, played)["exact"]
    assert played.steps == 12 and played.calls == {"list_pages": 1, "read_page": 10,
                                                   "submit": 1}
    assert all(choice == "auto" for _, choice in agent.sent if _[-1]["content"] !=
               stimulus.SUMMARY_PROMPT)
    assert all(tool_history_problem(sent) is None for sent, _ in agent.sent)
    details = played.details()
    assert details["pages_reread"] == 0 and details["get_record_calls"] == 0
    assert len(details["sent_tokens_per_request"]) == 12
    if condition == "clear:2":
        assert played.most_page_results == 2
    if condition == "full":  # each request extends the one before, message for message
        for (before, _), (after, _) in zip(agent.sent, agent.sent[1:]):
            assert after[:len(before)] == before
        assert played.most_page_results == 10
    if condition.startswith("compact"):
        assert played.summaries and details["summaries"] == played.summaries


def test_the_assistant_message_goes_back_exactly_as_it_came():
    built, agent = small_ledger(), Agent()
    play(built, agent)
    second = agent.sent[1][0]
    assert second[2]["reasoning_content"] == "step 1" and second[2]["tool_calls"][0]["id"] == "c1"
    assert second[3] == {"role": "tool", "tool_call_id": "c1",
                         "content": json.dumps({"pages": 10, "records_per_page": 6})}


def scripted(*replies):
    queue = list(replies)

    async def ask(messages, tool_choice):
        return queue.pop(0)
    return ask


@pytest.mark.parametrize(("replies", "end", "malformed"), [
    ([Reply({"role": "assistant", "content": "I am done."}, finish_reason="stop")],
     episode.NO_CALL, None),
    ([tool_reply(1, "read_page", "{page: 1")], episode.MALFORMED, tools.BAD_ARGUMENTS),
    ([tool_reply(1, "rm", {})], episode.MALFORMED, tools.UNKNOWN_TOOL),
    ([tool_reply(1, "list_pages", {}), tool_reply(2, "submit", {"ids": "x", "total_cents": 1})],
     episode.MALFORMED, tools.BAD_SUBMIT),
    ([tool_reply(1, "list_pages", {}), Reply(None, outcome="overflow")], episode.OVERFLOW, None),
    ([tool_reply(n, "read_page", {"page": 99}) for n in range(3)], episode.STEP_CAP, None),
])
def test_every_end_is_named_and_scores_0(replies, end, malformed):
    built = small_ledger()
    played = play(built, scripted(*replies), max_steps=3)
    assert (played.end, played.malformed) == (end, malformed)
    assert scoring.score(built, played) == {"exact": False, "id_f1": 0.0, "submitted": False}
    assert played.details()["episode_end"] == end


def test_a_wrong_submission_is_scored_by_rule():
    built = small_ledger(needles=2)
    gold = list(built.gold_ids)
    one = play(built, scripted(tool_reply(1, "submit", {"ids": gold[:1], "total_cents": 5})))
    assert scoring.score(built, one) == {"exact": False, "id_f1": pytest.approx(2 / 3),
                                         "submitted": True}
    right_ids = play(built, scripted(tool_reply(1, "submit", {"ids": gold, "total_cents": 5})))
    assert scoring.score(built, right_ids) == {"exact": False, "id_f1": 1.0, "submitted": True}
    assert scoring.id_f1(set(), set()) == 1.0 and scoring.id_f1({"a"}, set()) == 0.0


def test_rereads_and_get_record_calls_are_counted():
    built = small_ledger()
    record_id = built.pages[0][0]["id"]
    played = play(built, scripted(
        tool_reply(1, "read_page", {"page": 1}), tool_reply(2, "read_page", {"page": 1}),
        tool_reply(3, "get_record", {"id": record_id}),
        tool_reply(4, "submit", {"ids": [], "total_cents": 0})))
    details = scoring.details(built, played)
    assert details["pages_reread"] == 1 and details["get_record_calls"] == 1
    assert details["tool_calls"] == {"get_record": 1, "read_page": 2, "submit": 1}
    assert details["earliest_needle_depth"] == min(built.needle_depths)

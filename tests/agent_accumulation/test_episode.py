"""The episode: the trajectory's one request, the live loop under each condition, and every
way an episode ends, named and scored."""

from __future__ import annotations

import asyncio
import json

import pytest

from benchmarks.agent_accumulation import episode, grid, scoring, stimulus, tools
from fixtures.engine.toolcalls import tool_history_problem

from .helpers import Agent, Reply, count, settings, small_ledger, tool_reply


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


@pytest.mark.parametrize(("replies", "end"), [
    ([Reply({"role": "assistant", "content": "I am done."}, finish_reason="stop")],
     episode.NO_CALL),
    ([tool_reply(1, "list_pages", {}), Reply(None, outcome="overflow")], episode.OVERFLOW),
    ([tool_reply(n, "read_page", {"page": 99}) for n in range(3)], episode.STEP_CAP),
    ([tool_reply(n, "read_page", "{page: 1") for n in range(3)], episode.STEP_CAP),
])
def test_every_end_is_named_and_scores_0(replies, end):
    built = small_ledger()
    played = play(built, scripted(*replies), max_steps=3)
    assert played.end == end
    assert scoring.score(built, played) == {"exact": False, "id_f1": 0.0, "submitted": False}
    assert played.details()["episode_end"] == end


def calls_reply(*calls) -> Reply:
    return Reply({"role": "assistant", "content": "", "tool_calls": list(calls)})


def read_call(call_id, page, arguments=None) -> dict:
    found = {"type": "function", "function": {
        "name": "read_page", "arguments": json.dumps({"page": page})
        if arguments is None else arguments}}
    return found if call_id is None else {"id": call_id, **found}


@pytest.mark.parametrize(("reply", "end"), [
    (calls_reply(read_call("a", 1), read_call("a", 2)), episode.DUPLICATE_IDS),
    (calls_reply(read_call("c1", 2)), episode.DUPLICATE_IDS),  # c1: the first reply's id
    (calls_reply(read_call(None, 2)), episode.MISSING_ID),
    (calls_reply(read_call("", 2)), episode.MISSING_ID),
    (calls_reply(read_call("b", 2, {"page": 2})), episode.OBJECT_ARGUMENTS),
])
def test_a_reply_the_next_request_could_not_carry_is_a_named_end_scored_0(reply, end):
    built = small_ledger()
    sent = []

    async def ask(messages, tool_choice):
        sent.append(messages)
        return [tool_reply(1, "list_pages", {}), reply][len(sent) - 1]
    played = play(built, ask)
    assert played.end == end and len(sent) == 2  # nothing sent after it
    assert scoring.score(built, played) == {"exact": False, "id_f1": 0.0, "submitted": False}
    assert all(tool_history_problem(messages) is None for messages in sent)


@pytest.mark.parametrize("slip", [
    tool_reply(0, "search_ledger", {"query": "inv"}),
    tool_reply(0, "read_page", "{page: 1"),
    tool_reply(0, "read_page", "[1]"),
    tool_reply(0, "read_page", {"page": 99}),
])
def test_a_slip_is_answered_with_an_error_and_the_loop_goes_on_to_be_exact(slip):
    built, agent = small_ledger(needles=3), Agent()
    first = []

    async def ask(messages, tool_choice):
        if not first:
            first.append(messages)
            return slip
        return await agent(messages, tool_choice)
    played = play(built, ask)
    assert played.end == episode.SUBMITTED
    assert scoring.score(built, played) == {"exact": True, "id_f1": 1.0, "submitted": True}
    (kind,) = played.details()["call_errors"]
    assert played.details()["call_errors"][kind] == 1
    answer = json.loads(agent.sent[0][0][3]["content"])  # the error result the agent saw
    assert set(answer) == {"error"} and agent.sent[0][0][3]["tool_call_id"] == "c0"


def test_an_ill_formed_submit_is_submitted_and_scores_0():
    built = small_ledger()
    played = play(built, scripted(tool_reply(1, "submit", {"ids": "x", "total_cents": 1})))
    assert played.end == episode.SUBMITTED
    assert scoring.score(built, played) == {"exact": False, "id_f1": 0.0, "submitted": True}
    assert played.details()["submit_well_formed"] is False
    assert played.details()["call_errors"] == {tools.BAD_SUBMIT: 1}


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


def test_the_default_full_grid_sends_no_two_conditions_the_same_requests():
    conditions = settings(scale="full").conditions
    built = small_ledger(needles=4, size=120)
    length = asyncio.run(count(stimulus.trajectory(built)))  # what reading every page reaches
    sent = {}
    for condition in conditions:
        agent = Agent()
        played = asyncio.run(episode.live(built, agent, count, condition.at(length), 24))
        assert played.end == episode.SUBMITTED and scoring.score(built, played)["exact"]
        sent[condition.name] = json.dumps([messages for messages, _ in agent.sent])
    assert len(set(sent.values())) == len(conditions) == 4, sorted(sent)
    # trim:F would send drop:F's requests, byte for byte, to an agent making one call a turn
    agent_drop, agent_trim = Agent(), Agent()
    for agent, name in ((agent_drop, "drop:0.5"), (agent_trim, "trim:0.5")):
        asyncio.run(episode.live(built, agent, count, grid.parse_conditions(name)[0], 24))
    assert agent_drop.sent == agent_trim.sent


def test_the_default_step_cap_lets_a_careful_agent_re_read_every_page():
    built = small_ledger()
    careful = Agent()

    async def re_reading(messages, tool_choice):  # every page, then every page again
        n = len(careful.sent) + 1
        careful.sent.append((messages, tool_choice))
        if n == 1:
            return tool_reply(n, "list_pages", {})
        if n <= 21:
            return tool_reply(n, "read_page", {"page": (n - 2) % 10 + 1})
        reply = await Agent()(messages, tool_choice)  # it read everything: it submits
        reply.message["tool_calls"][0]["id"] = f"c{n}"
        return reply
    played = play(built, re_reading, max_steps=settings().max_steps)
    assert played.end == episode.SUBMITTED and played.details()["pages_reread"] == 10
    assert scoring.score(built, played)["exact"]

"""The tools' results and the conditions applied to a live history."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from benchmarks.agent_accumulation import grid, stimulus, tools
from fixtures.engine.toolcalls import tool_history_problem

from .helpers import small_ledger


def call(name, arguments) -> dict:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": text}}


def test_the_four_tools_and_their_results():
    built = small_ledger(size=35, pages=5)
    assert tools.NAMES == ("list_pages", "read_page", "get_record", "submit")
    assert json.loads(tools.run(built, call("list_pages", {})).content) == \
        {"pages": 5, "records_per_page": 7}
    page = json.loads(tools.run(built, call("read_page", {"page": 2})).content)
    assert page == {"page": 2, "of": 5, "records": list(built.pages[1])}
    record = built.pages[3][1]
    assert json.loads(tools.run(built, call("get_record", {"id": record["id"]})).content) == record
    assert json.loads(tools.run(built, call("get_record", {"id": "inv-zzzzzz"})).content) == \
        {"error": "no record inv-zzzzzz"}
    for bad in (0, 6, "2", 1.5, None, True):
        assert "error" in json.loads(tools.run(built, call("read_page", {"page": bad})).content)
    done = tools.run(built, call("submit", {"ids": ["inv-000001"], "total_cents": 12}))
    assert done.submission == tools.Submission(("inv-000001",), 12) and done.content is None
    # the same call, the same bytes: a result is a function of the ledger and the arguments
    assert tools.run(built, call("read_page", {"page": 3})) == \
        tools.run(small_ledger(size=35, pages=5), call("read_page", {"page": 3}))


@pytest.mark.parametrize(("made", "why", "answered"), [
    (call("read_page", "{page: 1"), tools.BAD_ARGUMENTS, True),
    (call("read_page", "[1]"), tools.BAD_ARGUMENTS, True),
    (call("delete_page", {"page": 1}), tools.UNKNOWN_TOOL, True),
    (call("read_page", {"page": 11}), tools.BAD_PAGE, True),
    (call("submit", "{ids"), tools.BAD_ARGUMENTS, True),
    (call("submit", {"ids": "inv-000001", "total_cents": 1}), tools.BAD_SUBMIT, False),
    (call("submit", {"ids": [1], "total_cents": 1}), tools.BAD_SUBMIT, False),
    (call("submit", {"ids": [], "total_cents": "12"}), tools.BAD_SUBMIT, False),
    (call("submit", {"ids": [], "total_cents": True}), tools.BAD_SUBMIT, False),
    (call("submit", {"ids": []}), tools.BAD_SUBMIT, False),
])
def test_a_slip_says_why_and_is_answered_unless_it_submits(made, why, answered):
    done = tools.run(small_ledger(), made)
    assert done.error == why
    if answered:  # an error result: the loop goes on
        assert not done.submitted and "error" in json.loads(done.content)
    else:  # submit was called: the episode ends, ill-formed
        assert done.submitted and done.submission is None


def history(turns: int, calls_per_turn: int = 1) -> list[dict]:
    """The task and ``turns`` turns of page reads, some with parallel calls."""
    built = small_ledger()
    messages = stimulus.task_messages(built)
    n = 0
    for turn in range(turns):
        made = []
        for _ in range(1 + (calls_per_turn > 1 and turn % 2)):
            made.append(stimulus.call(n, "read_page", {"page": n % 10 + 1}))
            n += 1
        messages.append({"role": "assistant", "content": f"notes {turn}", "tool_calls": made})
        messages += [{"role": "tool", "tool_call_id": c["id"],
                      "content": stimulus.read_page(built, int(c["function"]["arguments"][9:-1]))}
                     for c in made]
    return messages


def test_the_trajectory_reads_every_page_once_in_order():
    built = small_ledger()
    messages = stimulus.trajectory(built)
    assert [m["role"] for m in messages[:4]] == ["system", "user", "assistant", "tool"]
    assert messages[1]["content"] == built.task
    calls = [m["tool_calls"][0]["function"] for m in messages if m["role"] == "assistant"]
    assert calls[0] == {"name": "list_pages", "arguments": "{}"}
    assert [json.loads(c["arguments"])["page"] for c in calls[1:]] == list(range(1, 11))
    assert tool_history_problem(messages) is None
    assert all(len(c) == 9 and c.isalnum() for c in
               (m["tool_calls"][0]["id"] for m in messages if m["role"] == "assistant"))


@given(turns=st.integers(0, 25), parallel=st.booleans(),
       condition=st.sampled_from(["full", "clear:1", "clear:2", "drop:0.5", "drop:0.3",
                                  "drop:1", "trim:0.5", "trim:0.1", "trim:1"]))
def test_no_condition_breaks_a_turn_and_the_task_always_stays(turns, parallel, condition):
    full = history(turns, 2 if parallel else 1)
    sent = stimulus.apply(grid.parse_conditions(condition)[0], full)
    assert tool_history_problem(sent) is None
    assert sent[:2] == full[:2]
    assert all(m in full or m["content"] == stimulus.CLEARED for m in sent)


def test_each_condition_as_the_spec_says():
    full = history(12)
    parse = lambda text: grid.parse_conditions(text)[0]  # noqa: E731
    assert stimulus.apply(parse("full"), full) is full  # each request extends the last
    cleared = stimulus.apply(parse("clear:2"), full)
    assert stimulus.page_results(cleared) == 2 and len(cleared) == len(full)
    assert [m["content"] for m in cleared[-4:]] == [m["content"] for m in full[-4:]]
    assert cleared[3]["content"] == stimulus.CLEARED and cleared[2] == full[2]
    dropped = stimulus.apply(parse("drop:0.5"), full)
    assert dropped == full[:2] + full[2 + 12:]  # 6 of 12 turns, the oldest
    trimmed = stimulus.apply(parse("trim:0.5"), full)
    assert trimmed == full[:2] + full[2 + 12:]  # the newest half of 24 messages
    # the newest 5 of 24 would start on a result: its call is kept with it
    assert stimulus.apply(parse("trim:0.2"), full) == full[:2] + full[2 + 18:]
    # the newest turn always stays whole
    assert stimulus.apply(parse("trim:0.5"), full[:4]) == full[:4]
    summary = {"role": "assistant", "content": "found nothing", "reasoning_content": "..."}
    assert stimulus.compacted(full, summary) == full[:2] + [
        summary, {"role": "user", "content": stimulus.CONTINUE}]


def test_clearing_never_hides_a_result_the_model_has_not_seen():
    full = history(10, calls_per_turn=2)  # every other turn reads two pages at once
    assert len(full[-3]["tool_calls"]) == 2  # the newest turn: two parallel calls
    cleared = stimulus.apply(grid.parse_conditions("clear:1")[0], full)
    newest = max(i for i, m in enumerate(full) if m["role"] == "assistant")
    assert cleared[newest + 1:] == full[newest + 1:]  # both unseen results stay
    assert stimulus.page_results(cleared) == 2
    # results the model has seen are cleared down to K
    assert stimulus.page_results(stimulus.apply(grid.parse_conditions("clear:3")[0], full)) == 3

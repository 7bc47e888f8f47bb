"""The built-in solvers as this experiment uses them (no server: they need none)."""

from __future__ import annotations

import asyncio

from fixtures.engine.models import HumanSolver, RandomSolver


def text(solver, messages):
    return asyncio.run(solver.complete(messages, max_tokens=8)).text


def test_the_random_solver_answers_in_format_and_is_seeded_by_the_conversation():
    solver = RandomSolver()
    messages = [{"role": "system", "content": "task"},
                {"role": "user", "content": "MAIN TASK - pebble"}]
    first = text(solver, messages)
    assert first in ("[answer: yes]", "[answer: no]")
    assert text(solver, messages) == first
    answers = {text(solver, messages + [{"role": "user", "content": str(i)}]) for i in range(40)}
    assert answers == {"[answer: yes]", "[answer: no]"}


def test_the_human_solver_sees_the_task_first_and_needs_no_format(monkeypatch, capsys):
    typed = iter(["no", "[answer: yes]"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    solver = HumanSolver()
    messages = [{"role": "system", "content": "THE TASK"},
                {"role": "user", "content": "MAIN TASK - pebble"}]
    assert text(solver, messages) == "[answer: no]"
    shown = capsys.readouterr().out
    assert "THE TASK" in shown and "MAIN TASK - pebble" in shown
    messages += [{"role": "assistant", "content": "[answer: no]"},
                 {"role": "user", "content": "MAIN TASK - pebble"}]
    assert text(solver, messages) == "[answer: yes]"
    assert "THE TASK" not in capsys.readouterr().out

"""Generation settings and reasoning endpoints: the request shaper, the thinking split, and
the real openai client against each reasoning behaviour of the scripted server."""

from __future__ import annotations

import asyncio
import re

import pytest

from fixtures.providers.generation import (DEFAULT_THINKING_BUDGET, GenerationError, GenerationSettings,
                                 RequestShaper, answer_apart, settings_from)
from fixtures.engine.models import OpenAIChatModel
from fixtures.providers.base import EndpointFatal
from tests.doubles.scripted_server import ScriptedServer, openai_refusal
from fixtures.tokens.tokenizer import o200k

from .test_faults import ONE, pytest_command, run

QUESTION = [{"role": "user", "content": "Which number? The number is 7"}]


def options(**given):
    defaults = {"temperature": None, "top_p": None, "seed": None, "reasoning_effort": None,
                "reasoning_tokens": None, "thinking": None, "model_args": None,
                "think_tags": None, "token_limit_param": "auto"}
    return {**defaults, **given}.__getitem__


# -- the settings and their bad values ----------------------------------------------------
@pytest.mark.parametrize("given, line", [
    ({"temperature": 3.0}, "--temperature 3: give a value from 0 to 2"),
    ({"top_p": 0.0}, "--top-p 0: give a value above 0 and at most 1"),
    ({"seed": -1}, "--seed -1: give 0 or more"),
    ({"reasoning_effort": "max"}, "--reasoning-effort 'max': choose one of none, minimal"),
    ({"reasoning_tokens": 0}, "--reasoning-tokens 0: give a positive thinking budget"),
    ({"thinking": "yes"}, "--thinking 'yes': give on or off"),
    ({"thinking": "off", "reasoning_tokens": 10}, "--thinking off with --reasoning-tokens 10"),
    ({"model_args": ["top_k"]}, "-M 'top_k': give KEY=JSON"),
    ({"model_args": ["messages=[]"]}, "-M messages: not a model argument"),
    ({"model_args": ["max_tokens=5"]}, "-M max_tokens: the suite sets the token limit: "
                                       "each experiment's answer budget plus the thinking "
                                       "budget (--reasoning-tokens"),
    ({"model_args": ["temperature=NaN"]}, "-M temperature=NaN: give finite numbers"),
    ({"model_args": ["temperature=-Infinity"]}, "-M temperature=-Infinity: give finite"),
    ({"model_args": ['x={"a": [1, 1e400]}']}, '-M x={"a": [1, 1e400]}: give finite'),
    ({"model_args": ["x={bad"]}, "-M x: '{bad' is not valid JSON"),
    ({"think_tags": ["[THINK]"]}, "--think-tags '[THINK]': give OPEN,CLOSE"),
    ({"token_limit_param": "max_output_tokens"}, "--token-limit-param 'max_output_tokens': "
                                                 "choose one of auto"),
])
def test_each_bad_value_is_one_line_naming_the_option_and_the_fix(given, line):
    with pytest.raises(GenerationError) as raised:
        settings_from(options(**given))
    assert str(raised.value).startswith(line) and "\n" not in str(raised.value)


def test_a_model_arg_is_json_or_else_a_string():
    settings = settings_from(options(model_args=["top_k=40", "service_tier=flex",
                                                 'thinking={"type": "enabled"}']))
    assert dict(settings.model_args) == {"top_k": 40, "service_tier": "flex",
                                         "thinking": {"type": "enabled"}}


def test_precedence_protocol_then_run_options_then_thinking_then_model_args():
    settings = GenerationSettings(temperature=0.6, reasoning_effort="low", thinking="off",
                                  model_args=(("top_p", 0.5),
                                              ("chat_template_kwargs", {"x": 1})))
    body = RequestShaper(settings).body(100, {"temperature": 0.0, "top_p": 1.0, "top_k": 3,
                                              "seed": None})
    assert body == {"temperature": 0.6, "top_p": 0.5, "top_k": 3, "reasoning_effort": "low",
                    "chat_template_kwargs": {"enable_thinking": False, "x": 1},
                    "max_tokens": 100}


def test_an_experiment_may_send_no_sampling_value_and_no_cap():
    assert RequestShaper().body(None, {"temperature": None}) == {}
    assert RequestShaper(GenerationSettings(temperature=0.3, thinking="on")).body(
        None, {}) == {"temperature": 0.3, "chat_template_kwargs": {"enable_thinking": True}}


def test_the_thinking_budget_is_added_to_the_answers_where_thinking_is_on():
    assert GenerationSettings().thinking_budget == 0
    assert GenerationSettings(reasoning_effort="none").thinking_budget == 0
    assert GenerationSettings(reasoning_effort="high").thinking_budget == DEFAULT_THINKING_BUDGET
    assert GenerationSettings(thinking="on", reasoning_tokens=500).thinking_budget == 500
    assert GenerationSettings(thinking="off", reasoning_effort="high").thinking_budget == 0
    shaper = RequestShaper(GenerationSettings(reasoning_tokens=500))
    assert shaper.body(100, {})["max_tokens"] == 600


def test_the_identity_says_what_was_set_and_nothing_for_a_default_run():
    assert GenerationSettings().identity() == {}
    assert GenerationSettings(thinking="on", reasoning_tokens=8).identity() == \
        {"thinking": "on", "reasoning_tokens": 8, "thinking_budget": 8}


# -- learning refusals ---------------------------------------------------------------------
def learn(shaper, sent, body):
    error = body["error"]
    return shaper.learn(sent, error.get("param"), error.get("code"), error["message"], "host")


def test_a_refused_max_tokens_is_renamed_once_and_said_in_the_identity():
    shaper = RequestShaper()
    sent = shaper.body(10, {"temperature": 0.0})
    assert learn(shaper, sent, openai_refusal("max_tokens"))
    assert shaper.body(10, {"temperature": 0.0}) == {"temperature": 0.0,
                                                     "max_completion_tokens": 10}
    assert learn(shaper, sent, openai_refusal("max_tokens"))  # one in flight: just resent
    assert shaper.adapted() == {"renamed": {"max_tokens": "max_completion_tokens"}}
    with pytest.raises(Exception, match="refuses both max_tokens and max_completion_tokens"):
        learn(shaper, shaper.body(10, {}), openai_refusal("max_completion_tokens"))


def test_a_refused_value_the_experiment_chose_is_dropped_for_the_run():
    shaper = RequestShaper()
    sent = shaper.body(10, {"temperature": 0.0})
    assert learn(shaper, sent, openai_refusal("temperature", 0.0))
    assert "temperature" not in shaper.body(10, {"temperature": 0.0})
    assert shaper.adapted() == {"dropped": ["temperature"]}


def test_other_wordings_of_a_refused_value_are_understood():
    shaper = RequestShaper()
    sent = shaper.body(10, {"temperature": 0.2})
    assert shaper.learn(sent, None, None, "invalid temperature: only 1 is allowed for this "
                        "model", "host")
    assert not RequestShaper().learn(sent, None, None, "messages: bad role", "host")


@pytest.mark.parametrize("settings, line", [
    (GenerationSettings(temperature=0.2), "host refuses --temperature 0.2 (Unsupported value"),
    (GenerationSettings(token_limit_param="max_tokens"),
     "host refuses max_tokens (Unsupported parameter"),
])
def test_a_refused_value_the_user_chose_is_one_fatal_line(settings, line):
    shaper = RequestShaper(settings)
    sent = shaper.body(10, {"temperature": 0.0})
    refusal = openai_refusal("temperature", 0.2) if settings.temperature else \
        openai_refusal("max_tokens")
    with pytest.raises(Exception) as raised:
        learn(shaper, sent, refusal)
    assert str(raised.value).startswith(line) and "\n" not in str(raised.value)


# -- thinking apart from the answer --------------------------------------------------------
@pytest.mark.parametrize("content, answer, thinking, ran_out", [
    ("<think>\nit is 3\n</think>\n\nThe number is 7", "The number is 7", "it is 3", False),
    ("it is 3\n</think>\n\nThe number is 7", "The number is 7", "it is 3", False),
    ("<think>\nit is 3, no", "", "it is 3, no", True),
    ("The number is 7", "The number is 7", "", False),
    ("[THINK]it is 3[/THINK]7", "7", "it is 3", False),
])
def test_thinking_is_split_out_of_the_content(content, answer, thinking, ran_out):
    tags = (("<think>", "</think>"), ("[THINK]", "[/THINK]"))
    split = answer_apart(content, "", "stop", None, tags)
    assert (split.answer, split.thinking, split.ran_out) == (answer, thinking, ran_out)


def test_a_budget_spent_on_thinking_is_ran_out_and_an_empty_length_answer_alone_is_not():
    assert answer_apart("", "", "length", 120).ran_out  # OpenAI: hidden reasoning
    assert answer_apart("", "long thought", "length", None).ran_out  # a parser's field
    assert not answer_apart("", "", "length", None).ran_out  # no thinking at all


# -- the real client against each reasoning behaviour ------------------------------------
def ask(server, settings=GenerationSettings(), max_tokens=50, temperature=0.0, **params):
    async def run():
        client = OpenAIChatModel("scripted", server.base_url, "x", generation=settings)
        try:
            first = await client.complete(QUESTION, max_tokens=max_tokens,
                                          temperature=temperature, **params)
            second = await client.complete(QUESTION, max_tokens=max_tokens + 1,
                                           temperature=temperature, **params)
            return first, second, client.identity
        finally:
            await client.close()
    return asyncio.run(run())


def test_openai_reasoning_learns_both_refusals_and_counts_hidden_reasoning():
    with ScriptedServer("yes", behaviour="openai-reasoning", thinker="unsure") as server:
        first, second, identity = ask(server)
    sent = server.requests
    assert [("max_tokens" in r, "temperature" in r) for r in sent] == \
        [(True, True), (False, True), (False, False), (False, False)]
    assert first.text == second.text == "[answer: yes]"
    assert first.reasoning_tokens == 4 and first.request == {"max_completion_tokens": 50}
    assert identity["adapted"] == {"renamed": {"max_tokens": "max_completion_tokens"},
                                   "dropped": ["temperature"]}


def test_openai_reasoning_refusing_the_users_temperature_stops_the_run_with_one_line():
    with ScriptedServer("yes", behaviour="openai-reasoning") as server:
        with pytest.raises(EndpointFatal) as raised:
            ask(server, GenerationSettings(temperature=0.2))
    assert str(raised.value).startswith("http://127.0.0.1") and "refuses --temperature 0.2 " \
        "(Unsupported value: 'temperature' does not support 0.2 with this model." in \
        str(raised.value)


def test_openai_reasoning_with_its_budget_spent_thinking_has_no_answer():
    with ScriptedServer("yes", behaviour="openai-reasoning", thinker="echo") as server:
        first, _, _ = ask(server, max_tokens=3)
    assert (first.text, first.finish_reason, first.thinking_ran_out) == ("", "length", True)
    assert first.reasoning_tokens == 3


@pytest.mark.parametrize("behaviour", ["vllm-reasoning", "vllm-reasoning-content",
                                       "think-tags", "think-close", "qwen3"])
def test_each_way_of_returning_thinking_leaves_the_answer_alone(behaviour):
    with ScriptedServer("yes", behaviour=behaviour, thinker="echo") as server:
        first, _, _ = ask(server, max_tokens=200)
    assert first.text == "[answer: yes]" and not first.thinking_ran_out
    assert first.thinking == QUESTION[0]["content"]
    # counted in o200k: no usage detail
    assert first.reasoning_tokens == o200k().count(QUESTION[0]["content"]) == 8


def test_qwen3_thinking_off_is_sent_as_a_chat_template_argument():
    with ScriptedServer("yes", behaviour="qwen3") as server:
        first, _, _ = ask(server, GenerationSettings(thinking="off"))
    assert server.requests[0]["chat_template_kwargs"] == {"enable_thinking": False}
    assert first.text == "[answer: yes]" and first.thinking == "" and \
        first.reasoning_tokens is None


def test_an_unclosed_think_block_is_thinking_that_ran_out():
    with ScriptedServer("yes", behaviour="think-tags", thinker="echo") as server:
        first, _, _ = ask(server, max_tokens=4)
    assert (first.text, first.thinking_ran_out) == ("", True)
    assert first.thinking.startswith("Which number")


def test_anthropic_thinking_is_asked_through_the_request_body():
    thinking = '{"type": "enabled", "budget_tokens": 1024}'
    settings = settings_from(options(model_args=[f"thinking={thinking}"],
                                     reasoning_tokens=1024))
    with ScriptedServer("yes", behaviour="anthropic", thinker="echo") as server:
        first, _, identity = ask(server, settings)
    assert server.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert server.requests[0]["max_tokens"] == 50 + 1024
    assert first.text == "[answer: yes]" and first.completion_tokens > 5
    assert identity["generation"]["thinking_budget"] == 1024


def test_the_cache_key_holds_every_parameter_sent(tmp_path):
    from fixtures.engine.cache import ResponseCache

    async def run(settings):
        client = OpenAIChatModel("scripted", server.base_url, "x", generation=settings,
                                 cache=ResponseCache(tmp_path / "cache.sqlite"))
        try:
            return await client.complete(QUESTION, max_tokens=50)
        finally:
            await client.close()

    with ScriptedServer("yes") as server:
        assert not asyncio.run(run(GenerationSettings())).cached
        assert asyncio.run(run(GenerationSettings())).cached
        assert not asyncio.run(run(GenerationSettings(model_args=(("top_k", 4),)))).cached
        assert not asyncio.run(run(GenerationSettings(reasoning_effort="low"))).cached


# -- as a user meets them: pytest in a subprocess ----------------------------------------
@pytest.mark.parametrize("args, line", [
    (["--temperature", "3"], "ERROR: --temperature 3: give a value from 0 to 2"),
    (["-M", "top_k"], "ERROR: -M 'top_k': give KEY=JSON"),
    (["--thinking", "maybe"], "ERROR: --thinking 'maybe': give on or off"),
])
def test_a_bad_generation_option_stops_pytest_with_one_error_line(args, line):
    ran = run(pytest_command(*ONE, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                             *args))
    ran.assert_clean(4, re.escape(line))


def test_a_refused_value_the_user_set_stops_the_run_with_one_line_exit_2(tmp_path):
    with ScriptedServer("copy", behaviour="openai-reasoning") as server:
        ran = run(pytest_command(*ONE, "--model", "m", "--base-url", server.base_url,
                                 "--results-dir", str(tmp_path), "--temperature", "0.2",
                                 "--token-limit-param", "max_completion_tokens"))
    ran.assert_clean(2, re.escape("refuses --temperature 0.2 (Unsupported value: "
                                  "'temperature' does not support 0.2 with this model."))


def test_plan_prices_the_thinking_budget_as_output():
    def plan(*extra):
        ran = run(pytest_command(*ONE, "--plan", "--model", "m", "--base-url",
                                 "http://127.0.0.1:9/v1", "--price-in", "0",
                                 "--price-out", "1000000", *extra))
        assert ran.status == 0, ran.output[-3000:]
        return next(line.split() for line in ran.output.splitlines()
                    if line.startswith("repeated_words ")), ran.output

    plain, _ = plan()
    thinking, output = plan("--reasoning-tokens", "1000")
    assert "reasoning tokens" in output and "priced as output" in output
    samples, skipped, prompt, answer, reasoning, cacheable, cost = thinking[1:]
    assert (reasoning, answer) == ("1,000", plain[4])
    # a million dollars a million output tokens: the cost is the output and reasoning tokens
    assert float(cost.replace(",", "")) == float(plain[6].replace(",", "")) + 1000

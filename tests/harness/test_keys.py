"""API keys are held where no repr, str or log line can show them, and masked in whatever a
server says."""

import asyncio
import json
import logging
from urllib.parse import quote

import openai
import pytest

from fixtures.providers.keys import MASK, hold, key_from, masked, masked_body, revealed
from fixtures.engine.models import OpenAIChatModel
from fixtures.providers.base import error_message
from tests.doubles.scripted_server import Fault, ScriptedServer

KEY = "sk-keys-test-never-shown-1234"


def test_a_key_shows_as_asterisks_and_only_the_client_gets_its_value(monkeypatch, caplog):
    monkeypatch.setenv("SOME_KEY", KEY)
    key = key_from("SOME_KEY")
    logging.getLogger("test").warning("key %s %r %s", key, key, [key])
    assert KEY not in f"{key} {key!r} {[key]} {dict(k=key)}" and KEY not in caplog.text
    assert revealed(key) == KEY
    client = OpenAIChatModel("m", "http://127.0.0.1:9/v1", api_key=key)
    assert client._client.api_key == KEY and KEY not in repr(vars(client))


def test_no_key_is_none_and_the_client_sends_a_placeholder(monkeypatch):
    monkeypatch.setenv("EMPTY_KEY", "")
    monkeypatch.delenv("UNSET_KEY", raising=False)
    assert key_from("EMPTY_KEY") is None and key_from("UNSET_KEY") is None
    assert revealed(None) == "not-needed"


def test_a_held_secret_is_masked_in_each_form_a_server_could_quote_it():
    secret = 'pass/word"with+odd chars'
    hold(secret)
    text = f"a {secret} b {json.dumps(secret)} c {quote(secret, safe='')} d"
    assert secret not in masked(text) and quote(secret, safe="") not in masked(text)
    assert masked(text).count(MASK) == 3 and masked("nothing here") == "nothing here"
    hold("EMPTY")  # a placeholder is no secret: masking it would rewrite ordinary answers
    assert masked("EMPTY answers") == "EMPTY answers"


def test_whatever_a_server_says_reaches_the_harness_with_the_key_masked(monkeypatch):
    monkeypatch.setenv("ECHOED_KEY", KEY)
    key = key_from("ECHOED_KEY")
    with ScriptedServer("copy") as server:
        server.echo_key = True
        model = OpenAIChatModel("scripted", server.base_url, api_key=key, max_retries=0)
        messages = [{"role": "user", "content": "copy this"}]

        async def answer_then_refusal():
            answer = await model.complete(messages, max_tokens=20)
            server.chat_fault = Fault(400, body={"error": {"message": "bad request"}})
            with pytest.raises(openai.BadRequestError) as refused:
                await model.complete(messages, max_tokens=20)
            return answer, refused

        answer, refused = asyncio.run(answer_then_refusal())
    assert server.echoed == 2 and answer.text.startswith(f"from key {MASK}: ")
    assert KEY not in str(refused.value) and error_message(refused.value).startswith(
        f"from key {MASK}: bad request")


@pytest.mark.parametrize("encode", [
    lambda text: text.replace("/", "\\/").encode(),  # PHP's json_encode
    lambda text: text.replace("&", "\\u0026").encode(),  # Go's encoding/json
    lambda text: text.replace("-", "\\u002d").encode(),  # an encoder escaping punctuation
    lambda text: text.replace("-", "\\u002D").encode(),  # upper-case hex
    lambda text: text.encode("utf-16"),  # a whole body in UTF-16, as json.loads reads it
], ids=["php-slash", "go-ampersand", "u-escaped-dash", "u-escaped-upper", "utf-16"])
def test_a_secret_in_a_json_body_is_masked_however_the_encoder_escaped_it(encode):
    secret = "sk-escaped/key&never-shown-77"
    hold(secret)
    body = json.dumps({"error": {"message": f"from key {secret}"}, "n": 1,
                       f"key {secret}": [secret]})
    found = json.loads(masked_body(encode(body)))
    assert secret not in json.dumps(found, ensure_ascii=False)
    assert found == {"error": {"message": f"from key {MASK}"}, "n": 1,
                     f"key {MASK}": [MASK]}


def test_a_body_without_a_secret_goes_on_byte_for_byte():
    hold("sk-another-held-secret-88")
    for body in [b'{"a": "b\\/c \\u0026"}', b"<html>page</html>", b"\xff\xfe not text"]:
        assert masked_body(body) is body


def test_a_page_in_its_own_charset_is_masked_in_its_text():
    secret = "sk-latin-secret-99"
    hold(secret)
    page = f"<p>cl\u00e9 {secret}</p>".encode("utf-16-le")
    assert masked_body(page, "utf-16-le").decode("utf-16-le") == f"<p>cl\u00e9 {MASK}</p>"

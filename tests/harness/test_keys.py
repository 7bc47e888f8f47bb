"""API keys are held where no repr, str or log line can show them."""

import logging

from fixtures.keys import key_from, revealed
from fixtures.models import OpenAIChatModel

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

"""--provider's registry (fixtures/providers/registry.py): a provider is its adapter's module
and one entry, and the engine, the harness's options and the token units take it from there
with none of their files changed. The toy adapter below is such a module."""

from __future__ import annotations

import asyncio

import pytest

from fixtures.engine.models import EndpointModel
from fixtures.providers import registry
from fixtures.providers.base import Completion, Fault
from fixtures.pytest_face.harness import base_url, key_variable, sends_routing_keys
from fixtures.tokens.tokenizer import FileTokenizer, make_unit


class ToyAdapter:
    """An API that answers each request with its last message reversed (the Adapter
    protocol of fixtures/providers/base.py, nothing more)."""

    provider = "toy"
    default_root = "https://toy.invalid/api"
    route = "POST /reverse"
    root_hint = "the toy's root"
    routing_param = None
    cache_hint = None
    native_errors = False
    options: dict[str, str] = {}
    thinking = None

    def __init__(self, base_url, api_key, *, timeout_s=600.0, headers=None):
        self.base_url, self.api_key, self.client = base_url or self.default_root, api_key, None
        self.sent = []

    def shape(self, request, settings):
        return request, {}

    def adapt(self, request):
        return request

    def adapted(self):
        return {}

    def learn(self, request, fault):
        return False

    async def send(self, model, messages, request, routing_key):
        self.sent.append(request)
        if messages[-1]["content"] == "fail":
            raise ConnectionError("the toy is down")
        return Completion(text=messages[-1]["content"][::-1], finish_reason="stop",
                          prompt_tokens=3, completion_tokens=3)

    def fault(self, error):
        return Fault("connection", str(error)) if isinstance(error, ConnectionError) else None

    async def listing(self, model):
        return None

    async def close(self):
        pass


class Options:
    """A pytest.Config's getoption over a dict (what the harness's helpers read)."""

    def __init__(self, **options):
        self.options = options

    def getoption(self, name):
        return self.options.get(name)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(registry.PROVIDERS, "toy", registry.Provider(
        f"{__name__}:ToyAdapter", "a toy API", "Toy", ("TOY_KEY", "OTHER_TOY_KEY"),
        root_variable="TOY_BASE_URL"))


def test_a_registered_provider_is_asked_through_the_engine(toy):
    model = EndpointModel("toy-1", None, "key", provider="toy", max_retries=0)
    messages = [{"role": "user", "content": "abc"}]
    completion = asyncio.run(model.complete(messages, max_tokens=8))
    assert (completion.text, completion.ok) == ("cba", True)
    assert model.adapter.sent == [{"max_tokens": 8, "temperature": 0.0}]
    assert model.identity["provider"] == "toy"
    assert model.host == "https://toy.invalid/api"


def test_a_registered_providers_fault_is_the_engines_line(toy):
    model = EndpointModel("toy-1", "http://127.0.0.1:9/api", "key", provider="toy",
                          max_retries=0)
    with pytest.raises(Exception, match=r"cannot reach http://127\.0\.0\.1:9/api \(the toy is "
                                        r"down\): start the server, or fix --base-url"):
        asyncio.run(model.complete([{"role": "user", "content": "fail"}], max_tokens=8))


def test_a_registered_providers_options(toy, monkeypatch):
    monkeypatch.setenv("OTHER_TOY_KEY", "k")
    monkeypatch.setenv("TOY_BASE_URL", "http://127.0.0.1:1/toy")
    config = Options(provider="toy", prompt_cache_key="on")
    assert key_variable(config) == "OTHER_TOY_KEY"  # the first one set
    assert base_url(config) == "http://127.0.0.1:1/toy"
    assert not sends_routing_keys(config, "toy.invalid", "toy")  # its cache_hint is None


def test_a_provider_without_openai_compatibility_measures_no_chat_template(toy, tmp_path):
    path = tmp_path / "tokenizer.json"
    from tokenizers import Tokenizer, models

    Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]")).save(str(path))
    unit = make_unit(f"hf:{path}", base_url="http://127.0.0.1:9", model="toy-1",
                     provider="toy")  # nothing asked of the endpoint
    assert isinstance(unit, FileTokenizer) and unit.chat_overhead == 0


def test_an_unregistered_provider_is_one_line():
    with pytest.raises(ValueError, match="--provider 'nope': choose one of openai, "
                                         "openai-responses, anthropic, google"):
        registry.adapter_class("nope")


def test_a_missing_sdk_is_one_line(monkeypatch):
    monkeypatch.setitem(registry.PROVIDERS, "absent", registry.Provider(
        ".openai_chat:OpenAIChat", "an API", "Absent", ("K",), package="no_such_sdk_here"))
    assert registry.missing_package("absent") == (
        "--provider absent needs the no_such_sdk_here package: pip install "
        "'contextrot[providers]'")
    with pytest.raises(Exception, match="needs the no_such_sdk_here package"):
        registry.adapter_class("absent")

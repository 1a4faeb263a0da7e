import os
import subprocess
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.embed import Embedder, HashEmbedder
from memlane.errors import InvalidInput


def cosine(embedder: HashEmbedder, query: str, document: str) -> float:
    return float(embedder.embed_documents([document])[0] @ embedder.embed_query(query))


def test_is_an_embedder_with_shape_and_dtype() -> None:
    embedder: Embedder = HashEmbedder(dim=64)
    docs = embedder.embed_documents(["one text", "another text", "third"])
    assert docs.shape == (3, 64)
    assert docs.dtype == np.float32
    query = embedder.embed_query("one text")
    assert query.shape == (64,)
    assert query.dtype == np.float32
    assert embedder.dim == 64
    assert embedder.name == "hash-v1-64"
    assert HashEmbedder().dim == 256


def test_deterministic_across_instances() -> None:
    texts = ["Caroline went to the LGBTQ support group", "我下周一去北京出差"]
    first = HashEmbedder().embed_documents(texts)
    second = HashEmbedder().embed_documents(texts)
    np.testing.assert_array_equal(first, second)


def test_deterministic_across_processes_with_different_hash_seeds() -> None:
    # Python's hash() is salted per process; the embedder must not depend on it.
    code = (
        "from memlane.embed import HashEmbedder;"
        "print(HashEmbedder(dim=32).embed_query('salted hash check 上海').round(6).tolist())"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1
    here = HashEmbedder(dim=32).embed_query("salted hash check 上海").round(6).tolist()
    assert outputs == {f"{here}\n"}


def test_rows_are_unit_length() -> None:
    docs = HashEmbedder().embed_documents(["short", "a much longer sentence " * 20, "中文文本"])
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)


def test_text_without_letters_is_the_zero_vector() -> None:
    embedder = HashEmbedder()
    docs = embedder.embed_documents(["", "  ", "?!…", "words"])
    assert not docs[:3].any()
    assert np.linalg.norm(docs[3]) == pytest.approx(1.0, rel=1e-5)
    assert not embedder.embed_query("").any()


def test_query_and_document_use_the_same_recipe() -> None:
    embedder = HashEmbedder()
    text = "Melanie painted a sunrise in 2022"
    np.testing.assert_array_equal(embedder.embed_query(text), embedder.embed_documents([text])[0])


def test_similar_english_beats_dissimilar() -> None:
    embedder = HashEmbedder()
    query = "When did Melanie paint the sunrise?"
    similar = "Melanie: I painted that sunrise last year"
    unrelated = "Caroline: the support group meeting was great"
    assert cosine(embedder, query, similar) > cosine(embedder, query, unrelated) + 0.1


def test_word_forms_share_trigrams() -> None:
    embedder = HashEmbedder()
    assert cosine(embedder, "painting", "painted") > cosine(embedder, "painting", "swimming")


def test_similar_chinese_beats_dissimilar() -> None:
    embedder = HashEmbedder()
    query = "我住在上海"
    similar = "我现在住在上海浦东"
    unrelated = "明天北京会下大雨"
    assert cosine(embedder, query, similar) > cosine(embedder, query, unrelated) + 0.2


def test_japanese_and_korean_are_embedded() -> None:
    embedder = HashEmbedder()
    assert cosine(embedder, "東京に住んでいます", "私は東京に住んでいる") > 0.3
    assert cosine(embedder, "서울에 살아요", "저는 서울에 살아요") > 0.3


def test_mixed_script_text_splits_into_both_feature_kinds() -> None:
    embedder = HashEmbedder()
    mixed = "我在Shanghai工作"
    assert cosine(embedder, "Shanghai", mixed) > 0.1
    assert cosine(embedder, "工作", mixed) > 0.1


def test_case_and_width_are_folded() -> None:
    embedder = HashEmbedder()
    np.testing.assert_array_equal(
        embedder.embed_query("ＨＥＬＬＯ World"), embedder.embed_query("hello world")
    )


def test_empty_batch_has_zero_rows() -> None:
    assert HashEmbedder(dim=16).embed_documents([]).shape == (0, 16)


@pytest.mark.parametrize("dim", [0, 7, -1, True, 256.0, "256"])
def test_bad_dim_is_invalid_input(dim: object) -> None:
    with pytest.raises(InvalidInput) as info:
        HashEmbedder(dim=dim)  # type: ignore[arg-type]
    assert info.value.field == "dim"


def test_bare_string_and_non_strings_are_invalid_input() -> None:
    embedder = HashEmbedder()
    with pytest.raises(InvalidInput):
        embedder.embed_documents("not a list")
    with pytest.raises(InvalidInput):
        embedder.embed_documents(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInput):
        embedder.embed_query(None)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_a_finite_unit_or_zero_vector(text: str) -> None:
    vector = HashEmbedder(dim=32).embed_query(text)
    assert vector.shape == (32,)
    assert np.isfinite(vector).all()
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        # Only a text with no letters or digits has nothing to embed.
        assert not any(ch.isalnum() for ch in unicodedata.normalize("NFKC", text))
    else:
        assert norm == pytest.approx(1.0, rel=1e-5)

"""The numpy MPNet (``_mpnet``) against the HF ``MPNetModel`` it reimplements, and the ``mpnet``
embedder: chosen by ``auto`` where its package is installed, never a download where it is not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.mine.embed import create_embedder
from skillopt_sleep.mine.embed._bert import ModelFilesError
from skillopt_sleep.mine.embed._mpnet import MPNetEncoder, relative_buckets
from skillopt_sleep.mine.embed.mpnet import THRESHOLD, mpnet_available, packaged_dir

WORDS = ["fix", "the", "flaky", "login", "test", "write", "release", "notes", "for", "v2", "."]
TEXTS = ["fix the flaky login test .", "write the release notes for v2", "test", "the " * 40]


def _tiny_model(folder: Path) -> Path:
    """A random 2-layer MPNet saved as HF writes one, with a vocabulary of ``WORDS``."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    vocab = ["<s>", "<pad>", "</s>", "<unk>", "[UNK]", "[CLS]", "[SEP]", *WORDS]
    config = transformers.MPNetConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=130,
        layer_norm_eps=1e-5,
        pad_token_id=1,
    )
    torch.manual_seed(0)
    model = transformers.MPNetModel(config, add_pooling_layer=False).eval()
    with torch.no_grad():  # a visible position bias: the initial one is near zero
        model.encoder.relative_attention_bias.weight.normal_(0.0, 1.0)
    model.save_pretrained(folder, safe_serialization=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return folder


def test_buckets_are_mpnets() -> None:
    torch = pytest.importorskip("torch")
    modeling = pytest.importorskip("transformers.models.mpnet.modeling_mpnet")
    for t in (1, 2, 9, 17, 130, 300):
        offsets = torch.arange(t)[None, :] - torch.arange(t)[:, None]
        expected = modeling.MPNetEncoder.relative_position_bucket(offsets).numpy()
        assert (relative_buckets(t) == expected).all(), t


def test_numpy_mpnet_gives_the_torch_models_hidden_states(tmp_path: Path) -> None:
    import torch

    folder = _tiny_model(tmp_path / "tiny")
    model = __import__("transformers").MPNetModel.from_pretrained(folder).eval()
    encoder = MPNetEncoder(folder)
    assert json.loads((folder / "config.json").read_text())["model_type"] == "mpnet"
    for ids, hidden in encoder.batch_token_vectors(TEXTS):  # batched with padding
        assert ids[0] == 0 and ids[-1] == 2  # <s> ... </s>
        with torch.no_grad():
            expected = model(torch.from_numpy(ids[None, :])).last_hidden_state[0].numpy()
        assert hidden.shape == expected.shape
        assert np.abs(hidden - expected).max() < 1e-4


def test_a_configured_mpnet_directory_mines(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny")
    embedder = create_embedder("mpnet", model=str(folder))
    assert embedder.name == "mpnet" and create_embedder("auto", model=str(folder)).name == "mpnet"
    bags = embedder.embed(TEXTS[:3])
    sims = embedder.similarity(bags, bags)
    assert np.allclose(np.diag(sims), 1.0, atol=1e-2)


def test_a_missing_model_is_an_error_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is no MPNet model directory"):
        create_embedder("mpnet", model=str(tmp_path / "absent"))
    embedder = create_embedder("mpnet", model=str(_tiny_model(tmp_path / "tiny")))
    (tmp_path / "tiny" / "model.safetensors").unlink()  # gone after the check: still no download
    with pytest.raises(ModelFilesError, match="embeddings extra"):
        embedder.embed(["hello"])


@pytest.mark.skipif(not mpnet_available(), reason="skillopt-sleep-mpnet is not installed")
def test_the_packaged_mpnet_runs_by_name_and_auto_stays_precision_first() -> None:
    found = packaged_dir()
    assert found is not None
    manifest = json.loads((found / "manifest.json").read_text())
    assert set(manifest["sha256"]) >= {"model.safetensors", "embeddings.safetensors"}
    embedder = create_embedder("mpnet")
    assert embedder.cache_key.startswith("mpnet-tokens-v1:int8-")
    assert embedder.default_threshold == THRESHOLD
    assert create_embedder("auto").name == "minilm-numpy"

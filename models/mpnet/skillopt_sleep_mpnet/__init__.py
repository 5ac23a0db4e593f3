"""The model files of skillopt-sleep's ``mpnet`` embedder (``model/``); no code."""

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent / "model"

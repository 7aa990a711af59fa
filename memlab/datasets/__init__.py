"""Datasets: the native scripted format, validation, and public-benchmark loaders."""

from memlab.datasets.io import DatasetError, Problem, dataset_hash, load_dataset, validate_file, write_dataset
from memlab.datasets.models import Category, Conversation, Dataset, GoldAnswer, Probe, Session, Turn

__all__ = [
    "Category", "Conversation", "Dataset", "DatasetError", "GoldAnswer", "Probe", "Problem", "Session", "Turn",
    "dataset_hash", "load_dataset", "validate_file", "write_dataset",
]

"""Datasets: the native scripted format, validation, and public-benchmark loaders."""

from memlab.datasets.io import (DatasetError, FormatNotRecognised, Problem, check_file, dataset_hash, load_dataset,
                                validate_file, write_dataset)
from memlab.datasets.models import Category, Conversation, Dataset, GoldAnswer, Probe, Session, Turn

__all__ = [
    "Category", "Conversation", "Dataset", "DatasetError", "FormatNotRecognised", "GoldAnswer", "Probe", "Problem",
    "Session", "Turn", "check_file", "dataset_hash", "load_dataset", "validate_file", "write_dataset",
]

"""Model-free scoring primitives: normalisation, matching, abstention detection, gold attestation.

This package is the yardstick, so it depends on nothing it measures: it never imports the
models, the roles, the offline stand-in or the strategies (a test checks it). Tuning the system
under test can therefore never move the metrics.

Besides the primitives: :mod:`memlab.scoring.metric_registry` (what a metric is — name, direction,
aggregation, ceiling — imported by the harness to check a config's ``metrics:`` and by the analysis
side to score) and :mod:`memlab.scoring.offline_judge` (the offline judge, containment under each
judge prompt: built from these primitives alone, so it never grades the offline model by the
model's own rules).
"""

from memlab.scoring.abstention import is_abstention
from memlab.scoring.answers import normalize_answer, token_f1
from memlab.scoring.attestation import gold_attested, gold_written
from memlab.scoring.matching import any_gold_form, contains, gold_present, part_present
from memlab.scoring.values import canonical, canonical_tokens

__all__ = ["any_gold_form", "canonical", "canonical_tokens", "contains", "gold_attested", "gold_present", "gold_written",
           "is_abstention", "normalize_answer", "part_present", "token_f1"]

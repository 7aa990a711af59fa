"""Issue 29, items 1 and 2: one redaction rule, whatever a password holds; no key through the judge path.

Passwords are drawn at random over the whole printable ASCII set (``@ # / ? : & %``, quotes and
spaces included). Every piece of a password that follows a special character carries a canary
(``Cn<i>x<j>``), so a leaked fragment — the ``word#Tail/…`` of ``Pass@word#Tail/…`` — shows as a
canary in the output, not only a leaked whole password."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from memlab.cli import main as cli_main
from memlab.memory.stores.base import StoreError
from memlab.memory.stores.base import make_store
from memlab.memory.stores.postgres import describe_dsn, normalize_dsn
from memlab.redact import redact, redact_text, redact_url, register_secrets_in
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_reliability import _dataset

PRINTABLE = [chr(c) for c in range(0x20, 0x7F)]
SEED = 29


def _password(rng: random.Random, i: int, alphabet: list[str] = PRINTABLE) -> tuple[str, list[str]]:
    """A password of random characters from ``alphabet``, each run of them followed by a canary."""
    parts, canaries = [], []
    for j in range(rng.randint(2, 4)):
        parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))))
        canaries.append(f"Cn{i}x{j}")
        parts.append(canaries[-1])
    return "".join(parts), canaries


def _leaks(text: str, password: str, canaries: list[str]) -> list[str]:
    return [c for c in [password, unquote(password), *canaries] if c in text]


def _outputs_for(dsn: str, password: str) -> dict[str, str]:
    """Everything memlab makes from a DSN: structured and free-text masking, the description
    errors name, and the error a store connecting with it raises."""
    register_secrets_in({"dsn": dsn})  # as a run does with its config before anything parses it
    out = {"redact": json.dumps(redact({"dsn": dsn, "options": {"dsn": f" {dsn} "}})),
           "redact_url": redact_url(dsn) or "",
           "describe_dsn": json.dumps(describe_dsn(dsn)),
           "redact_text": redact_text(f"FATAL: password authentication failed; password {password!r} "
                                      f"given in {dsn} was rejected")}
    try:
        make_store("postgres", dsn=dsn, connect_timeout=1)  # port 1: refused at once
    except StoreError as exc:
        out["StoreError"] = str(exc)
    else:  # pragma: no cover - nothing listens on port 1
        raise AssertionError("connected to port 1")
    return out


def test_random_printable_passwords_never_appear_in_any_output():
    rng = random.Random(SEED)
    for i in range(150):
        password, canaries = _password(rng, i)
        dsn = f"postgresql://tester:{password}@127.0.0.1:1/db"
        for name, text in _outputs_for(dsn, password).items():
            assert not _leaks(text, password, canaries), f"{name} leaks a piece of {password!r}: {text}"
        # libpq reads the whole password once memlab has encoded the userinfo by the same rule
        from psycopg.conninfo import conninfo_to_dict

        read = conninfo_to_dict(normalize_dsn(dsn))
        assert (read["password"], read["host"], read["port"], read["dbname"]) == (unquote(password), "127.0.0.1", "1", "db")
        assert describe_dsn(dsn) == {"host": "127.0.0.1", "port": "1", "dbname": "db", "user": "tester"}


def test_random_query_passwords_are_masked_to_the_next_ampersand():
    rng = random.Random(SEED + 1)
    no_amp_no_at = [c for c in PRINTABLE if c not in "&@"]  # '&' ends a query value; '@' there is refused (below)
    for i in range(150):
        password, canaries = _password(rng, i, no_amp_no_at)
        dsn = f"postgresql://tester@127.0.0.1:1/db?sslmode=disable&password={password}"
        for name, text in _outputs_for(dsn, password).items():
            assert not _leaks(text, password, canaries), f"{name} leaks a piece of {password!r}: {text}"
        assert redact_url(f"{dsn}&application_name=x").endswith("&password=***&application_name=x")


def test_the_issue_examples_and_an_ambiguous_at_in_a_query_password():
    dsn = "postgresql://tester:Pass@word#Tail/x@127.0.0.1:5/db"
    assert redact({"dsn": dsn}) == {"dsn": "postgresql://tester:***@127.0.0.1:5/db"}
    assert describe_dsn(dsn) == {"host": "127.0.0.1", "port": "5", "dbname": "db", "user": "tester"}
    assert redact_text(f"could not use {dsn}") == "could not use postgresql://tester:***@127.0.0.1:5/db"
    # a query password runs to the next '&' or the end: '#' and spaces included
    assert redact({"d": "postgresql://u@h/db?password=ab#cd ef&x=1"}) == {"d": "postgresql://u@h/db?password=***&x=1"}
    # an '@' inside a query password: both readings are masked, and connecting is refused without quoting it
    ambiguous = "postgresql://memlab@127.0.0.1:1/db?password=Cut@Cn9x9tail"
    assert "Cn9x9" not in json.dumps(redact({"dsn": ambiguous})) and "Cut" not in redact_url(ambiguous)
    assert "Cn9x9" not in json.dumps(describe_dsn(ambiguous))
    with pytest.raises(StoreError, match="%40") as err:
        make_store("postgres", dsn=ambiguous)
    assert "Cn9x9" not in str(err.value) and "Cut" not in str(err.value)


def test_bearer_tokens_and_sk_keys_are_masked_whatever_was_registered():
    text = ('HTTP 401: {"error": {"message": "Incorrect API key provided. Authorization: Bearer sk-unreg1stered0000aaaa1111", '
            '"header": "authorization: Basic dXNlcjpwYXNz"}} and a bare sk-proj-ZZZZ0000ZZZZ0000ZZZZ')
    masked = redact_text(text)
    assert "unreg1stered" not in masked and "dXNlcjpwYXNz" not in masked and "ZZZZ0000" not in masked
    assert "Bearer ***" in masked and "HTTP 401" in masked
    assert redact_text("the basic strategy uses sk-learn") == "the basic strategy uses sk-learn"  # ordinary words stay


def _cli_outputs(run: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    captured = capsys.readouterr()
    out = {"stdout": captured.out, "stderr": captured.err}
    for f in run.rglob("*"):
        if f.is_file() and f.suffix in {".json", ".jsonl", ".csv", ".md", ".html", ".txt", ".yaml"}:
            out[str(f.relative_to(run))] = f.read_text(encoding="utf-8", errors="replace")
    return out


@pytest.mark.slow
def test_a_run_writes_no_key_and_no_piece_of_a_password_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   caplog: pytest.LogCaptureFixture):
    """The canary greps of issue 29: a judge whose endpoint answers the ragas metrics' calls with a
    401 quoting ``Authorization: Bearer <key>`` (a key that does not look like ``sk-``, so only the
    registration at run start can mask it), and Postgres stores whose DSN passwords hold ``@ # / ?``
    and spaces, on a dead port: every file of the run folder and the console are searched."""
    caplog.set_level(logging.DEBUG)
    key = "CANARYKEY-judge-7f3e9a1c"
    monkeypatch.setenv("MEMLAB_CANARY_JUDGE_KEY", key)
    rng = random.Random(SEED + 2)
    passwords = [_password(rng, i) for i in range(3)] + [("Pass@word#Tail/Cn7x1?q Cn7x2", ["Cn7x1", "Cn7x2"])]
    ds = _dataset(tmp_path)
    with FakeOpenAIServer() as server:
        server.responder = lambda body: ({"status": 401, "message": f"Incorrect API key. Authorization: Bearer {key}"}
                                         if "ContextRecallOutput" in json.dumps(body.get("messages", [])) else None)
        server.default_fields = {"correct": "True", "abstained": "False"}
        judge = {"provider": "openai", "model": "judge", "base_url": server.base_url, "api_key_env": "MEMLAB_CANARY_JUDGE_KEY",
                 "max_attempts": 1}
        cfg = {"name": "canary", "datasets": [str(ds)], "output_dir": str(tmp_path / "results"),
               "embedding_cache": None, "judge": judge,
               "metrics": ["evidence_recall", "ragas_llm_context_recall"],
               "store_options": {"postgres": {"dsn": f"postgresql://memlab:{passwords[0][0]}@127.0.0.1:1/db"}},
               "strategies": [{"name": "full_context"}] + [
                   {"name": f"pg{i}", "preset": "fact_rag",
                    "store": {"type": "postgres", "dsn": f"postgresql://memlab:{pw}@127.0.0.1:1/db"}}
                   for i, (pw, _) in enumerate(passwords)]}
        path = tmp_path / "canary.yaml"
        path.write_text(yaml.safe_dump(cfg, allow_unicode=True), encoding="utf-8")
        code = cli_main(["run", str(path), "--no-progress"])
        assert any(r["auth"] and key in r["auth"] for r in server.requests), "the judge was called with the key"
        assert any(r["status"] == 401 for r in server.requests), "some judge call got the 401 that quotes the key"
    assert code == 3  # the postgres units failed
    run = next((tmp_path / "results").iterdir())
    outputs = _cli_outputs(run, capsys)
    outputs["log records"] = "\n".join(caplog.messages + [r.exc_text or "" for r in caplog.records])  # a library's own logging
    probes = outputs["probes.jsonl"]
    assert "Bearer ***" in probes or "401" in probes, "the ragas error was recorded (masked)"
    for name, text in outputs.items():
        assert key not in text, f"the judge key leaked into {name}"
        for pw, canaries in passwords:
            assert not _leaks(text, pw, canaries), f"a piece of {pw!r} leaked into {name}"

"""URL credentials stay hidden: a user name that is itself a secret, a Dask scheduler address."""

from __future__ import annotations

import uuid
from pathlib import Path

import pandas as pd
import pytest
from perfstats.adapters.cli import main
from perfstats.adapters.records.redaction import redact, redact_text, remember


def _secret(kind: str) -> str:
    return f"S3cr3t{kind}{uuid.uuid4().hex[:10]}"


def test_password_hidden_when_the_user_name_is_a_remembered_secret() -> None:
    user, password = _secret("User"), _secret("Password")
    remember(user)
    for text in (
        f"GET https://{user}:{password}@example.org/x failed",
        f"tcp://{user}:{password}@10.0.0.1:8786",
    ):
        shown = redact_text(text)
        assert user not in shown and password not in shown, shown
    shown = redact({"url": f"postgres://{user}:{password}@db/x", "n": 1})
    assert password not in str(shown) and user not in str(shown)


def test_url_redacted_twice_stays_redacted() -> None:
    password = _secret("Twice")
    once = redact_text(f"see https://bob:{password}@h/x")
    assert redact_text(once) == once == "see https://bob:<redacted>@h/x"
    # A URL whose user name an earlier pass already hid still loses its password.
    assert password not in redact_text(f"https://<redacted>:{password}@h/x")


@pytest.mark.parametrize("password", ["pw1", "S3cr3tSchedulerPassword"])
def test_scheduler_address_credentials_never_printed(capsys, tmp_path: Path,
                                                     password: str) -> None:  # fmt: skip
    path = tmp_path / "traces.csv"
    pd.DataFrame({"a": [1.0, 1.1, 1.2, 1.0], "b": [2.0, 2.1, 2.2, 2.0]}).to_csv(path, index=False)
    code = main(["replay", str(path), "--rule", "superflow", "--no-progress",
                 "--scheduler", f"tcp://alice:{password}@127.0.0.1:1"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2
    assert password not in out + err, err
    assert "alice:<redacted>@127.0.0.1:1" in err
    assert "Traceback" not in err

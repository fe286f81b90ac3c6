"""``perfstats gate`` and ``history``: every output redacted the same way, and still well-formed.

The benchmark names carry secrets of each kind (an AWS secret key from the
environment, a Bearer token, URL credentials, ``API_TOKEN=...``); the JUnit
file, the JSON, the Markdown and the table must all hide them, the JSON must
still parse, and a benchmark merely *named* like a secret (``session``,
``password_hash``) keeps its values.
"""

from __future__ import annotations

import json
import os
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.cli import main


def _secret(kind: str) -> str:
    return f"S3cr3t{kind}{uuid.uuid4().hex[:10]}"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _tidy(path: Path, names: list[str], factor: float, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    rows = [
        (name, float(v) * factor, "ms")
        for name in names
        for v in rng.lognormal(1.0, 0.01, 12)
    ]
    pd.DataFrame(rows, columns=["benchmark", "value", "unit"]).to_csv(path, index=False)
    return path


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    found = {
        "aws": _secret("Aws"),
        "bearer": _secret("Bearer"),
        "url": _secret("Url"),
        "assign": _secret("Assign"),
    }
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", found["aws"])
    return found


def _names(s: dict[str, str]) -> list[str]:
    return [
        f"upload with key {s['aws']}",
        f"auth Bearer {s['bearer']}",
        f"fetch https://bob:{s['url']}@example.org/x",
        f"env API_TOKEN={s['assign']}",
    ]


def _leaks(text: str, s: dict[str, str]) -> list[str]:
    return [kind for kind, value in s.items() if value in text]


def test_junit_json_markdown_and_table_hide_every_secret(capsys, secrets, tmp_path) -> None:
    names = _names(secrets)
    base = _tidy(tmp_path / "base.csv", [*names, "only here"], 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", names, 1.2, 1)
    junit = tmp_path / "gate.xml"
    for fmt in ("json", "markdown", "table"):
        argv = ["--format", fmt, "--junit", str(junit), "--seed", "1", "--resamples", "500"]
        code, out, err = _run(capsys, "gate", str(base), str(cont), *argv)
        assert code == 1, err
        assert _leaks(out + err, secrets) == [], fmt
        xml = junit.read_text(encoding="utf-8")
        assert _leaks(xml, secrets) == []
        assert "<redacted>" not in xml  # escaped, so the XML stays well-formed
        root = ET.fromstring(xml)
        assert root.attrib["tests"] == "4" and root.attrib["failures"] == "4"
        shown = [case.attrib["name"] for case in root.iter("testcase")]
        assert any("Bearer <redacted>" in n for n in shown), shown
        if fmt == "json":
            data = json.loads(out)
            assert all("<redacted>" in b["name"] for b in data["benchmarks"])


def test_a_secret_on_one_side_only_is_hidden_in_the_unmatched_list(
    capsys, secrets, tmp_path
) -> None:
    names = _names(secrets)
    base = _tidy(tmp_path / "base.csv", ["common", *names], 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", ["common"], 1.0, 1)
    junit = tmp_path / "gate.xml"
    for fmt in ("json", "markdown", "table"):
        argv = ["--format", fmt, "--junit", str(junit), "--seed", "1", "--resamples", "500"]
        code, out, err = _run(capsys, "gate", str(base), str(cont), *argv)
        assert code == 0, err
        assert _leaks(out + err + junit.read_text(encoding="utf-8"), secrets) == [], fmt
        if fmt == "json":
            assert len(json.loads(out)["unmatched"]["baseline"]) == 4


def test_benchmarks_named_like_secrets_keep_their_values(capsys, tmp_path) -> None:
    names = ["session", "password_hash", "auth_token_refresh"]
    base = _tidy(tmp_path / "base.csv", names, 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", names, 1.0, 1)
    code, out, err = _run(capsys, "gate", str(base), str(cont), "--format", "json",
                          "--seed", "1", "--resamples", "500")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert set(by_name) == set(names)
    for b in by_name.values():
        assert isinstance(b["ratio"], float) and b["n_baseline"] == 12
        assert b["unit"] == "ms"


def test_gate_json_parses_when_a_name_quotes_its_secret(capsys, tmp_path) -> None:
    secret = _secret("Quoted")
    names = [f'token="{secret}"', f"password='{secret}' \\", "plain"]
    base = _tidy(tmp_path / "base.csv", names, 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", names, 1.0, 1)
    code, out, err = _run(capsys, "gate", str(base), str(cont), "--format", "json",
                          "--seed", "1", "--resamples", "500")  # fmt: skip
    assert code == 0, err
    assert secret not in out
    data = json.loads(out)
    assert sorted(b["name"] for b in data["benchmarks"]) == sorted(
        ['token="<redacted>"', "password='<redacted>' \\", "plain"]
    )


def test_history_json_of_benchmarks_named_like_secrets_parses(capsys, tmp_path) -> None:
    rng = np.random.default_rng(0)
    rows = [
        (f"c{i:02d}", name, 10.0 * rng.lognormal(0, 0.01), "ms")
        for i in range(8)
        for name in ("session", "password_hash")
        for _ in range(2)
    ]
    path = tmp_path / "history.csv"
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    code, out, err = _run(capsys, "history", str(path), "--format", "json", "--seed", "1",
                          "--permutations", "20")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert set(data["benchmarks"]) == {"session", "password_hash"}
    for bench in data["benchmarks"].values():
        assert len(bench["values"]) == 8 and bench["unit"] == "ms"


def test_history_json_hides_secrets_in_names(capsys, secrets, tmp_path) -> None:
    rng = np.random.default_rng(0)
    names = _names(secrets)
    rows = [
        (f"c{i:02d}", name, 10.0 * rng.lognormal(0, 0.01), "ms")
        for i in range(6)
        for name in names
    ]
    path = tmp_path / "history.csv"
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    for fmt in ("json", "table"):
        code, out, err = _run(capsys, "history", str(path), "--format", fmt, "--seed", "1",
                              "--permutations", "20")  # fmt: skip
        assert code == 0, err
        assert _leaks(out + err, secrets) == [], fmt
        if fmt == "json":
            assert len(json.loads(out)["benchmarks"]) == 4


def test_junit_refuses_to_overwrite_an_input(capsys, tmp_path) -> None:
    base = _tidy(tmp_path / "base.csv", ["a"], 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", ["a"], 1.0, 1)
    config = tmp_path / "gate.toml"
    config.write_text('[thresholds]\na = "5%"\n')
    link = tmp_path / "link.csv"
    os.symlink(base, link)
    folder = tmp_path / "dir"
    folder.mkdir()
    inside = _tidy(folder / "b.csv", ["a"], 1.0, 0)
    before = {p: p.read_bytes() for p in (base, cont, config, inside)}
    for target, sides in (
        (base, (base, cont)),
        (cont, (base, cont)),
        (config, (base, cont)),
        (link, (base, cont)),
        (inside, (folder, cont)),
        (folder / "new.xml", (folder, cont)),
    ):
        argv = ["--config", str(config), "--junit", str(target), "--resamples", "200"]
        code, out, err = _run(capsys, "gate", str(sides[0]), str(sides[1]), *argv)
        assert code == 2, (target, out)
        assert "--junit" in err and "choose another path" in err, err
        assert out == ""
    assert {p: p.read_bytes() for p in before} == before
    assert link.is_symlink()
    assert not (folder / "new.xml").exists()


def test_junit_is_written_atomically_over_a_symlink(capsys, tmp_path) -> None:
    base = _tidy(tmp_path / "base.csv", ["a"], 1.0, 0)
    cont = _tidy(tmp_path / "cont.csv", ["a"], 1.0, 1)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep me")
    junit = tmp_path / "gate.xml"
    os.symlink(elsewhere, junit)
    code, _, err = _run(capsys, "gate", str(base), str(cont), "--junit", str(junit),
                        "--resamples", "200")  # fmt: skip
    assert code == 0, err
    assert elsewhere.read_text() == "keep me"
    assert not junit.is_symlink()
    ET.fromstring(junit.read_text(encoding="utf-8"))
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []

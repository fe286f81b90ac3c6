"""Run an experiment again from the metadata of its record (``perfstats run --from-metadata``).

A record's metadata holds everything a run was made with: the target's
kind and options, the rule's name and options, the seed, the warm-up and
the limits of its first session. :func:`experiment_from_metadata` turns it
back into the arguments of :func:`perfstats.adapters.run`, refusing with a
message that says what is missing when it cannot:

* a target kind not in :data:`perfstats.adapters.targets.registry.TARGETS`
  (a target class of your own), or options the metadata could not hold
  (a Python callable as an HTTP cold-start hook, a bytes payload);
* a rule not in :data:`perfstats.rules.RULES`;
* **redacted secrets**. Records never hold secrets
  (:func:`perfstats.adapters.records.redaction.redact`), so a secret must be
  supplied again by the user: a redacted entry ``NAME`` of the target's
  ``env`` is read from the environment variable ``NAME`` of the caller
  (``export NAME=...`` before re-running); any other redacted option (an
  HTTP header, a password in a URL, ...) is given again in full as a target
  option (``-t headers='{"Authorization": "Bearer ..."}'``, the keyword
  ``target_options`` in Python), which replaces the recorded one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfstats.rules import RULES, by_name

from ..records.plain import plain
from ..records.record import RUN, check_format, metadata_path
from ..records.redaction import REDACTED
from ..targets.base import Target
from ..targets.registry import TARGETS, options_of, target_by_name
from .result import RunResult
from .stop_loop import run

#: Keys of a target's config that are derived, not options.
_DERIVED = ("kind", "name", "executable", "value")
#: Config keys recorded under another name than the constructor's.
_RENAMED = {"lambda": {"function": "name"}}
#: The kinds whose first positional option is given as ``argv`` on the command line.
_POSITIONAL = {"http": "url", "lambda": "name"}
#: The settings of a session that are arguments of ``run``.
_LIMITS = ("max_n", "max_seconds", "concurrency", "spacing", "warmup", "max_failures", "max_warmup")


@dataclass(frozen=True)
class Experiment:
    """The arguments of :func:`perfstats.adapters.run` that a record was made with.

    Attributes
    ----------
    kind : str
        The target kind (a key of the target registry).
    argv : list of str
        The target's command (empty for http and lambda targets).
    target_options : dict
        The target's options (constructor keywords), secrets re-supplied.
    rule : str
        The rule's name in :data:`perfstats.rules.RULES`.
    rule_options : dict
        The rule's options as recorded (its seed included).
    seed : int
        The run's seed.
    limits : dict
        ``max_n``, ``max_seconds``, ``concurrency``, ``spacing``,
        ``warmup``, ``max_warmup`` and ``max_failures`` of the first session.
    """

    kind: str
    argv: list[str]
    target_options: dict[str, Any]
    rule: str
    rule_options: dict[str, Any]
    seed: int
    limits: dict[str, Any] = field(default_factory=dict)

    def target(self) -> Target:
        """A new target built from the recorded kind and options."""
        return target_by_name(self.kind, self.argv, self.target_options)

    def run_arguments(self) -> dict[str, Any]:
        """Keyword arguments of :func:`perfstats.adapters.run` (all but the target)."""
        return {
            "rule": self.rule,
            "rule_options": dict(self.rule_options),
            "rng": self.seed,
            **self.limits,
        }


def read_experiment_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata JSON at ``path``, or the metadata of the record CSV at ``path``.

    Raises
    ------
    ValueError
        When the file is missing, not JSON, or the metadata of another kind
        of record.
    """
    p = Path(path)
    if p.suffix == ".csv":
        p = metadata_path(p)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"metadata {os.fspath(p)} does not exist") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(p)}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{os.fspath(p)} is not the metadata of a perfstats record")
    check_format(data.get("format"), RUN, p)
    return data


def experiment_from_metadata(
    metadata: Mapping[str, Any],
    *,
    target_options: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Experiment:
    """The experiment a record's metadata describes, ready to run again.

    Parameters
    ----------
    metadata : mapping
        A record's metadata (:func:`read_experiment_metadata`).
    target_options : mapping, optional
        Target options that replace the recorded ones (to re-supply a
        redacted secret).
    environ : mapping, optional
        Where redacted ``env`` entries of the target are read from
        (default: ``os.environ``).

    Raises
    ------
    ValueError
        When the metadata lacks what a run needs, or holds a redacted value
        not supplied again; the message says which and how.

    Examples
    --------
    >>> from perfstats.adapters.driver.rerun import experiment_from_metadata
    >>> meta = {
    ...     "target": {"kind": "command", "name": "true", "argv": ["true"],
    ...                "executable": "/usr/bin/true", "timeout": None, "env": None,
    ...                "cwd": None, "cpus": None, "inherit_env": True,
    ...                "value": "wall time", "unit": "ns"},
    ...     "rule": {"name": "Fixed", "config": {"n": 5}},
    ...     "seed": 3,
    ...     "sessions": [{"settings": {"max_n": None, "warmup": 0, "concurrency": 1}}],
    ... }
    >>> e = experiment_from_metadata(meta)
    >>> e.kind, e.argv, e.rule, e.rule_options, e.seed, e.limits["warmup"]
    ('command', ['true'], 'fixed', {'n': 5}, 3, 0)
    """
    for key in ("target", "rule", "seed", "sessions"):
        if not metadata.get(key) and metadata.get(key) != 0:
            raise ValueError(f"the metadata lacks '{key}': it cannot be run again")
    seed = metadata["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the metadata's seed must be an int; got {seed!r}")
    kind, argv, options = _target(metadata["target"], target_options or {}, environ)
    rule, rule_options = _rule(metadata["rule"])
    sessions = metadata["sessions"]
    settings = sessions[0].get("settings") if isinstance(sessions[0], Mapping) else None
    if not isinstance(settings, Mapping):
        raise ValueError("the metadata lacks the settings of its first session")
    limits = {k: settings[k] for k in _LIMITS if k in settings}
    if settings.get("stop_when", "all") != "all":
        limits["stop_when"] = settings["stop_when"]
    if limits.get("spacing") == 0:
        limits["spacing"] = None
    return Experiment(kind, argv, options, rule, rule_options, seed, limits)


def run_from_metadata(
    metadata: str | os.PathLike[str],
    *,
    record: str | os.PathLike[str] | None = None,
    target_options: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    progress: bool = True,
) -> RunResult:
    """Run the experiment of a record's metadata file again, into a new ``record``.

    The target, rule (with its options and seed), warm-up and limits are
    the recorded ones (see :func:`experiment_from_metadata` for what is
    refused and how to re-supply a redacted secret).

    Examples
    --------
    >>> from perfstats.adapters.driver.rerun import run_from_metadata
    >>> again = run_from_metadata("run.meta.json", record="again.csv")  # doctest: +SKIP
    """
    experiment = experiment_from_metadata(
        read_experiment_metadata(metadata), target_options=target_options, environ=environ
    )
    return run(experiment.target(), record=record, progress=progress, **experiment.run_arguments())


def _target(
    config: Any, overrides: Mapping[str, Any], environ: Mapping[str, str] | None
) -> tuple[str, list[str], dict[str, Any]]:
    if not isinstance(config, Mapping) or "kind" not in config:
        raise ValueError("the metadata's target has no kind: it cannot be run again")
    kind = str(config["kind"])
    if kind not in TARGETS:
        raise ValueError(
            f"the recorded target kind {kind!r} is not one of {', '.join(sorted(TARGETS))}: "
            "a target class of your own cannot be rebuilt from metadata; run it in Python"
        )
    renamed = _RENAMED.get(kind, {})
    options: dict[str, Any] = {
        str(renamed.get(k, k)): v for k, v in config.items() if k not in _DERIVED
    }
    if config.get("name") is not None and "label" in options_of(TARGETS[kind]):
        options["label"] = config["name"]
    for bad, why in (("payload", "<bytes>"),):
        if options.get(bad) == why and bad not in overrides:
            raise ValueError(f"the recorded {bad} was bytes, not recorded; give -t {bad}=...")
    if isinstance(options.get("cold_start"), str) and "cold_start" not in overrides:
        raise ValueError(
            "the recorded cold_start hook was a Python callable, not recorded; "
            "give -t cold_start=[...] (a command) or run it in Python"
        )
    unknown = sorted(set(options) - set(options_of(TARGETS[kind])))
    if unknown:
        raise ValueError(
            f"the recorded target has option(s) {', '.join(unknown)} that a {kind} target does "
            "not take: the metadata was written by another version of perfstats"
        )
    options.update(overrides)
    env = options.get("env")
    if isinstance(env, Mapping):
        source = os.environ if environ is None else environ
        options["env"] = {k: (source.get(k, v) if v == REDACTED else v) for k, v in env.items()}
    hidden = _redacted(options)
    if hidden:
        env_names = [p.split(".", 1)[1] for p in hidden if p.startswith("env.")]
        others = [p for p in hidden if not p.startswith("env.")]
        how = []
        if env_names:
            # Named, not spelled NAME=...: that shape is what redaction hides.
            how.append(
                "set the environment variable(s) "
                + ", ".join(env_names)
                + " to the secret value(s) before re-running"
            )
        if others:
            roots = sorted({p.split(".", 1)[0] for p in others})
            how.append("give " + " ".join(f"-t {r}=..." for r in roots) + " in full")
        raise ValueError(
            f"the metadata holds redacted value(s) ({', '.join(hidden)}): records never keep "
            f"secrets; {' and '.join(how)}"
        )
    argv = list(options.pop("argv", None) or [])
    if kind in _POSITIONAL:
        argv = []
    return kind, [str(a) for a in argv], options


def _redacted(value: Any, path: str = "") -> list[str]:
    """Paths (``env.TOKEN``, ``headers.Authorization``, ``url``) of redacted values."""
    if isinstance(value, Mapping):
        found: list[str] = []
        for k, v in value.items():
            found += _redacted(v, f"{path}.{k}" if path else str(k))
        return found
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _redacted(v, f"{path}[{i}]")]
    if isinstance(value, str) and REDACTED in value:
        return [path]
    return []


def _rule(recorded: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(recorded, Mapping) or "name" not in recorded:
        raise ValueError("the metadata's rule has no name: it cannot be run again")
    name = recorded["name"]
    config = dict(recorded.get("config") or {})
    wanted = _normal(config)
    for key in RULES:
        try:
            rule = by_name(key, **config)
        except (TypeError, ValueError):
            continue
        if rule.name == name and _normal(rule.config()) == wanted:
            return key, config
    raise ValueError(
        f"the recorded rule {name!r} with options {config!r} is not one of perfstats.rules.RULES "
        f"({', '.join(RULES)}): a rule of your own cannot be rebuilt from metadata"
    )


def _normal(data: Any) -> Any:
    return json.loads(json.dumps(plain(data)))


__all__ = [
    "Experiment",
    "experiment_from_metadata",
    "read_experiment_metadata",
    "run_from_metadata",
]

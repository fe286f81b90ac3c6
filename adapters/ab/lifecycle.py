"""The life of a benchmark function on AWS Lambda: package, deploy, wait, publish, remove.

ElastiBench (Schirmer et al. 2024, Fig. 2 and Section V) builds one
function that holds both versions and a runner, deploys it, calls it with
the benchmarks to run, and removes it afterwards. This module does the
deploying and removing with boto3:

* :func:`deploy` packages a directory (or takes a ``.zip`` or a container
  image URI), creates the function with the configured memory and
  architecture (or updates a function perfstats created before), waits
  until it is active (boto3's ``function_active_v2`` and
  ``function_updated_v2`` waiters) and publishes a version;
* :func:`teardown` deletes it;
* :func:`deployed` does both around a block, tearing down on failure,
  Ctrl-C and SIGTERM too.

Ownership is proved by what only this deployment knows, not by a tag
anyone can copy: each function perfstats creates gets a random deployment
id, tagged on it (``perfstats:deployment``, beside ``perfstats:owner =
perfstats``) and recorded in a state file perfstats keeps (one JSON file
per function in :func:`state_dir`, written atomically; it holds names and
the id, never a credential). A function is updated or deleted only when
its tag matches the recorded id; any other function of that name is left
as it is, with an error that says why. A bad input (no credentials or
region, a role Lambda cannot assume, a package over the direct-upload
limit, a qualified name or an ARN, a name that belongs to someone else)
is a :class:`ValueError` that says which, and leaves nothing deployed.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import secrets
import signal
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypedDict

from ..records.files import write_atomic
from ..records.redaction import redact_url

if TYPE_CHECKING:
    # Only the type checker reads the annotations (``from __future__ import
    # annotations``), so typing_extensions is not a run-time dependency.
    from typing_extensions import Unpack

logger = logging.getLogger(__name__)

#: The tag perfstats puts on every function it creates.
OWNER_TAG = "perfstats:owner"
OWNER = "perfstats"
#: The tag holding the function's deployment id, checked against the
#: recorded state before perfstats changes or deletes the function.
DEPLOYMENT_TAG = "perfstats:deployment"
#: Where the deployment state is kept when ``state_dir`` is not given.
STATE_DIR_ENV = "PERFSTATS_STATE_DIR"
#: A function name as Lambda takes it; a qualifier (``name:1``) or an ARN is
#: not one, so a version or alias is never mistaken for the whole function.
FUNCTION_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Lambda's limit for a zip uploaded with the request (50 MB zipped).
ZIP_LIMIT_BYTES = 50 * 1024 * 1024
ARCHITECTURES = ("arm64", "x86_64")
#: Attempts of each control-plane call when AWS throttles (standard retry mode,
#: exponential back-off with jitter).
CONTROL_ATTEMPTS = 6


class LifecycleError(RuntimeError):
    """AWS failed to deploy or delete a function (throttled beyond the retries, not ready)."""


@dataclass(frozen=True)
class FunctionSpec:
    """What to deploy: a named function, its code and its configuration.

    Parameters
    ----------
    name : str
        Function name.
    role : str
        ARN of the execution role Lambda assumes.
    package : str or path, optional
        A directory (zipped, its files at the zip's root) or a ``.zip``
        file. Exactly one of ``package`` and ``image_uri``.
    image_uri : str, optional
        A container image (ECR URI) holding the runner and both versions.
    handler, runtime : str
        For a zip package (default ``main.handler``, ``python3.12``).
    memory_mb : int, default 2048
        Memory (128 to 10240 MB); ElastiBench used 2048 MB.
    architecture : {"arm64", "x86_64"}, default "arm64"
    timeout_s : int, default 900
        The function's time limit (1 to 900 s).
    environment : mapping, optional
        Environment variables of the function.

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import FunctionSpec
    >>> FunctionSpec("bench", role="arn:aws:iam::123456789012:role/r", image_uri="x:1").memory_mb
    2048
    >>> FunctionSpec("bench", role="arn:aws:iam::123456789012:role/r")
    Traceback (most recent call last):
    ...
    ValueError: give exactly one of package (a directory or .zip) and image_uri
    """

    name: str
    role: str
    package: str | os.PathLike[str] | None = None
    image_uri: str | None = None
    handler: str = "main.handler"
    runtime: str = "python3.12"
    memory_mb: int = 2048
    architecture: str = "arm64"
    timeout_s: int = 900
    environment: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_name(self.name)
        if not isinstance(self.role, str) or not self.role.startswith("arn:"):
            raise ValueError(f"role must be the ARN of an IAM role; got {self.role!r}")
        if (self.package is None) == (self.image_uri is None):
            raise ValueError("give exactly one of package (a directory or .zip) and image_uri")
        if self.architecture not in ARCHITECTURES:
            raise ValueError(
                f"architecture must be one of {', '.join(ARCHITECTURES)}; "
                f"got {self.architecture!r}"
            )
        for name, low, high in (("memory_mb", 128, 10240), ("timeout_s", 1, 900)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer in [{low}, {high}]; got {value!r}")
        env = dict(self.environment)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise ValueError(f"environment must map names to strings; got {env!r}")
        object.__setattr__(self, "environment", env)


@dataclass(frozen=True)
class Deployment:
    """A deployed function: its name, published version and configuration.

    Attributes
    ----------
    name, arn : str
    version : str
        The published version; calls go to it, not to ``$LATEST``.
    memory_mb : int
    architecture : str
    created : bool
        True when :func:`deploy` created the function, False when it
        updated one this deployment state had created before.
    deployment_id : str
        The random id tagged on the function and recorded in the state
        (``""`` when unknown); :func:`teardown` deletes only a function
        that carries it.
    """

    name: str
    arn: str
    version: str
    memory_mb: int
    architecture: str
    created: bool
    deployment_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for records and ``--json``."""
        return {
            "name": self.name,
            "arn": self.arn,
            "version": self.version,
            "memory_mb": self.memory_mb,
            "architecture": self.architecture,
            "created": self.created,
            "deployment_id": self.deployment_id,
        }


def _check_name(name: Any) -> None:
    """ValueError unless ``name`` is a plain Lambda function name (no qualifier, no ARN)."""
    if isinstance(name, str) and FUNCTION_NAME.fullmatch(name):
        return
    if isinstance(name, str) and (":" in name or "/" in name):
        plain = name.split(":function:")[-1].split(":")[0].split("/")[-1]
        raise ValueError(
            f"{name!r} is a qualified name or an ARN; perfstats deploys and deletes whole "
            f"functions by their plain name (here {plain!r}), never one version or alias"
        )
    raise ValueError(
        f"name must be a Lambda function name (1-64 letters, digits, '-' or '_'); got {name!r}"
    )


def state_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder where perfstats keeps the deployment state of its functions.

    ``path`` when given, else ``$PERFSTATS_STATE_DIR``, else
    ``$XDG_STATE_HOME/perfstats`` (``~/.local/state/perfstats``). Each
    function it deploys has one JSON file under ``lambda/`` there while it
    exists.

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import state_dir
    >>> state_dir("/tmp/ps-state").as_posix()
    '/tmp/ps-state'
    """
    if path is not None:
        return Path(path)
    if os.environ.get(STATE_DIR_ENV):
        return Path(os.environ[STATE_DIR_ENV])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "perfstats"


def _state_file(folder: Path, client: Any, arn: str) -> Path:
    """The state file of the function ``arn`` reached through ``client``'s endpoint."""
    endpoint = _endpoint(client)
    # arn:aws:lambda:REGION:ACCOUNT:function:NAME, without a version or alias after it.
    arn = ":".join(arn.split(":")[:7])
    key = hashlib.sha256(f"{endpoint}\n{arn}".encode()).hexdigest()[:32]
    return folder / "lambda" / f"{key}.json"


def _endpoint(client: Any) -> str:
    """The client's endpoint URL with any user name or password in it hidden."""
    return redact_url(str(getattr(getattr(client, "meta", None), "endpoint_url", "") or ""))


def _recorded_id(path: Path) -> str | None:
    """The deployment id recorded in the state file at ``path``; None when there is none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the deployment state {path}: {exc}") from None
    found = data.get("deployment_id") if isinstance(data, dict) else None
    return found if isinstance(found, str) and found else None


def _record(path: Path, client: Any, configuration: Mapping[str, Any], deployment_id: str
            ) -> None:  # fmt: skip
    """Write the state of a function this deployment created (names and the id; no secret)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    state = {
        "name": configuration.get("FunctionName"),
        "arn": configuration.get("FunctionArn"),
        "endpoint_url": _endpoint(client) or None,
        "deployment_id": deployment_id,
    }
    write_atomic(path, json.dumps(state, indent=2) + "\n")


def _forget(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        logger.warning("could not remove the deployment state %s: %s", path, exc)


def lambda_client(
    region: str | None = None,
    *,
    endpoint_url: str | None = None,
    profile: str | None = None,
    attempts: int = CONTROL_ATTEMPTS,
    read_timeout: float = 60.0,
) -> Any:
    """A boto3 Lambda client, after checking that credentials and a region are set.

    Throttled calls (``TooManyRequestsException``, HTTP 429) are retried up
    to ``attempts`` times in all with boto3's standard back-off.

    Raises
    ------
    ValueError
        When boto3 is missing, no credentials are found, or no region is
        set (argument, profile or ``AWS_DEFAULT_REGION``).
    """
    try:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError
    except ImportError:
        raise ValueError("AWS Lambda needs boto3: pip install 'perfstats[adapters]'") from None
    try:
        session = boto3.session.Session(profile_name=profile, region_name=region)
    except BotoCoreError as exc:
        raise ValueError(f"cannot open the AWS profile {profile!r}: {exc}") from None
    if session.get_credentials() is None:
        raise ValueError(
            "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "or name a configured profile"
        )
    if not session.region_name:
        raise ValueError("no AWS region: give region= (--region) or set AWS_DEFAULT_REGION")
    config = Config(
        connect_timeout=10,
        read_timeout=read_timeout,
        retries={"total_max_attempts": attempts, "mode": "standard"},
    )
    return session.client("lambda", endpoint_url=endpoint_url, config=config)


class LambdaAccess(TypedDict, total=False):
    """How :func:`deploy`, :func:`teardown` and :func:`deployed` reach Lambda.

    Attributes
    ----------
    client : boto3 Lambda client
        Used as it is; the other keys are then ignored.
    region, endpoint_url, profile : str or None
        Passed to :func:`lambda_client` when no ``client`` is given
        (``endpoint_url`` points at a local stand-in such as moto).

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import LambdaAccess
    >>> LambdaAccess(region="eu-west-1", endpoint_url="http://127.0.0.1:5000")
    {'region': 'eu-west-1', 'endpoint_url': 'http://127.0.0.1:5000'}
    """

    client: Any
    region: str | None
    endpoint_url: str | None
    profile: str | None


def _client(access: Mapping[str, Any]) -> Any:
    """The client ``access`` names or makes, after refusing keys it does not know."""
    unknown = sorted(set(access) - set(LambdaAccess.__annotations__))
    if unknown:
        raise TypeError(
            f"unexpected keyword argument {unknown[0]!r}; "
            f"Lambda is reached with {', '.join(LambdaAccess.__annotations__)}"
        )
    if access.get("client") is not None:
        return access["client"]
    return lambda_client(
        access.get("region"), endpoint_url=access.get("endpoint_url"), profile=access.get("profile")
    )


def package(path: str | os.PathLike[str]) -> bytes:
    """The zip to upload: a directory zipped (files at the root), or a ``.zip`` read.

    Raises
    ------
    ValueError
        When ``path`` is missing or neither a directory nor a ``.zip``, or
        the zip is larger than Lambda takes in a request (50 MB).

    Examples
    --------
    >>> import tempfile, zipfile, io, pathlib
    >>> from perfstats.adapters.ab.lifecycle import package
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "main.py").write_text("def handler(event, context):\\n    return event\\n")
    >>> zipfile.ZipFile(io.BytesIO(package(d))).namelist()
    ['main.py']
    """
    p = Path(path)
    if p.is_dir():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for file in sorted(f for f in p.rglob("*") if f.is_file()):
                if "__pycache__" in file.parts:
                    continue
                z.write(file, file.relative_to(p).as_posix())
        data = buffer.getvalue()
    elif p.is_file() and p.suffix.lower() == ".zip":
        data = p.read_bytes()
    elif p.exists():
        raise ValueError(f"package {os.fspath(p)} must be a directory or a .zip file")
    else:
        raise ValueError(f"package {os.fspath(p)} does not exist")
    if len(data) > ZIP_LIMIT_BYTES:
        raise ValueError(
            f"package {os.fspath(p)} is {len(data) / 2**20:.1f} MB zipped; Lambda takes at "
            f"most {ZIP_LIMIT_BYTES / 2**20:.0f} MB in a direct upload (use a container "
            "image, image_uri)"
        )
    return data


def _error(exc: Any) -> tuple[str, str]:
    error = exc.response.get("Error", {}) if hasattr(exc, "response") else {}
    return str(error.get("Code", type(exc).__name__)), str(error.get("Message", exc))


def _explain(exc: Exception, action: str, spec: FunctionSpec | None = None) -> Exception:
    """The error to raise for a failed control-plane call, with what it means."""
    from botocore.exceptions import BotoCoreError, ClientError

    if isinstance(exc, ClientError):
        code, message = _error(exc)
        if spec is not None and code == "InvalidParameterValueException" and "role" in message:
            return ValueError(
                f"{action} {spec.name!r}: the role {spec.role} does not exist or Lambda "
                f"cannot assume it ({message})"
            )
        if code in ("TooManyRequestsException", "ThrottlingException"):
            tries = int(exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0)) + 1
            return LifecycleError(
                f"{action}: AWS throttled the request and it still failed after "
                f"{tries} attempt{'s' if tries != 1 else ''} ({code}: {message})"
            )
        if code in ("UnrecognizedClientException", "InvalidSignatureException",
                    "AccessDeniedException"):  # fmt: skip
            return ValueError(f"{action}: AWS refused the credentials ({code}: {message})")
        return LifecycleError(f"{action}: {code}: {message}")
    if isinstance(exc, BotoCoreError):
        return LifecycleError(f"{action}: {exc}")
    return exc


def _unless_missing(request: Callable[[], Any], action: str) -> Any:
    """The answer to ``request`` (a control-plane call), or None when its function does not exist.

    Any other failure is raised as :func:`_explain` words it, ``action`` naming what was done.
    """
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return request()
    except ClientError as exc:
        if _error(exc)[0] == "ResourceNotFoundException":
            return None
        raise _explain(exc, action) from None
    except BotoCoreError as exc:
        raise _explain(exc, action) from None


def _owned(
    client: Any, name: str, folder: Path, deployment_id: str | None = None
) -> tuple[dict[str, Any], str, Path] | None:
    """The function's configuration, deployment id and state file if it is this deployment's.

    None when no function of that name exists. ValueError, saying why,
    when it exists and ownership is not proved: no perfstats tag, no
    deployment id, no recorded state, or an id that differs from the
    recorded one (or from ``deployment_id`` when given).
    """
    found = _unless_missing(lambda: client.get_function(FunctionName=name), f"looking up {name!r}")
    if found is None:
        return None
    configuration = dict(found["Configuration"])
    tags = found.get("Tags") or {}
    refuse = "perfstats never changes or deletes it"
    if tags.get(OWNER_TAG) != OWNER:
        raise ValueError(
            f"a Lambda function {name!r} exists and perfstats did not create it (no tag "
            f"{OWNER_TAG}={OWNER}); {refuse}: choose another name"
        )
    path = _state_file(folder, client, str(configuration.get("FunctionArn", name)))
    tagged = tags.get(DEPLOYMENT_TAG)
    if not tagged:
        raise ValueError(
            f"a Lambda function {name!r} exists with the tag {OWNER_TAG}={OWNER} but no "
            f"{DEPLOYMENT_TAG} id, so nothing proves this perfstats deployed it (anyone can "
            f"copy that tag); {refuse}: delete it by hand if it is yours, or choose another name"
        )
    recorded = deployment_id if deployment_id else _recorded_id(path)
    if recorded is None:
        raise ValueError(
            f"a Lambda function {name!r} exists but no deployment of it is recorded in "
            f"{path.parent} (deployed from another machine or state folder, or the state was "
            f"removed); {refuse}: delete it by hand if it is yours, or choose another name"
        )
    if not secrets.compare_digest(str(tagged), recorded):
        raise ValueError(
            f"a Lambda function {name!r} exists but its {DEPLOYMENT_TAG} tag does not match "
            f"the deployment id recorded in {path}; {refuse}: delete it by hand if it is "
            "yours, or choose another name"
        )
    return configuration, recorded, path


def _wait(client: Any, waiter: str, name: str, wait_s: float, qualifier: str | None = None) -> None:
    from botocore.exceptions import WaiterError

    delay = 1
    kwargs: dict[str, Any] = {"FunctionName": name}
    if qualifier is not None:
        kwargs["Qualifier"] = qualifier
    try:
        client.get_waiter(waiter).wait(
            **kwargs,
            WaiterConfig={"Delay": delay, "MaxAttempts": max(1, int(wait_s / delay))},
        )
    except WaiterError as exc:
        last = getattr(exc, "last_response", None) or {}
        config = last.get("Configuration", last)
        reason = config.get("StateReason") or config.get("LastUpdateStatusReason") or exc
        raise LifecycleError(
            f"{name!r} did not become ready within {wait_s:g} s ({waiter}): {reason}"
        ) from None


def _code(spec: FunctionSpec, data: bytes | None) -> dict[str, Any]:
    return {"ZipFile": data} if data is not None else {"ImageUri": spec.image_uri}


def _configuration(spec: FunctionSpec) -> dict[str, Any]:
    config: dict[str, Any] = {
        "FunctionName": spec.name,
        "Role": spec.role,
        "MemorySize": spec.memory_mb,
        "Timeout": spec.timeout_s,
        "Environment": {"Variables": dict(spec.environment)},
    }
    if spec.image_uri is None:
        config.update(Handler=spec.handler, Runtime=spec.runtime)
    return config


def deploy(
    spec: FunctionSpec,
    *,
    wait_s: float = 300.0,
    state: str | os.PathLike[str] | None = None,
    **access: Unpack[LambdaAccess],
) -> Deployment:
    """Create (or update) the function, wait until it is active, publish a version.

    A new function gets a random deployment id, tagged on it and recorded
    in the state folder. A function of that name whose tag matches the id
    recorded there gets the new code and configuration; any other is left
    alone and is an error. When the function is created here and a later
    step fails or is interrupted, it is deleted again (and its state
    removed): a failed deploy leaves nothing.

    Parameters
    ----------
    spec : FunctionSpec
        The function to deploy: its name, execution role, code (package or
        image) and configuration.
    wait_s : float, default 300
        Longest wait for the function to become active or updated.
    state : path, optional
        The deployment state folder (default :func:`state_dir`).
    **access
        How to reach Lambda (:class:`LambdaAccess`): a ``client``, or the
        ``region``, ``endpoint_url`` and ``profile`` to make one with.

    Returns
    -------
    Deployment
        The function's name and ARN, the version just published (the one to
        call), its memory and architecture, whether it was created here or
        updated, and its deployment id.

    Raises
    ------
    ValueError
        Bad input: credentials, region, role, package size, a name whose
        function this deployment state did not create.
    LifecycleError
        AWS failed (throttled beyond the retries, the function did not
        become active).

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import FunctionSpec, deploy, teardown
    >>> spec = FunctionSpec("bench", role="arn:aws:iam::123456789012:role/r", package="fn/")
    >>> d = deploy(spec, region="eu-west-1")  # doctest: +SKIP
    >>> teardown(d.name, region="eu-west-1")  # doctest: +SKIP
    True
    """
    if not isinstance(spec, FunctionSpec):
        raise ValueError(f"spec must be a FunctionSpec; got {spec!r}")
    from botocore.exceptions import BotoCoreError, ClientError

    # Every local check before the first call that changes anything.
    data = package(spec.package) if spec.package is not None else None
    folder = state_dir(state)
    client = _client(access)
    existing = _owned(client, spec.name, folder)
    created = False
    record: Path | None = None
    deployment_id = existing[1] if existing is not None else secrets.token_hex(16)
    try:
        if existing is None:
            action = "creating"
            try:
                made = client.create_function(
                    **_configuration(spec),
                    Code=_code(spec, data),
                    PackageType="Zip" if data is not None else "Image",
                    Architectures=[spec.architecture],
                    Tags={OWNER_TAG: OWNER, DEPLOYMENT_TAG: deployment_id},
                    Publish=False,
                )
            except (ClientError, BotoCoreError) as exc:
                raise _explain(exc, "creating", spec) from None
            created = True
            action = "recording the deployment of"
            record = _state_file(folder, client, str(made.get("FunctionArn", spec.name)))
            _record(record, client, made, deployment_id)
            _wait(client, "function_active_v2", spec.name, wait_s)
        else:
            action = "updating"
            client.update_function_code(
                FunctionName=spec.name, **_code(spec, data), Architectures=[spec.architecture]
            )
            _wait(client, "function_updated_v2", spec.name, wait_s)
            client.update_function_configuration(**_configuration(spec))
            _wait(client, "function_updated_v2", spec.name, wait_s)
        action = "publishing a version of"
        published = client.publish_version(FunctionName=spec.name)
        version = str(published["Version"])
        _wait(client, "function_active_v2", spec.name, wait_s, qualifier=version)
    except BaseException as exc:
        if created or (existing is None and _created_anyway(client, spec.name, deployment_id)):
            _delete_quietly(client, spec.name)
            if record is not None:
                _forget(record)
        if isinstance(exc, (ClientError, BotoCoreError)):
            raise _explain(exc, f"{action} {spec.name!r}", spec) from None
        raise
    logger.info("deployed %s version %s", spec.name, version)
    return Deployment(
        name=spec.name,
        arn=str(published.get("FunctionArn", "")),
        version=version,
        memory_mb=int(published.get("MemorySize", spec.memory_mb)),
        architecture=str((published.get("Architectures") or [spec.architecture])[0]),
        created=created,
        deployment_id=deployment_id,
    )


def _created_anyway(client: Any, name: str, deployment_id: str) -> bool:
    """True when an interrupted create call created the function after all (tagged with our id)."""
    try:
        found = client.get_function(FunctionName=name)
    except Exception:
        return False
    tagged = (found.get("Tags") or {}).get(DEPLOYMENT_TAG)
    return isinstance(tagged, str) and secrets.compare_digest(tagged, deployment_id)


def _delete_quietly(client: Any, name: str) -> None:
    try:
        client.delete_function(FunctionName=name)
    except Exception as exc:  # the original error matters more; say what is left
        logger.error("could not delete %s after a failed deploy; delete it by hand: %s", name, exc)


def teardown(
    name: str | Deployment,
    *,
    state: str | os.PathLike[str] | None = None,
    **access: Unpack[LambdaAccess],
) -> bool:
    """Delete a function this deployment created, with all its versions.

    The function is deleted only when its ``perfstats:deployment`` tag
    matches the id recorded in the state folder (or carried by the
    :class:`Deployment` given); its state file is removed with it.

    Parameters
    ----------
    name : str or Deployment
        The function's plain name (a qualified name ``fn:1`` or an ARN is
        refused: perfstats deletes whole functions only).
    state : path, optional
        The deployment state folder (default :func:`state_dir`).
    **access
        How to reach Lambda (:class:`LambdaAccess`).

    Returns
    -------
    bool
        True when a function was deleted, False when none of that name exists.

    Raises
    ------
    ValueError
        When the name is qualified or an ARN, or the function exists and
        nothing proves this deployment created it (no perfstats tags, no
        recorded state, or ids that differ); it is left as it is, and the
        message says which.

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import teardown
    >>> teardown("bench:1", region="eu-west-1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'bench:1' is a qualified name or an ARN; ... (here 'bench'), never one version ...
    """
    function = name.name if isinstance(name, Deployment) else name
    given_id = name.deployment_id if isinstance(name, Deployment) else None
    _check_name(function)
    folder = state_dir(state)
    client = _client(access)
    owned = _owned(client, function, folder, given_id)
    if owned is None:
        return False
    path = owned[2]
    # boto3 answers every successful request with a dict (its ResponseMetadata at least).
    deleted = _unless_missing(
        lambda: client.delete_function(FunctionName=function), f"deleting {function!r}"
    )
    _forget(path)
    if deleted is None:
        return False
    logger.info("deleted %s", function)
    return True


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _signal_handlers(handlers: dict[signal.Signals, Any]) -> Iterator[None]:
    """Set ``handlers`` for the block, then restore the previous ones.

    Python lets only the main thread set handlers; elsewhere the block runs
    with the process's handlers unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s, handler in handlers.items()}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _terminate_as_interrupt() -> AbstractContextManager[None]:
    """Turn SIGTERM into KeyboardInterrupt, so a killed run still tears down."""
    return _signal_handlers({signal.SIGTERM: _interrupt})


def _uninterrupted() -> AbstractContextManager[None]:
    """Hold off Ctrl-C and SIGTERM while tearing down (the calls have their own timeouts)."""
    return _signal_handlers({signal.SIGINT: signal.SIG_IGN, signal.SIGTERM: signal.SIG_IGN})


@contextmanager
def deployed(
    spec: FunctionSpec,
    *,
    wait_s: float = 300.0,
    state: str | os.PathLike[str] | None = None,
    **access: Unpack[LambdaAccess],
) -> Iterator[Deployment]:
    """Deploy ``spec`` for the duration of a ``with`` block and always tear it down.

    The function is deleted when the block ends, raises, or is interrupted
    (Ctrl-C, or SIGTERM in the main thread), and when the deploy itself
    fails half-way. The parameters are those of :func:`deploy`.

    Parameters
    ----------
    spec : FunctionSpec
        As for :func:`deploy`.
    wait_s : float, default 300
        As for :func:`deploy`.
    state : path, optional
        As for :func:`deploy`; the teardown uses the same folder.
    **access
        As for :func:`deploy`; one client serves the deploy and the teardown.

    Yields
    ------
    Deployment
        The deployed function, as :func:`deploy` returns it: its published
        version is the one to call (e.g. with :class:`ReportingLambda`).

    Examples
    --------
    >>> from perfstats.adapters.ab.lifecycle import FunctionSpec, deployed
    >>> spec = FunctionSpec("bench", role="arn:aws:iam::123456789012:role/r", package="fn/")
    >>> with deployed(spec, region="eu-west-1") as d:  # doctest: +SKIP
    ...     print(d.version)
    1
    """
    client = _client(access)
    with _terminate_as_interrupt():
        # A deploy that fails removes what it created itself; a name that is
        # not perfstats' must not reach teardown (its error would be the same).
        deployment = deploy(spec, client=client, wait_s=wait_s, state=state)
        try:
            yield deployment
        finally:
            with _uninterrupted():
                try:
                    teardown(deployment, client=client, state=state)
                except Exception as exc:
                    logger.error("teardown of %s failed; delete it by hand: %s", spec.name, exc)
                    raise

"""The one container image, checked without building it: a multi-stage Dockerfile on a
pinned base, a non-root user, unbuffered output, and an entrypoint for every service
the manifests run."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.deploy.deploy_manifests import ROOT, SERVICES, console_scripts, objects

DOCKERFILE = ROOT / "Dockerfile"

# Entrypoints the manifests run whose code is still being written: allowed to be missing
# from [project.scripts] until they land, then test_planned_entrypoints_are_not_declared
# fails and the name is removed here.
PLANNED_ENTRYPOINTS: dict[str, str] = {}
"""Console scripts the manifests name before their service lands (none left)."""


@dataclass(frozen=True, slots=True)
class Stage:
    image: str
    name: str
    lines: list[str]


def stages() -> list[Stage]:
    """The build stages, with their instructions (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    args = dict(re.findall(r"^ARG\s+(\w+)=(\S+)", text, re.M))
    found: list[Stage] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"FROM\s+(\S+)(?:\s+AS\s+(\S+))?", line, re.I)
        if match:
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), match[1])
            found.append(Stage(image, match[2] or "", []))
        elif found:
            found[-1].lines.append(line)
    return found


def test_the_image_is_built_in_stages_from_a_pinned_base() -> None:
    built = stages()
    assert len(built) >= 2
    for stage in built:
        # A version tag and the digest: the same bytes on every build.
        assert re.fullmatch(r"[\w./-]+:\d+\.\d+\.\d+[\w.-]*@sha256:[0-9a-f]{64}", stage.image), (
            stage.image
        )
    runtime = built[-1]
    copied = [line for line in runtime.lines if line.startswith("COPY")]
    assert copied and all("--from=" in line for line in copied), "runtime copies only built files"
    assert not any(line.startswith(("RUN pip", "RUN /opt/triad/bin/pip")) for line in runtime.lines)


def test_the_image_runs_as_a_numeric_non_root_user_with_unbuffered_output() -> None:
    runtime = stages()[-1]
    users = [line.split()[1] for line in runtime.lines if line.startswith("USER")]
    assert users, "the runtime stage sets no USER"
    uid, _, gid = users[-1].partition(":")
    assert uid.isdigit() and int(uid) > 0 and gid.isdigit() and int(gid) > 0
    env = " ".join(line for line in runtime.lines if line.startswith("ENV"))
    assert re.search(r"\bPYTHONUNBUFFERED=1\b", env)


def test_the_build_context_leaves_out_what_the_image_does_not_need() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ignored[ignored.index("*") :].count("*") == 1, "everything out, then what is needed"
    for needed in ("pyproject.toml", "proto/", "services/", "gateway/"):
        assert f"!{needed}" in ignored
    copied = re.findall(r"^COPY\s+(?!--from)(\S+)", DOCKERFILE.read_text(), re.M)
    assert {c.rstrip("/") for c in copied} == {"pyproject.toml", "proto", "services", "gateway"}


def test_every_deployment_runs_a_declared_entrypoint_of_the_image() -> None:
    scripts = console_scripts()
    for svc in SERVICES:
        pod = objects("prod", "Deployment")[svc.app]["spec"]["template"]["spec"]
        (command,) = pod["containers"][0]["command"]
        assert command in scripts or command in PLANNED_ENTRYPOINTS, (
            f"{command} is neither in [project.scripts] nor planned"
        )
        target = scripts.get(command) or PLANNED_ENTRYPOINTS[command]
        module = target.partition(":")[0]
        assert module.split(".")[0] in ("services", "gateway"), "the image ships these only"


def test_planned_entrypoints_are_not_declared_yet() -> None:
    landed = sorted(set(PLANNED_ENTRYPOINTS) & set(console_scripts()))
    assert not landed, f"now in [project.scripts]: remove from PLANNED_ENTRYPOINTS: {landed}"


def test_the_image_exposes_the_ports_the_services_listen_on() -> None:
    exposed = {
        int(p) for line in stages()[-1].lines if line.startswith("EXPOSE") for p in line.split()[1:]
    }
    web = {s.web_port for s in SERVICES if s.web_port}
    assert exposed == {s.port for s in SERVICES} | {s.metrics_port for s in SERVICES} | web

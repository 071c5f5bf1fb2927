# One image for every service of the Gacha TriadAlpha backend. A Deployment picks the
# service by its entrypoint: triad-gateway, triad-match, triad-matchmaker,
# triad-collection, triad-rating or triad-battle-service (deploy/k8s/base/*.yaml);
# triad-admin, the operators' tool, is there too (kubectl exec).
#
#   docker build -t triad-backend:dev .
#   docker run --rm -e TRIAD_DATABASE_URL=... triad-backend:dev triad-match
#
# The base image is pinned by version and by digest (of the multi-architecture index):
# a rebuild gets the same Python and Debian packages until this line changes.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

# ---------------------------------------------------------------- build
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /app

# Every version comes from pyproject.toml, nowhere else: the runtime dependencies go
# into the image's virtual environment, the protobuf compiler (grpcio-tools, pinned
# in the dev extra) into a throwaway one. This layer changes only with pyproject.toml.
COPY pyproject.toml ./
RUN python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
open("/tmp/runtime.txt", "w").write("\n".join(p["dependencies"])); \
open("/tmp/tools.txt", "w").write("\n".join(d for d in p["optional-dependencies"]["dev"] \
    if d.startswith("grpcio-tools")))' \
 && python -m venv /opt/triad \
 && /opt/triad/bin/pip install -r /tmp/runtime.txt \
 && python -m venv /opt/tools \
 && /opt/tools/bin/pip install -r /tmp/tools.txt

# Generated code lives in one place, gen/, on the path through a .pth file (as make proto).
COPY proto ./proto
RUN mkdir gen \
 && /opt/tools/bin/python -m grpc_tools.protoc -I proto --python_out=gen --grpc_python_out=gen \
        proto/triad/v1/*.proto \
 && touch gen/triad/__init__.py gen/triad/v1/__init__.py \
 && echo /app/gen > "$(/opt/triad/bin/python -c \
        'import sysconfig; print(sysconfig.get_paths()["purelib"])')/triad-generated.pth"

# The code, installed in place: the entrypoints are console scripts, and package data
# (services/collection/data/*.json) is read from the source tree it ships in. Every
# entrypoint of a service is imported once, so a missing module fails the build.
COPY services ./services
COPY gateway ./gateway
RUN /opt/triad/bin/pip install --no-deps --editable . \
 && /opt/triad/bin/python -m compileall -q /app/services /app/gateway /app/gen \
 && /opt/triad/bin/python -c 'import importlib, importlib.metadata as md; \
[importlib.import_module(e.module) for e in md.entry_points(group="console_scripts") \
    if e.module.split(".")[0] in ("services", "gateway")]'

# ---------------------------------------------------------------- runtime
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/triad/bin:$PATH
RUN groupadd --system --gid 10001 triad \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin triad
COPY --from=build /opt/triad /opt/triad
COPY --from=build /app /app
WORKDIR /app
# Numeric, so that Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 10001:10001
# gRPC and /metrics of gateway, match, matchmaker, collection, rating, battle; the gateway's
# gRPC-Web.
EXPOSE 50051 50061 50062 50063 50064 50065 9151 9161 9162 9163 9164 9165 8443
CMD ["triad-match"]

# emote-sim: a slim runtime image with the default configuration, the sample emotes and the
# browser viewer (served with `--http`).
#   docker build -t emote-sim .
#   docker run --rm -p 127.0.0.1:25580:25580 emote-sim
# See docs/guide/deployment.md for running it as a sidecar.

# ---- build -------------------------------------------------------------------------------------
FROM debian:bookworm AS build
# Package lists and downloaded packages live in build cache mounts (BuildKit, Buildah, Podman):
# a rebuild does not download them again, and they are not part of any image layer. Each stage
# has its own (Buildah keeps a locked cache mount locked until the whole build ends).
RUN --mount=type=cache,id=emote-sim-apt-lists-build,target=/var/lib/apt/lists,sharing=locked \
    --mount=type=cache,id=emote-sim-apt-archives-build,target=/var/cache/apt/archives,sharing=locked \
    rm -f /etc/apt/apt.conf.d/docker-clean \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ ccache pkg-config libboost-dev rapidjson-dev libspdlog-dev libfmt-dev libre2-dev libdeflate-dev
WORKDIR /src
# One COPY of the sources (.dockerignore leaves out tests, docs, clients and build trees): every
# layer costs a copy of the whole tree with some storage drivers.
COPY . .
# The compiler cache lives in a build cache mount (BuildKit, Buildah, Podman), so a rebuild after
# a small change compiles only what changed; it is not part of any image layer.
RUN --mount=type=cache,id=emote-sim-ccache,target=/var/cache/ccache \
    CCACHE_DIR=/var/cache/ccache CCACHE_BASEDIR=/src CCACHE_MAXSIZE=2G \
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMOTE_SIM_TESTS=OFF \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
 && CCACHE_DIR=/var/cache/ccache CCACHE_BASEDIR=/src cmake --build build --target emote-sim \
 && CCACHE_DIR=/var/cache/ccache ccache --show-stats \
 && strip build/server/emote-sim

# ---- the browser viewer ------------------------------------------------------------------------
# Node.js and npm from Debian; the page is bundled as scripts/build-viewer does (viewer/build.mjs,
# three.js and esbuild pinned by viewer/package-lock.json). npm's download cache is a build cache
# mount; the stage's own COPY of viewer/ only, so a C++ change does not rebuild the page.
FROM debian:bookworm AS viewer
RUN --mount=type=cache,id=emote-sim-apt-lists-viewer,target=/var/lib/apt/lists,sharing=locked \
    --mount=type=cache,id=emote-sim-apt-archives-viewer,target=/var/cache/apt/archives,sharing=locked \
    rm -f /etc/apt/apt.conf.d/docker-clean \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
WORKDIR /viewer
COPY viewer/ ./
# Behind a TLS-inspecting proxy, give npm its CA bundle as the optional build secret `ca`
# (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`; scripts/test-container does); it is
# not part of any layer.
RUN --mount=type=cache,id=emote-sim-npm,target=/root/.npm \
    --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --no-audit --no-fund --loglevel=error \
 && node build.mjs /viewer/dist

# ---- runtime -----------------------------------------------------------------------------------
FROM debian:bookworm-slim
RUN --mount=type=cache,id=emote-sim-apt-lists-runtime,target=/var/lib/apt/lists,sharing=locked \
    --mount=type=cache,id=emote-sim-apt-archives-runtime,target=/var/cache/apt/archives,sharing=locked \
    rm -f /etc/apt/apt.conf.d/docker-clean \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libspdlog1.10 libfmt9 libre2-9 libdeflate0 \
 && useradd --system --uid 10001 --home-dir /var/lib/emote-sim --create-home emote-sim \
 && install -d -o emote-sim -g emote-sim /run/emote-sim
COPY --from=build /src/build/server/emote-sim /usr/local/bin/emote-sim
# emote-sim finds the viewer at ../share/emote-sim/viewer from its own folder (docs/guide/viewer.md).
COPY --from=viewer /viewer/dist/ /usr/local/share/emote-sim/viewer/
# config/emote-sim.json names its emote folder relative to itself: /etc/emote-sim/emotes.
COPY config/ /etc/emote-sim/
ENV EMOTE_SIM_CONFIG=/etc/emote-sim/emote-sim.json \
    EMOTE_SIM_LISTEN=0.0.0.0:25580
USER emote-sim
WORKDIR /var/lib/emote-sim
EXPOSE 25580
STOPSIGNAL SIGTERM
# The server answers a hello on its first listen address, TCP or a Unix socket (the Compose
# example shares /run/emote-sim/emote-sim.sock in a volume; /run/emote-sim belongs to the
# image's user, so a named volume mounted there is writable by it).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["emote-sim", "health"]
ENTRYPOINT ["emote-sim"]
CMD ["serve"]

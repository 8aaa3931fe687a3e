# emote-sim: a slim runtime image made by installing emote-sim's Debian package into Debian: the
# binary at /usr/bin/emote-sim, the default configuration and sample emotes in /etc/emote-sim and
# the browser viewer at /usr/share/emote-sim/viewer (served with `--http`). The build context is
# the folder scripts/package writes the package to:
#   scripts/package release
#   docker build -t emote-sim -f Dockerfile build/release/packages
#   docker run --rm -p 127.0.0.1:25580:25580 emote-sim
# See docs/guide/deployment.md for running it as a sidecar.
FROM debian:bookworm-slim
# The user first, with a fixed uid (10001) for volume ownership; the package's postinst keeps an
# existing emote-sim user. apt resolves the package's dependencies (from dpkg-shlibdeps) from
# Debian. Package lists and downloaded packages live in build cache mounts (BuildKit, Buildah,
# Podman): a rebuild does not download them again, and they are not part of any image layer; the
# package itself is bind-mounted from the context, so no layer keeps it either.
RUN --mount=type=cache,id=emote-sim-apt-lists-runtime,target=/var/lib/apt/lists,sharing=locked \
    --mount=type=cache,id=emote-sim-apt-archives-runtime,target=/var/cache/apt/archives,sharing=locked \
    --mount=type=bind,target=/tmp/packages \
    rm -f /etc/apt/apt.conf.d/docker-clean \
 && useradd --system --uid 10001 --home-dir /var/lib/emote-sim --create-home emote-sim \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/packages/emote-sim_*_amd64.deb \
 && install -d -o emote-sim -g emote-sim /run/emote-sim
# emote-sim finds the viewer at ../share/emote-sim/viewer from its own folder (docs/guide/viewer.md).
# /etc/emote-sim/emote-sim.json names its emote folder relative to itself: /etc/emote-sim/emotes.
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

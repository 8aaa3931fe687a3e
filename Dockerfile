# emote-sim: a slim runtime image with the default configuration and the sample emotes.
#   docker build -t emote-sim .
#   docker run --rm -p 127.0.0.1:25580:25580 emote-sim
# See docs/guide/deployment.md for running it as a sidecar.

# ---- build -------------------------------------------------------------------------------------
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config libboost-dev rapidjson-dev libspdlog-dev libfmt-dev libre2-dev libdeflate-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# One COPY of the sources (.dockerignore leaves out tests, docs, clients and build trees): every
# layer costs a copy of the whole tree with some storage drivers.
COPY . .
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMOTE_SIM_TESTS=OFF \
 && cmake --build build --target emote-sim \
 && strip build/server/emote-sim

# ---- runtime -----------------------------------------------------------------------------------
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libspdlog1.10 libfmt9 libre2-9 libdeflate0 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/emote-sim --create-home emote-sim \
 && install -d -o emote-sim -g emote-sim /run/emote-sim
COPY --from=build /src/build/server/emote-sim /usr/local/bin/emote-sim
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

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
COPY CMakeLists.txt CMakePresets.json ./
COPY cmake cmake
COPY engine engine
COPY render render
COPY protocol protocol
COPY server server
COPY bench bench
COPY fuzz fuzz
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMOTE_SIM_TESTS=OFF \
 && cmake --build build --target emote-sim \
 && strip build/server/emote-sim

# ---- runtime -----------------------------------------------------------------------------------
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libspdlog1.10 libfmt9 libre2-9 libdeflate0 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/emote-sim --create-home emote-sim
COPY --from=build /src/build/server/emote-sim /usr/local/bin/emote-sim
# config/emote-sim.json names its emote folder relative to itself: /etc/emote-sim/emotes.
COPY config/ /etc/emote-sim/
ENV EMOTE_SIM_CONFIG=/etc/emote-sim/emote-sim.json \
    EMOTE_SIM_LISTEN=0.0.0.0:25580
USER emote-sim
WORKDIR /var/lib/emote-sim
EXPOSE 25580
STOPSIGNAL SIGTERM
# A TCP connect is enough to know the listener is up (the server closes it after the hello timeout).
HEALTHCHECK --interval=30s --timeout=3s \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/25580"]
ENTRYPOINT ["emote-sim"]
CMD ["serve"]

# slp as one executable on a slim image: no Node, no Bun, no node_modules at run time.
#   docker build -t slp .
#   docker run --rm -v "$PWD:/repo" slp check
#   docker run --rm --read-only -v "$PWD:/repo" slp unit

# Build stage: Node and npm are all slp needs to build itself (Bun comes from npm).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx bun run build && ./dist/slp --version

# Run stage: the binary, and the C++ runtime the embedded DuckDB links against.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libstdc++6 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 slp
COPY --from=build /src/dist/slp /usr/local/bin/slp
USER slp
# DuckDB is unpacked now, while the image is built, into the slp user's own
# private cache (never the shared /tmp): a read-only root or a noexec /tmp at
# run time changes nothing. Run the container as this user (uid 10001); under
# another user, set SLP_CACHE_DIR to a folder of that user's.
ENV SLP_CACHE_DIR=/home/slp/.cache/slp
RUN slp unpack
WORKDIR /repo
ENTRYPOINT ["slp"]
CMD ["--help"]

# slp as one executable on a slim image: no Node, no Bun, no node_modules at run time.
#   docker build -t slp .
#   docker run --rm -v "$PWD:/repo" -w /repo slp check
#   docker run --rm -v "$PWD:/repo" -w /repo slp unit

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
# DuckDB's library is unpacked here on first use (once per slp version).
ENV XDG_CACHE_HOME=/tmp/slp-cache
ENTRYPOINT ["slp"]
CMD ["--help"]

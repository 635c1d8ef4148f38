# replymock: a static binary on an empty image. Scenarios and fixtures are
# embedded; mount a folder and pass --scenarios /path to replace them.
# A demo that keeps its state: -v replymock-state:/state ... --state-dir /state
FROM docker.io/library/golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/replymock . && mkdir -p /out/state

FROM scratch
LABEL org.opencontainers.image.title="replymock" \
      org.opencontainers.image.description="In-memory fake of the auto-reply service API with realistic Russian data"
COPY --from=build /out/replymock /replymock
# An empty folder the server's user owns, for --state-dir /state: a named
# volume mounted there starts owned alike.
COPY --from=build --chown=65534:65534 /out/state /state
USER 65534:65534
ENV REPLYMOCK_ADDR=:8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["/replymock", "healthcheck"]
ENTRYPOINT ["/replymock"]

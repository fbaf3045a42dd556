# reprise's release binary in a small image, for the Kubernetes manifests in deploy/kubernetes:
#   docker build -t reprise:0.1.0 .
# The build stage compiles the binary as a release does (`deno task compile <target>`: the
# release's permissions and V8 flags built in); the image holds only that binary on distroless
# (glibc, CA certificates, a non-root user), about 100 MB.
FROM denoland/deno:2.9.6 AS build
ARG TARGETARCH
WORKDIR /src
COPY . .
RUN case "$TARGETARCH" in \
      arm64) target=aarch64-unknown-linux-gnu ;; \
      *) target=x86_64-unknown-linux-gnu ;; \
    esac \
 && deno task compile "$target" \
 && cp dist/reprise-*-"$target" /reprise

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /reprise /usr/local/bin/reprise
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/reprise"]
CMD ["--help"]

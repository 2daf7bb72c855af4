# The three Java tiers (compose services front, clone, axis), built from source. One file for
# all three: compose passes the tier's Maven module and jar name as build arguments.
#   docker compose build front clone axis          context: the repository root
#   DOCKER_BUILDKIT=1 docker build -f docker/java.Dockerfile \
#       --build-arg MODULE=services/front --build-arg JAR=front -t soaptestbed/front .
# Stage "build" runs the Maven reactor for MODULE and the modules it needs (java-common, the
# contract's generated stub); the runtime stage is a JRE and JAR.jar with its libraries (and,
# for axis, the Axis2 repository beside it). The steps before `ARG MODULE` do not depend on
# the tier, so BuildKit runs them once for all three images.
FROM debian:bookworm-slim AS build
# man1: the JDK's postinst links its man pages there, and slim images have no man folders
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless maven \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Maven reads every module's pom of the reactor, even those it does not build;
# .mvn marks the reactor root and holds its flags
COPY pom.xml ./
COPY .mvn .mvn
COPY java-common/pom.xml java-common/
COPY services/contract/pom.xml services/contract/
COPY services/axis/pom.xml services/axis/
COPY client-clones/pom.xml client-clones/
COPY services/front/pom.xml services/front/
COPY java-common/src java-common/src
COPY services/contract services/contract
# the tier: its Maven module (services/front, client-clones, services/axis) and jar name
ARG MODULE
ARG JAR
RUN test -n "$MODULE" && test -n "$JAR" \
 || { echo "build with --build-arg MODULE=<maven module> --build-arg JAR=<jar name>" >&2; exit 1; }
COPY ${MODULE}/src ${MODULE}/src
# one local Maven repository shared by the Java builds (BuildKit cache, not in any image);
# locked: Maven's local repository is not safe for concurrent writers.
# /out: what the runtime stage takes, the same for every tier (the jar as app.jar)
RUN --mount=type=cache,target=/root/.m2,sharing=locked \
    mvn -B -ntp -pl "$MODULE" -am package -Dmaven.test.skip=true \
 && mkdir /out \
 && cp -r "$MODULE/target/lib" /out/lib \
 && cp "$MODULE/target/$JAR.jar" /out/app.jar \
 && if [ -d "$MODULE/target/repository" ]; then cp -r "$MODULE/target/repository" /out/; fi

FROM debian:bookworm-slim
# man1: as above, for the JRE
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
WORKDIR /app
COPY --from=build /out/ ./
# docs/tiers.md: every tier listens on PORT, on all interfaces in a container; its knobs
# come from compose (.env). The JVM flags are those of ./testbed's local mode (tiers.py).
ENV PORT=8080 BIND=0.0.0.0
EXPOSE 8080
USER nobody
CMD ["java", "-Xms128m", "-Xmx512m", "-XX:+UseParallelGC", "-XX:+ExitOnOutOfMemoryError", "-jar", "app.jar"]

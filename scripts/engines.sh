#!/usr/bin/env bash
# scripts/engines.sh - local engines for development and tests, on 127.0.0.1 only:
#   mongo     MongoDB-wire stand-in: de.bwaldvogel mongo-java-server, with a durable store of our own
#             (documents in memory, every change journaled before it is acknowledged): the local store, a Maven
#             project of its own in local-store/ (built here into the cache; its JUnit tests run in npm test)
#   kafka     Apache Kafka broker, KRaft single node (broker + controller in one JVM)
#   temporal  Temporal dev server (`temporal server start-dev`, SQLite file)
#   s3        S3-compatible object store for document content: SeaweedFS (`weed server -s3`), built from the Go
#             module proxy; only with INHOUD_STORE=s3 (or named)
#
# Usage: scripts/engines.sh <command> [mongo|kafka|temporal|s3 ...]
#   (no names = mongo, kafka and temporal, and s3 when INHOUD_STORE=s3 without S3_ENDPOINT)
#   install   install the pinned versions into the cache dir (idempotent, cached)
#   start     install if missing, start detached, wait until each answers
#   stop      SIGTERM, wait, then SIGKILL
#   restart   stop + start
#   status    show pid / address / whether it answers (exit 3 if one is not up)
#   env       print `export MONGODB_URL=...` etc. for the running engines
#   reset     stop the named engines and wipe their data (all: the whole data dir)
#   logs      print the log file paths
#   restore <dir>  replace the local store's data by a backup (made by `npm run admin -- backup <dir>` while it ran):
#             stops mongo, keeps the replaced data beside it (store.before-restore-<time>), copies the backup in,
#             starts mongo (which rebuilds every index from the documents)
#
# Environment:
#   ZGW_CACHE_DIR        installs (default ~/.cache/zgw; outside the repo)
#   ZGW_DATA_DIR         data, logs, pid files (default <repo>/.data)
#   ZGW_ENGINES_FRESH=1  `start` wipes the data of the engines it starts first
#   ZGW_MONGO_PORT (27017)  ZGW_MONGO_BACKEND (durable|memory, default durable; memory keeps nothing)
#   ZGW_MONGO_HEAP (4g, or a quarter of the machine's memory when that is more: it holds the indexes, about 65 to
#                   100 bytes per index entry; the documents stay in the store's files)
#   ZGW_MONGO_JAVA_OPTS (empty: more JVM options for the store, after the project's own, e.g. a collector)
#   ZGW_MONGO_FSYNC (on; off: each write still reaches the OS before it is acknowledged, so it survives
#                    kill -9 of the engine, but not a power cut)
#   ZGW_MONGO_LOG_LEVEL (warn; info logs every connection)
#   ZGW_MONGO_FOLD (unset; 1: fold the journal into a new snapshot at this start, whatever its size)
#   ZGW_KAFKA_PORT (9092)   ZGW_KAFKA_CONTROLLER_PORT (9093)  ZGW_KAFKA_HEAP (512m)
#   ZGW_KAFKA_PARTITIONS (1, default partitions of auto-created topics)
#   ZGW_TEMPORAL_PORT (7233)  ZGW_TEMPORAL_UI_PORT (8233; 0 = no UI)
#   ZGW_TEMPORAL_HTTP_PORT, ZGW_TEMPORAL_METRICS_PORT (default: random free port)
#   ZGW_S3_PORT (8333; its master, volume and filer take the next three ports, and each of the four also that
#                port + 10000 for gRPC)
#   ZGW_ENGINES_TIMEOUT  seconds to wait for an engine to answer (default 120)
#   ZGW_ENGINES_STOP_TIMEOUT  seconds between SIGTERM and SIGKILL (default 30)
# shellcheck disable=SC2015,SC2016  # (A && B || die) and literal '$' in bash -c are intended
set -euo pipefail

# ------------------------------------------------------------------ pinned versions
MONGO_JAVA_SERVER_VERSION=1.47.0     # Maven Central de.bwaldvogel:mongo-java-server
MONGO_SERVER_VERSION=MONGO_5_0       # MongoDB version the stand-in reports (wire protocol)
KAFKA_VERSION=3.9.2                  # Maven Central org.apache.kafka:kafka_2.13 (3.x: see kafka/pom.xml)
SLF4J_RELOAD4J_VERSION=1.7.36        # Maven Central org.slf4j:slf4j-reload4j (Kafka's log binding)
TEMPORAL_CLI_VERSION=1.5.1           # Go module github.com/temporalio/cli (Temporal Server 1.29.1)
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6 # Go module github.com/seaweedfs/seaweedfs (weed 4.53)
MAVEN_DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
KAFKA_CLUSTER_ID=ZgwLocalKafkaCluster0A # fixed KRaft cluster id (22 chars, base64url uuid)

ALL_ENGINES=(mongo kafka temporal s3)
DEFAULT_ENGINES=(mongo kafka temporal)
# the S3 engine only for content on S3 without an S3 of its own (S3_ENDPOINT)
[[ "${INHOUD_STORE:-gridfs}" != s3 || -n "${S3_ENDPOINT:-}" ]] || DEFAULT_ENGINES+=(s3)
# The local S3 engine's own credentials (it listens on 127.0.0.1 only); `env` prints them with its address.
S3_LOCAL_ACCESS_KEY=zgw-local
S3_LOCAL_SECRET_KEY=zgw-local-secret
S3_LOCAL_REGION=us-east-1

# ------------------------------------------------------------------ paths and settings
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ENGINES_SRC="$SCRIPT_DIR/engines"
STORE_SRC="$SCRIPT_DIR/../local-store"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"

CACHE_DIR="${ZGW_CACHE_DIR:-${HOME:?HOME is not set}/.cache/zgw}"
ENG_CACHE="$CACHE_DIR/engines"
DATA_DIR="${ZGW_DATA_DIR:-$REPO_ROOT/.data}"
LOG_DIR="$DATA_DIR/logs"
RUN_DIR="$DATA_DIR/run"

HOST=127.0.0.1
MONGO_PORT="${ZGW_MONGO_PORT:-27017}"
MONGO_BACKEND="${ZGW_MONGO_BACKEND:-durable}"
# (a quarter of the machine's memory, at least 4g: MemTotal is in kB)
MONGO_HEAP="${ZGW_MONGO_HEAP:-$(awk '/^MemTotal:/ { m = int($2 / 4096); print (m > 4096 ? m : 4096) "m" }' /proc/meminfo 2>/dev/null || echo 4g)}"
[[ -n "$MONGO_HEAP" ]] || MONGO_HEAP=4g
read -r -a MONGO_JAVA_OPTS <<< "${ZGW_MONGO_JAVA_OPTS:-}"
MONGO_FSYNC="${ZGW_MONGO_FSYNC:-on}"
MONGO_LOG_LEVEL="${ZGW_MONGO_LOG_LEVEL:-warn}"
KAFKA_PORT="${ZGW_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${ZGW_KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HEAP="${ZGW_KAFKA_HEAP:-512m}"
KAFKA_PARTITIONS="${ZGW_KAFKA_PARTITIONS:-1}"
TEMPORAL_PORT="${ZGW_TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${ZGW_TEMPORAL_UI_PORT:-8233}"
TEMPORAL_HTTP_PORT="${ZGW_TEMPORAL_HTTP_PORT:-}"
TEMPORAL_METRICS_PORT="${ZGW_TEMPORAL_METRICS_PORT:-}"
S3_PORT="${ZGW_S3_PORT:-8333}"
START_TIMEOUT="${ZGW_ENGINES_TIMEOUT:-120}"
STOP_TIMEOUT="${ZGW_ENGINES_STOP_TIMEOUT:-30}"

MONGO_HOME="$ENG_CACHE/mongo-java-server-$MONGO_JAVA_SERVER_VERSION"
KAFKA_HOME="$ENG_CACHE/kafka_2.13-$KAFKA_VERSION"
TEMPORAL_HOME="$ENG_CACHE/temporal-cli-$TEMPORAL_CLI_VERSION"
TEMPORAL_BIN="$TEMPORAL_HOME/bin/temporal"
S3_HOME="$ENG_CACHE/seaweedfs-$SEAWEEDFS_VERSION"
S3_BIN="$S3_HOME/bin/weed"

# ------------------------------------------------------------------ helpers
die() { echo "engines.sh: error: $*" >&2; exit 1; }
note() { echo "engines.sh: $*" >&2; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

is_engine() { case "$1" in mongo | kafka | temporal | s3) return 0 ;; *) return 1 ;; esac; }

check_port_var() {
  local name="$1" value="$2"
  [[ "$value" =~ ^[0-9]+$ ]] && ((value > 0 && value < 65536)) || die "$name must be a TCP port number, got '$value'"
}

port_of() {
  case "$1" in
    mongo) echo "$MONGO_PORT" ;;
    kafka) echo "$KAFKA_PORT" ;;
    temporal) echo "$TEMPORAL_PORT" ;;
    s3) echo "$S3_PORT" ;;
  esac
}

log_file() { echo "$LOG_DIR/$1.log"; }
pid_file() { echo "$RUN_DIR/$1.pid"; }

# A string that is in the engine's command line (and in no other process's), so a pid
# file can be trusted after pid reuse and a lost pid file can be recovered.
marker_of() {
  case "$1" in
    mongo | kafka) echo "-Dzgw.engine=$1@$DATA_DIR" ;;
    temporal) echo "--db-filename $DATA_DIR/temporal/temporal.db" ;;
    s3) echo "-dir=$DATA_DIR/s3/data" ;;
  esac
}

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

pid_matches() {
  local pid="$1" name="$2"
  [[ -n "$pid" && "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(cmdline_of "$pid") " == *"$(marker_of "$name") "* ]]
}

# Prints the pid of the running engine (pid file first, then a scan of /proc), or nothing.
find_pid() {
  local name="$1" pf pid
  pf="$(pid_file "$name")"
  if [[ -f "$pf" ]]; then
    pid="$(cat "$pf" 2>/dev/null || true)"
    if pid_matches "$pid" "$name"; then
      echo "$pid"
      return 0
    fi
  fi
  # no (valid) pid file: look for the process itself
  local candidates
  if command -v pgrep >/dev/null 2>&1; then
    candidates="$(pgrep -f -- "$(marker_of "$name" | sed 's/[][\.*^$+?(){}|]/\\&/g')" || true)"
  else
    candidates="$(for p in /proc/[0-9]*; do echo "${p#/proc/}"; done)"
  fi
  for pid in $candidates; do
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
    if pid_matches "$pid" "$name"; then
      if [[ -d "$RUN_DIR" ]]; then echo "$pid" >"$pf"; fi
      echo "$pid"
      return 0
    fi
  done
  return 0
}

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null; }

with_lock() {
  # with_lock <lockfile> <cmd...>: serialise concurrent engines.sh runs (fd 9; children close it)
  local lock="$1"
  shift
  if command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$lock")"
    (
      exec 9>"$lock"
      flock 9
      "$@"
    )
  else
    "$@"
  fi
}

safe_rm_data() {
  # safe_rm_data <dir>: refuse to wipe anything that is not clearly a data dir
  local d="$1"
  [[ -n "$d" && "$d" != "/" && "$d" != "$HOME" && "$d" != "$REPO_ROOT" && "$d" != "$CACHE_DIR" ]] ||
    die "refusing to delete '$d'"
  rm -rf -- "$d"
}

# ------------------------------------------------------------------ toolchains
apt_install() {
  command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] ||
    die "missing $*; install it (Debian: apt-get install $*)"
  note "installing Debian packages: $* (apt-get)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >&2 ||
    die "apt-get install $* failed"
}

need_java() {
  local v
  if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    apt_install openjdk-17-jdk-headless
  fi
  v="$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ { print $2 }')"
  [[ "${v%%.*}" =~ ^[0-9]+$ ]] && ((${v%%.*} >= 17)) || die "Java 17+ is needed (found '${v:-none}')"
}

need_maven() {
  need_java
  command -v mvn >/dev/null 2>&1 || apt_install maven
}

need_go() {
  command -v go >/dev/null 2>&1 ||
    die "Go is needed to build the Temporal CLI and SeaweedFS; Go 1.21+ fetches the toolchain it needs itself"
}

# ------------------------------------------------------------------ install
# Each engine is installed into its own versioned folder under $ENG_CACHE, built in a
# temp folder and renamed into place, with a stamp that also covers the helper sources
# under scripts/engines/ (a changed helper triggers a reinstall).

stamp_of() {
  local name="$1" files=()
  case "$name" in
    mongo) mapfile -t files < <(find "$STORE_SRC/pom.xml" "$STORE_SRC/src/main" -type f | LC_ALL=C sort) ;;
    kafka) files=("$ENGINES_SRC/kafka/pom.xml" "$ENGINES_SRC/kafka/KafkaReady.java"
      "$ENGINES_SRC/kafka/log4j.properties" "$ENGINES_SRC/kafka/tools-log4j.properties") ;;
    temporal | s3) files=() ;;
  esac
  {
    case "$name" in
      mongo) echo "mongo-java-server $MONGO_JAVA_SERVER_VERSION" ;;
      kafka) echo "kafka $KAFKA_VERSION slf4j-reload4j $SLF4J_RELOAD4J_VERSION" ;;
      temporal) echo "temporal-cli $TEMPORAL_CLI_VERSION" ;;
      s3) echo "seaweedfs $SEAWEEDFS_VERSION" ;;
    esac
    ((${#files[@]} == 0)) || cat "${files[@]}"
  } | sha256sum | cut -c1-16
}

home_of() {
  case "$1" in
    mongo) echo "$MONGO_HOME" ;;
    kafka) echo "$KAFKA_HOME" ;;
    temporal) echo "$TEMPORAL_HOME" ;;
    s3) echo "$S3_HOME" ;;
  esac
}

is_installed() {
  local home
  home="$(home_of "$1")"
  [[ -f "$home/.installed" && "$(cat "$home/.installed")" == "$(stamp_of "$1")" ]]
}

install_log() { echo "$ENG_CACHE/logs/install-$1.log"; }

run_logged() {
  # run_logged <name> <cmd...>: output to the install log; on failure show its tail
  local name="$1" lf
  shift
  lf="$(install_log "$name")"
  echo "+ $*" >>"$lf"
  if ! "$@" >>"$lf" 2>&1; then
    echo "---- last lines of $lf ----" >&2
    tail -n 30 "$lf" >&2 || true
    die "installing $name failed while running: $1 ... (full log: $lf)"
  fi
}

mvn_copy_deps() {
  # mvn_copy_deps <name> <pom> <outdir> <-Dprop=...>...
  local name="$1" pom="$2" out="$3"
  shift 3
  run_logged "$name" mvn -B -q -Dstyle.color=never -f "$pom" "$@" \
    "$MAVEN_DEPENDENCY_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$out"
  # the plugin may leave target/ next to the pom: keep the repo clean
  rm -rf "$(dirname "$pom")/target"
}

install_mongo() {
  local tmp="$MONGO_HOME.tmp.$$"
  need_maven
  rm -rf "$tmp" && mkdir -p "$tmp"
  # the store's jar (the library in it), built outside the repository; its tests run in npm test
  run_logged mongo mvn -B -q -Dstyle.color=never -f "$STORE_SRC/pom.xml" -Dstore.build="$tmp/build" -DskipTests \
    -Dmongo-java-server.version="$MONGO_JAVA_SERVER_VERSION" package
  mv "$tmp/build/local-store.jar" "$tmp/local-store.jar" && rm -rf "$tmp/build"
  stamp_of mongo >"$tmp/.installed"
  rm -rf "$MONGO_HOME" && mv "$tmp" "$MONGO_HOME"
}

install_kafka() {
  local tmp="$KAFKA_HOME.tmp.$$"
  need_maven
  rm -rf "$tmp" && mkdir -p "$tmp/lib" "$tmp/classes" "$tmp/config"
  mvn_copy_deps kafka "$ENGINES_SRC/kafka/pom.xml" "$tmp/lib" \
    -Dkafka.version="$KAFKA_VERSION" -Dslf4j.version="$SLF4J_RELOAD4J_VERSION"
  run_logged kafka javac -nowarn -d "$tmp/classes" -cp "$tmp/lib/*" "$ENGINES_SRC/kafka/KafkaReady.java"
  cp "$ENGINES_SRC/kafka/log4j.properties" "$ENGINES_SRC/kafka/tools-log4j.properties" "$tmp/config/"
  stamp_of kafka >"$tmp/.installed"
  rm -rf "$KAFKA_HOME" && mv "$tmp" "$KAFKA_HOME"
}

install_temporal() {
  local tmp="$TEMPORAL_HOME.tmp.$$"
  need_go
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  # GOFLAGS from the caller's environment could break `go install pkg@version`
  run_logged temporal env GOFLAGS= CGO_ENABLED=0 GOBIN="$tmp/bin" go install -trimpath \
    -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
    "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION"
  [[ -x "$tmp/bin/temporal" ]] || die "go install did not produce $tmp/bin/temporal"
  stamp_of temporal >"$tmp/.installed"
  rm -rf "$TEMPORAL_HOME" && mv "$tmp" "$TEMPORAL_HOME"
}

install_s3() {
  local tmp="$S3_HOME.tmp.$$" dir
  need_go
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  # `go install` refuses the module's replace directives: download the module and build ./weed inside it
  run_logged s3 env GOFLAGS= go mod download "github.com/seaweedfs/seaweedfs@$SEAWEEDFS_VERSION"
  dir="$(env GOFLAGS= go mod download -json "github.com/seaweedfs/seaweedfs@$SEAWEEDFS_VERSION" |
    awk -F'"' '$2 == "Dir" { print $4 }')"
  [[ -d "$dir/weed" ]] || die "go mod download gave no module folder for seaweedfs $SEAWEEDFS_VERSION"
  cp -r "$dir" "$tmp/src" && chmod -R u+w "$tmp/src"
  (cd "$tmp/src" && run_logged s3 env GOFLAGS= CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/bin/weed" ./weed)
  rm -rf "$tmp/src"
  [[ -x "$tmp/bin/weed" ]] || die "go build did not produce $tmp/bin/weed"
  stamp_of s3 >"$tmp/.installed"
  rm -rf "$S3_HOME" && mv "$tmp" "$S3_HOME"
}

ensure_installed() {
  local name="$1"
  is_installed "$name" && return 0
  with_lock "$ENG_CACHE/.install.lock" ensure_installed_locked "$name"
}

ensure_installed_locked() {
  local name="$1" t0 hint
  is_installed "$name" && return 0 # another run installed it while we waited for the lock
  mkdir -p "$ENG_CACHE/logs"
  : >"$(install_log "$name")"
  case "$name" in
    mongo) hint="mongo-java-server $MONGO_JAVA_SERVER_VERSION (Maven Central)" ;;
    kafka) hint="Kafka $KAFKA_VERSION (Maven Central)" ;;
    temporal) hint="Temporal CLI $TEMPORAL_CLI_VERSION (go install; the first build takes a few minutes)" ;;
    s3) hint="SeaweedFS $SEAWEEDFS_VERSION (go build; the first build takes about four minutes)" ;;
  esac
  note "installing $hint into $(home_of "$name") ..."
  t0="$(now)"
  "install_$name"
  note "installed $name in $(elapsed "$t0")"
}

# ------------------------------------------------------------------ readiness probes
mongo_answers() {
  # OP_MSG {isMaster: 1, $db: "admin"} over /dev/tcp; the reply must carry maxWireVersion
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "\x37\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x22\x00\x00\x00\x10isMaster\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
    dd bs=65536 count=1 status=none <&3 | grep -aq maxWireVersion
  ' "$HOST" "$MONGO_PORT" 2>/dev/null
}

kafka_java() {
  # kafka_java <jvm args...> <main class> <args...>
  java -cp "$KAFKA_HOME/lib/*:$KAFKA_HOME/classes" "$@"
}

kafka_answers() {
  # kafka_answers <timeout ms>: a Metadata request (describeCluster + listTopics) succeeds
  local ms="${1:-3000}"
  port_open "$KAFKA_PORT" || return 1
  kafka_java -Xms32m -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Dlog4j.configuration="file:$KAFKA_HOME/config/tools-log4j.properties" \
    KafkaReady "$HOST:$KAFKA_PORT" "$ms" >/dev/null 2>&1
}

temporal_cli() {
  "$TEMPORAL_BIN" --disable-config-file --disable-config-env --color never "$@"
}

temporal_answers() {
  port_open "$TEMPORAL_PORT" || return 1
  temporal_cli operator cluster health --address "$HOST:$TEMPORAL_PORT" \
    --command-timeout 3s 2>/dev/null | grep -q SERVING || return 1
  temporal_cli operator namespace describe --namespace default --address "$HOST:$TEMPORAL_PORT" \
    --command-timeout 3s >/dev/null 2>&1
}

http_get() {
  # http_get <port> <path>: the raw answer to a GET (HTTP/1.0, so the server closes when done)
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3
    cat <&3
  ' "$HOST" "$1" "$2" 2>/dev/null
}

http_answers() {
  # http_answers <port>: any HTTP status line comes back
  [[ "$(http_get "$1" /)" == HTTP/1* ]]
}

s3_answers() {
  # the S3 gateway and the filer behind it answer, and the master has a volume server (so a write can land)
  http_answers "$S3_PORT" && http_answers "$((S3_PORT + 3))" &&
    [[ "$(http_get "$((S3_PORT + 1))" /dir/status)" == *'"DataNodes":[{'* ]]
}

answers() {
  case "$1" in
    mongo) mongo_answers ;;
    kafka) kafka_answers 3000 ;;
    temporal) temporal_answers ;;
    s3) s3_answers ;;
  esac
}

address_of() {
  case "$1" in
    mongo) echo "mongodb://$HOST:$MONGO_PORT" ;;
    kafka) echo "$HOST:$KAFKA_PORT" ;;
    temporal)
      if [[ "$TEMPORAL_UI_PORT" != 0 ]]; then
        echo "$HOST:$TEMPORAL_PORT (UI http://$HOST:$TEMPORAL_UI_PORT)"
      else
        echo "$HOST:$TEMPORAL_PORT"
      fi
      ;;
    s3) echo "http://$HOST:$S3_PORT" ;;
  esac
}

# ------------------------------------------------------------------ launch
launch() {
  # launch <name> <cmd...>: detached (own session), output appended to the log, pid file
  local name="$1" lf pf i
  shift
  lf="$(log_file "$name")"
  pf="$(pid_file "$name")"
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  rm -f "$pf"
  echo "==== $(date -u +%Y-%m-%dT%H:%M:%SZ) engines.sh starting $name: $*" >>"$lf"
  # the child writes its own pid, then execs the engine (so the pid stays the engine's)
  setsid nohup bash -c 'echo $$ >"$0"; exec "$@"' "$pf" "$@" >>"$lf" 2>&1 </dev/null 9>&- &
  for i in $(seq 1 50); do
    [[ -s "$pf" ]] && return 0
    sleep 0.1
  done
  die "$name did not start (no pid file $pf); see log: $lf"
}

start_mongo() {
  local args=(--host "$HOST" --port "$MONGO_PORT" --backend "$MONGO_BACKEND" --server-version "$MONGO_SERVER_VERSION")
  mkdir -p "$DATA_DIR/mongo"
  [[ "$MONGO_BACKEND" != durable ]] || args+=(--dir "$DATA_DIR/mongo/store" --fsync "$MONGO_FSYNC")
  [[ ! -f "$DATA_DIR/mongo/mongo.mv" ]] ||
    note "mongo: $DATA_DIR/mongo/mongo.mv is a store of the former H2 backend and is not read; the data is in $DATA_DIR/mongo/store (delete mongo.mv)"
  # G1 (unless ZGW_MONGO_JAVA_OPTS chooses another collector): the indexes are a large set that lives long, which G1
  # collects a region at a time where the parallel collector compacted all of it at once (at 1,000,000 documents a
  # start 39 s with it, 23 s with G1); and a first heap sized for what the start builds (the indexes: the documents
  # stay in the files, read through memory maps; about 1.5 times the store's files leaves room for building them), so
  # loading is not a series of collections while the heap grows; a small store starts small.
  local gc=(-XX:+UseG1GC)
  [[ ! "${ZGW_MONGO_JAVA_OPTS:-}" =~ -XX:\+Use[A-Za-z0-9]*GC ]] || gc=()
  local store_mb heap_mb xms_mb
  store_mb=0
  [[ ! -d "$DATA_DIR/mongo/store" ]] || store_mb=$(du -sm "$DATA_DIR/mongo/store" | awk '{ print $1 }')
  heap_mb=$(awk -v h="$MONGO_HEAP" 'BEGIN { n = h + 0; u = tolower(substr(h, length(h))); print (u == "g" ? n * 1024 : u == "m" ? n : u == "k" ? int(n / 1024) : int(n / 1048576)) }')
  xms_mb=$(awk -v s="$store_mb" -v h="$heap_mb" 'BEGIN { x = int(s * 1.5); if (x < 64) x = 64; if (x > h) x = h; print x }')
  launch mongo java "$(marker_of mongo)" -Xms"${xms_mb}m" -Xmx"$MONGO_HEAP" "${gc[@]}" \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true "${MONGO_JAVA_OPTS[@]}" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="$MONGO_LOG_LEVEL" -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Dorg.slf4j.simpleLogger.log.de.bwaldvogel.mongo.wire.MongoExceptionHandler=off \
    -cp "$MONGO_HOME/local-store.jar" zgw.store.MongoLauncher "${args[@]}"
}

write_kafka_config() {
  local dir="$DATA_DIR/kafka"
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<EOF
# generated by scripts/engines.sh on every start - edit the script, not this file
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=$KAFKA_PARTITIONS
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=2
log.retention.hours=168
log.segment.bytes=104857600
log.cleaner.dedupe.buffer.size=16777216
EOF
}

start_kafka() {
  local dir="$DATA_DIR/kafka" lf
  lf="$(log_file kafka)"
  mkdir -p "$LOG_DIR"
  write_kafka_config
  if [[ ! -f "$dir/data/meta.properties" ]]; then
    # format once; --ignore-formatted keeps existing data
    if ! kafka_java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
      -Dlog4j.configuration="file:$KAFKA_HOME/config/tools-log4j.properties" \
      kafka.tools.StorageTool format --ignore-formatted -t "$KAFKA_CLUSTER_ID" \
      -c "$dir/server.properties" >>"$lf" 2>&1; then
      die "formatting the Kafka storage in $dir/data failed; see log: $lf"
    fi
  fi
  launch kafka java "$(marker_of kafka)" -Xms256m -Xmx"$KAFKA_HEAP" -XX:+UseG1GC \
    -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$KAFKA_HOME/config/log4j.properties" -Dkafka.logs.dir="$LOG_DIR" \
    -cp "$KAFKA_HOME/lib/*" kafka.Kafka "$dir/server.properties"
}

start_temporal() {
  local args=(server start-dev --ip "$HOST" --port "$TEMPORAL_PORT"
    --db-filename "$DATA_DIR/temporal/temporal.db" --log-format text --log-level warn
    --search-attribute ZaakIdentificatie=Keyword)  # finds a transfer by its zaak (docs/transfers.md)
  mkdir -p "$DATA_DIR/temporal"
  if [[ "$TEMPORAL_UI_PORT" == 0 ]]; then
    args+=(--headless)
  else
    args+=(--ui-port "$TEMPORAL_UI_PORT")
  fi
  [[ -z "$TEMPORAL_HTTP_PORT" ]] || args+=(--http-port "$TEMPORAL_HTTP_PORT")
  [[ -z "$TEMPORAL_METRICS_PORT" ]] || args+=(--metrics-port "$TEMPORAL_METRICS_PORT")
  # the CLI reads TEMPORAL_* client settings from the environment; the server needs none
  launch temporal env -u TEMPORAL_ADDRESS -u TEMPORAL_NAMESPACE "$TEMPORAL_BIN" "${args[@]}"
}

start_s3() {
  local dir="$DATA_DIR/s3"
  mkdir -p "$dir/data"
  # generated on every start: the engine's one identity, the credentials `env` prints
  cat >"$dir/s3.json" <<EOF
{"identities": [{"name": "zgw", "credentials": [{"accessKey": "$S3_LOCAL_ACCESS_KEY", "secretKey": "$S3_LOCAL_SECRET_KEY"}],
  "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
EOF
  # master, volume and filer on the three ports after the S3 one, gRPC on each port + 10000, local sockets in the
  # data dir; no telemetry, no Iceberg or Lance catalogs; volumes of 1 GB grown as needed
  launch s3 "$S3_BIN" server "$(marker_of s3)" -ip="$HOST" -ip.bind="$HOST" -master.telemetry=false \
    -master.port="$((S3_PORT + 1))" -master.port.grpc="$((S3_PORT + 10001))" -master.volumeSizeLimitMB=1024 \
    -volume.port="$((S3_PORT + 2))" -volume.port.grpc="$((S3_PORT + 10002))" -volume.max=0 \
    -filer -filer.port="$((S3_PORT + 3))" -filer.port.grpc="$((S3_PORT + 10003))" -filer.localSocket="$dir/filer.sock" \
    -s3 -s3.port="$S3_PORT" -s3.port.grpc="$((S3_PORT + 10000))" -s3.localSocket="$dir/s3.sock" \
    -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$dir/s3.json"
}

wait_ready() {
  # wait_ready <name> <start time>: until it answers, dies, or the timeout passes
  local name="$1" t0="$2" pid deadline lf ms
  lf="$(log_file "$name")"
  pid="$(cat "$(pid_file "$name")" 2>/dev/null || true)"
  deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "---- last lines of $lf ----" >&2
      tail -n 25 "$lf" >&2 || true
      rm -f "$(pid_file "$name")"
      die "$name exited while starting; see log: $lf"
    fi
    case "$name" in
      kafka)
        # one JVM that retries by itself (cheaper than a JVM per poll)
        ms=$(((deadline - SECONDS) * 1000))
        ((ms <= 10000)) || ms=10000
        ((ms >= 1000)) || ms=1000
        if port_open "$KAFKA_PORT" && kafka_answers "$ms"; then break; fi
        ;;
      *) if answers "$name"; then break; fi ;;
    esac
    if ((SECONDS >= deadline)); then
      die "$name (pid $pid) did not answer on $(address_of "$name") within ${START_TIMEOUT}s; see log: $lf"
    fi
    sleep 0.2
  done
  echo "$(printf '%-8s' "$name") ready    $(address_of "$name")  (pid $pid, $(elapsed "$t0"))"
}

check_port_free() {
  local name="$1" port
  shift
  for port in "$@"; do
    if port_open "$port"; then
      die "cannot start $name: $HOST:$port is already in use by another process (not one started by engines.sh for $DATA_DIR); stop it or set the ZGW_*_PORT variables"
    fi
  done
}

ports_needed() {
  case "$1" in
    mongo) echo "$MONGO_PORT" ;;
    kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT" ;;
    temporal)
      echo "$TEMPORAL_PORT"
      [[ "$TEMPORAL_UI_PORT" == 0 ]] || echo "$TEMPORAL_UI_PORT"
      [[ -z "$TEMPORAL_HTTP_PORT" ]] || echo "$TEMPORAL_HTTP_PORT"
      ;;
    s3) for i in 0 1 2 3; do echo "$((S3_PORT + i)) $((S3_PORT + 10000 + i))"; done ;;
  esac
}

wipe_engine_data() {
  local name="$1"
  safe_rm_data "$DATA_DIR/$name"
  rm -f "$(log_file "$name")" "$(pid_file "$name")"
}

# ------------------------------------------------------------------ commands
cmd_install() {
  local name
  for name in "$@"; do
    ensure_installed "$name"
    echo "$(printf '%-8s' "$name") installed  $(home_of "$name")"
  done
}

cmd_start() {
  local name
  for name in "$@"; do ensure_installed "$name"; done
  with_lock "$RUN_DIR/engines.lock" cmd_start_locked "$@"
}

cmd_start_locked() {
  local name pid to_wait=() starts=() i
  if [[ "${ZGW_ENGINES_FRESH:-0}" == 1 ]]; then
    stop_many "$@" >/dev/null
    for name in "$@"; do wipe_engine_data "$name"; done
  fi
  for name in "$@"; do
    pid="$(find_pid "$name")"
    if [[ -n "$pid" ]]; then
      if answers "$name"; then
        echo "$(printf '%-8s' "$name") running  $(address_of "$name")  (pid $pid, already up)"
        continue
      fi
      # running but not answering (yet): wait for it below
      to_wait+=("$name")
      starts+=("$(now)")
      continue
    fi
    # shellcheck disable=SC2046
    check_port_free "$name" $(ports_needed "$name")
    starts+=("$(now)")
    "start_$name"
    to_wait+=("$name")
  done
  for i in "${!to_wait[@]}"; do
    wait_ready "${to_wait[$i]}" "${starts[$i]}"
  done
}

stop_many() {
  # stop_many <names...>: SIGTERM to all at once, wait up to STOP_TIMEOUT, then SIGKILL
  local name pid i t0 deadline names=() pids=()
  t0="$(now)"
  for name in "$@"; do
    pid="$(find_pid "$name")"
    if [[ -z "$pid" ]]; then
      rm -f "$(pid_file "$name")"
      echo "$(printf '%-8s' "$name") stopped  (was not running)"
      continue
    fi
    kill -TERM "$pid" 2>/dev/null || true
    names+=("$name")
    pids+=("$pid")
  done
  deadline=$((SECONDS + STOP_TIMEOUT))
  for i in "${!names[@]}"; do
    name="${names[$i]}"
    pid="${pids[$i]}"
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      note "$name (pid $pid) did not stop within ${STOP_TIMEOUT}s after SIGTERM; sending SIGKILL (see $(log_file "$name"))"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$(pid_file "$name")"
    echo "$(printf '%-8s' "$name") stopped  (pid $pid, $(elapsed "$t0"))"
  done
}

cmd_stop() {
  local i rev=()
  # clients first: temporal, kafka, mongo
  for ((i = $#; i >= 1; i--)); do rev+=("${!i}"); done
  stop_many "${rev[@]}"
}

cmd_stop_locked() {
  if [[ -d "$RUN_DIR" ]]; then
    with_lock "$RUN_DIR/engines.lock" cmd_stop "$@"
  else
    cmd_stop "$@" # nothing was started with this data dir; do not create it
  fi
}

cmd_status() {
  local name pid rc=0 state
  for name in "$@"; do
    pid="$(find_pid "$name")"
    if [[ -z "$pid" ]]; then
      state="stopped"
      rc=3
    elif is_installed "$name" && answers "$name"; then
      state="running  $(address_of "$name")  (pid $pid)"
    else
      state="running  $(address_of "$name")  (pid $pid, NOT answering; see $(log_file "$name"))"
      rc=3
    fi
    echo "$(printf '%-8s' "$name") $state"
  done
  return "$rc"
}

cmd_env() {
  local name
  for name in "$@"; do
    [[ -n "$(find_pid "$name")" ]] || continue
    case "$name" in
      mongo) echo "export MONGODB_URL=mongodb://$HOST:$MONGO_PORT" ;;
      kafka) echo "export KAFKA_BROKERS=$HOST:$KAFKA_PORT" ;;
      temporal) echo "export TEMPORAL_ADDRESS=$HOST:$TEMPORAL_PORT" ;;
      s3)
        echo "export S3_ENDPOINT=http://$HOST:$S3_PORT"
        echo "export S3_FORCE_PATH_STYLE=true"
        echo "export S3_REGION=$S3_LOCAL_REGION"
        echo "export AWS_ACCESS_KEY_ID=$S3_LOCAL_ACCESS_KEY"
        echo "export AWS_SECRET_ACCESS_KEY=$S3_LOCAL_SECRET_KEY"
        ;;
    esac
  done
}

cmd_reset() {
  local name
  cmd_stop "$@" >/dev/null
  if [[ "$ALL_NAMED" == 1 ]]; then
    safe_rm_data "$DATA_DIR"
    echo "reset    removed $DATA_DIR"
  else
    for name in "$@"; do
      wipe_engine_data "$name"
      echo "$(printf '%-8s' "$name") reset    removed $DATA_DIR/$name"
    done
  fi
}

cmd_logs() {
  local name
  for name in "$@"; do echo "$(printf '%-8s' "$name") $(log_file "$name")"; done
}

cmd_restore() {
  local from="$1" store="$DATA_DIR/mongo/store" aside
  [[ -d "$from" ]] || die "restore: no backup folder '$from'"
  compgen -G "$from/journal-*" >/dev/null || die "restore: '$from' holds no backup of the store (no journal-<n> file; made by: npm run admin -- backup <dir>)"
  [[ "$MONGO_BACKEND" == durable ]] || die "restore: ZGW_MONGO_BACKEND=$MONGO_BACKEND keeps nothing to restore into"
  cmd_stop_locked mongo
  mkdir -p "$DATA_DIR/mongo"
  if [[ -d "$store" ]]; then
    aside="$store.before-restore-$(date +%Y%m%d-%H%M%S)"
    mv "$store" "$aside"
    note "the data that was replaced is kept in $aside (remove it when the restore is confirmed)"
  fi
  cp -a "$from" "$store"
  rm -f "$store/LOCK"
  cmd_start mongo
}

usage() {
  sed -n '2,/^# shellcheck/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

main() {
  local cmd="${1:-}" names=() name
  (($# > 0)) && shift
  if [[ "$cmd" == restore ]]; then
    (($# == 1)) || die "usage: engines.sh restore <backup dir>"
    cmd_restore "$1"
    return
  fi
  for name in "$@"; do
    is_engine "$name" || die "unknown engine '$name' (expected: ${ALL_ENGINES[*]})"
    [[ " ${names[*]-} " == *" $name "* ]] || names+=("$name")
  done
  ALL_NAMED=0
  if ((${#names[@]} == 0)); then
    ALL_NAMED=1
    case "$cmd" in
      # what runs is stopped, shown or wiped whatever INHOUD_STORE says now
      stop | env | logs | reset) names=("${ALL_ENGINES[@]}") ;;
      status)
        names=("${DEFAULT_ENGINES[@]}")
        [[ " ${names[*]} " == *" s3 "* || -z "$(find_pid s3)" ]] || names+=(s3)
        ;;
      *) names=("${DEFAULT_ENGINES[@]}") ;;
    esac
  fi
  # keep the canonical order mongo, kafka, temporal, s3
  local ordered=()
  for name in "${ALL_ENGINES[@]}"; do
    [[ " ${names[*]} " == *" $name "* ]] && ordered+=("$name")
  done

  check_port_var ZGW_MONGO_PORT "$MONGO_PORT"
  check_port_var ZGW_KAFKA_PORT "$KAFKA_PORT"
  check_port_var ZGW_KAFKA_CONTROLLER_PORT "$KAFKA_CONTROLLER_PORT"
  check_port_var ZGW_TEMPORAL_PORT "$TEMPORAL_PORT"
  check_port_var ZGW_S3_PORT "$S3_PORT"
  ((S3_PORT + 10003 < 65536)) || die "ZGW_S3_PORT must leave room for its gRPC ports (port + 10003 < 65536)"
  [[ "$TEMPORAL_UI_PORT" == 0 ]] || check_port_var ZGW_TEMPORAL_UI_PORT "$TEMPORAL_UI_PORT"
  [[ -z "$TEMPORAL_HTTP_PORT" ]] || check_port_var ZGW_TEMPORAL_HTTP_PORT "$TEMPORAL_HTTP_PORT"
  [[ -z "$TEMPORAL_METRICS_PORT" ]] || check_port_var ZGW_TEMPORAL_METRICS_PORT "$TEMPORAL_METRICS_PORT"
  [[ "$MONGO_BACKEND" == durable || "$MONGO_BACKEND" == memory ]] || die "ZGW_MONGO_BACKEND must be durable or memory"
  [[ "$MONGO_FSYNC" == on || "$MONGO_FSYNC" == off ]] || die "ZGW_MONGO_FSYNC must be on or off"
  [[ "$START_TIMEOUT" =~ ^[0-9]+$ ]] || die "ZGW_ENGINES_TIMEOUT must be a number of seconds"
  [[ "$STOP_TIMEOUT" =~ ^[0-9]+$ ]] || die "ZGW_ENGINES_STOP_TIMEOUT must be a number of seconds"

  case "$cmd" in
    install) cmd_install "${ordered[@]}" ;;
    start) cmd_start "${ordered[@]}" ;;
    stop) cmd_stop_locked "${ordered[@]}" ;;
    restart)
      cmd_stop_locked "${ordered[@]}"
      cmd_start "${ordered[@]}"
      ;;
    status) cmd_status "${ordered[@]}" ;;
    env) cmd_env "${ordered[@]}" ;;
    reset)
      if [[ -d "$RUN_DIR" ]]; then with_lock "$RUN_DIR/engines.lock" cmd_reset "${ordered[@]}"; else cmd_reset "${ordered[@]}"; fi
      ;;
    logs) cmd_logs "${ordered[@]}" ;;
    -h | --help | help) usage ;;
    "") usage >&2; exit 2 ;;
    *) die "unknown command '$cmd' (install|start|stop|restart|status|env|reset|logs|restore)" ;;
  esac
}

main "$@"

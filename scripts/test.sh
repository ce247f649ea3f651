#!/usr/bin/env bash
# Runs every test against the real engines (or those named: `npm test -- <path or pattern>`): type check (sources and
# tests), the import check, lint and format, then jest
# (tests that stop an engine run alone, last; then the Documenten tests again with their content on S3),
# then the query-index check on every query shape the tests sent, the local store's own check that every query
# it answered from an index it answered as a scan does, and the contract check of every Kafka message the tests
# caused against the AsyncAPI document (see docs/development.md).
# Engines: MONGODB_URL + KAFKA_BROKERS when set; else testcontainers where Docker runs; else scripts/engines.sh.
# Browser: Debian's chromium for the end-to-end tests (scripts/browser.sh installs it when missing).
set -uo pipefail
cd "$(dirname "$0")/.."
# The types of a client generated from the standard's files (generated-client.test.ts), made before they are checked.
bash scripts/clients.sh || { echo "clients: 0 passed, 1 failed"; exit 1; }
npx tsc -b && npx tsc -p tsconfig.test.json || { echo "typecheck: 0 passed, 1 failed"; exit 1; }
# No import circle, and no component importing another's files (scripts/import-check.js).
node scripts/import-check.js || { rc_imports=1; }
# Lint (ESLint, type-aware: eslint.config.mjs) and format (Prettier: `npm run format` mends it) of every TypeScript file.
if npm run -s lint; then echo "lint: 1 passed, 0 failed"; else echo "lint: 0 passed, 1 failed"; rc_imports=1; fi
# The documentation: links between README.md, CHANGELOG.md and docs/ resolve, every configuration key is documented.
node scripts/docs-check.js || rc_imports=1
# The end-to-end tests of the admin screens drive Debian's chromium (installed here when missing; see browser.sh).
ZGW_CHROMIUM=$(bash scripts/browser.sh) || echo "test: no browser; the end-to-end tests of the admin screens will fail" >&2
export ZGW_CHROMIUM
summary=$(mktemp)
queries=$(mktemp -d)
export ZGW_TEST_SUMMARY="$summary"
export ZGW_QUERY_LOG="$queries"
# The local store started for the tests answers every query it serves from an index by a scan too, and compares.
export ZGW_MONGO_VERIFY=1
rc=${rc_imports:-0}
since=$(($(date +%s) * 1000))
# Engines: those not running yet are started here and stopped at the end; those already running keep running.
started=()
if [ -z "${MONGODB_URL:-}" ] && [ -z "${KAFKA_BROKERS:-}" ] && ! docker info > /dev/null 2>&1; then
  for e in mongo kafka temporal; do bash scripts/engines.sh status "$e" > /dev/null 2>&1 || started+=("$e"); done
  bash scripts/engines.sh start mongo kafka temporal || { echo "engines: 0 passed, 1 failed"; exit 1; }
  eval "$(bash scripts/engines.sh env)"
  export ZGW_ENGINES_MANAGED=1
fi
# Document content on S3 (the Documenten tests run again with INHOUD_STORE=s3, and tests of S3 itself): the S3 that
# S3_ENDPOINT names, else the local S3 engine.
if [ -z "${S3_ENDPOINT:-}" ]; then
  bash scripts/engines.sh status s3 > /dev/null 2>&1 || started+=(s3)
  bash scripts/engines.sh start s3 || { echo "engines: 0 passed, 1 failed"; exit 1; }
  eval "$(bash scripts/engines.sh env s3)"
fi
# The local store's own JUnit tests (local-store/: the journal, the planner), built outside the repository; on a whole
# run only. Their counts come from surefire's reports; none (Maven missing, the build failed) is a failure.
if [ $# -eq 0 ]; then
  store_build=$(mktemp -d)
  command -v mvn > /dev/null 2>&1 && mvn -B -q -Dstyle.color=never -f local-store/pom.xml -Dstore.build="$store_build" test \
    > "$store_build/mvn.log" 2>&1 || tail -40 "$store_build/mvn.log" 2> /dev/null
  node -e '
    const fs = require("node:fs"), dir = process.argv[1] + "/surefire-reports";
    let tests = 0, failed = 0;
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".xml")) : []) {
      const suite = /<testsuite [^>]*/.exec(fs.readFileSync(`${dir}/${f}`, "utf8"))[0];
      const n = (k) => Number(new RegExp(` ${k}="([0-9]+)"`).exec(suite)?.[1] ?? 0);
      tests += n("tests");
      failed += n("failures") + n("errors");
    }
    if (!tests) failed = 1;
    console.log(`local-store: ${Math.max(tests - failed, 0)} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  ' "$store_build" || rc=1
  rm -rf "$store_build"
fi
stop_started() {
  [ ${#started[@]} -eq 0 ] || bash scripts/engines.sh stop "${started[@]}"
}
trap stop_started EXIT
if [ $# -gt 0 ]; then
  # Only the tests named (paths or patterns, and any other jest option), one at a time.
  npx jest --forceExit --runInBand "$@" || rc=1
else
  npx jest --forceExit --testPathIgnorePatterns 'outage|tenants-adversarial' || rc=1
  npx jest --forceExit --runInBand --testPathPatterns outage || rc=1
  # Two organisations, one attacking the other over every route of the route table (tenants-adversarial.test.ts): its
  # own line, counting its cases.
  adversarial=$(mktemp)
  ZGW_ADVERSARIAL_SUMMARY="$adversarial" npx jest --forceExit --runInBand --testPathPatterns tenants-adversarial || rc=1
  if [ -s "$adversarial" ]; then cat "$adversarial"; else echo "tenants-adversarial: 0 passed, 1 failed"; rc=1; fi
  rm -f "$adversarial"
  # the Documenten tests once more, with document content on S3
  INHOUD_STORE=s3 npx jest --forceExit --testPathPatterns 'services/api/test/documenten' || rc=1
fi
awk '{p+=$1; f+=$2} END {printf "tests: %d passed, %d failed\n", p, f}' "$summary"
node scripts/query-check.js "$queries" ${1+--allow-empty} || rc=1
[ -n "${MONGODB_URL:-}" ] || eval "$(bash scripts/engines.sh env 2>/dev/null)"
node scripts/store-check.js || rc=1
node scripts/asyncapi-check.js --since "$since" || rc=1
rm -rf "$summary" "$queries"
exit $rc

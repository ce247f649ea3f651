#!/usr/bin/env bash
# Property-based fuzzing of every OpenAPI document the platform serves, with schemathesis (from PyPI, pinned,
# installed once into a virtualenv under the engines' cache directory). Runs against an API that is up:
#   BASE            the API (default http://127.0.0.1:8000)
#   FUZZ_CLIENT_ID  a client with all rights, and its secret FUZZ_SECRET (default the CI's conformance client)
#   FUZZ_SECONDS    the budget of each document (default 40; thirteen documents: about 10 minutes in all)
#   FUZZ_ONLY       the names of the documents to fuzz, comma-separated (default all; names as in DOCUMENTS below)
#   FUZZ_REPORTS    where the JUnit reports and logs go (default reports/fuzz)
# Checks: no 5xx, every response matches its operation in the served document, and a method an operation does not
# declare is answered 405 with an Allow header. Prints "fuzz: N passed, N failed" (operations over all documents)
# and exits non-zero on any failure. Requests the API refuses for reasons of the data (a URL that does not resolve)
# are right and counted by schemathesis as warnings, listed in each document's log.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VERSION=4.32.5
CACHE="${ZGW_CACHE_DIR:-$HOME/.cache/zgw}"
VENV="$CACHE/schemathesis-$VERSION"
BASE="${BASE:-http://127.0.0.1:8000}"
CLIENT_ID="${FUZZ_CLIENT_ID:-zgw_api_tests}"
SECRET="${FUZZ_SECRET:-secret}"
SECONDS_EACH="${FUZZ_SECONDS:-40}"
OUT="${FUZZ_REPORTS:-$ROOT/reports/fuzz}"
mkdir -p "$OUT"

if [[ ! -x "$VENV/bin/schemathesis" ]]; then
  echo "fuzz.sh: installing schemathesis $VERSION (PyPI) into $VENV ..." >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2 || {
    echo "fuzz: 0 passed, 1 failed"; echo "fuzz.sh: could not install schemathesis $VERSION" >&2; exit 1;
  }
fi

# A token of the client, as every ZGW client makes one (HS256, client_id and iat).
TOKEN=$(CLIENT_ID="$CLIENT_ID" SECRET="$SECRET" node -e "
const { createSigner } = require('fast-jwt');
const sign = createSigner({ key: process.env.SECRET, algorithm: 'HS256' });
process.stdout.write(sign({ iss: process.env.CLIENT_ID, client_id: process.env.CLIENT_ID, user_id: 'fuzz', user_representation: 'Fuzz', iat: Math.floor(Date.now() / 1000) }));
") || { echo "fuzz: 0 passed, 1 failed"; exit 1; }

# name | document | extra header. Autorisaties last: its fuzzing may change the fuzzing client's own applicatie.
DOCUMENTS=(
  "zaken|zaken/api/v1/schema/openapi.json|"
  "zaken-1.7|zaken/api/v1/schema/1.7.0/openapi.json|Api-Version: 1.7.0"
  "catalogi|catalogi/api/v1/schema/openapi.json|"
  "catalogi-1.3.3|catalogi/api/v1/schema/1.3.3/openapi.json|Api-Version: 1.3.3"
  "documenten-1.5|documenten/api/v1/schema/1.5.0/openapi.json|Api-Version: 1.5.0"
  "documenten-1.7|documenten/api/v1/schema/1.7.0/openapi.json|Api-Version: 1.7.0"
  "besluiten|besluiten/api/v1/schema/openapi.json|"
  "besluiten-1.1|besluiten/api/v1/schema/1.1.0/openapi.json|Api-Version: 1.1.0"
  "notificaties|notificaties/api/v1/schema/openapi.json|"
  "notificaties-1.0.1|notificaties/api/v1/schema/1.0.1/openapi.json|Api-Version: 1.0.1"
  "overdrachten|overdrachten/api/v1/schema/openapi.json|"
  "referentielijsten|referentielijsten/api/v1/schema/openapi.json|"
  "autorisaties|autorisaties/api/v1/schema/openapi.json|"
)

passed=0; failed=0; rc=0
for entry in "${DOCUMENTS[@]}"; do
  IFS='|' read -r name path header <<< "$entry"
  if [[ -n "${FUZZ_ONLY:-}" && ",$FUZZ_ONLY," != *",$name,"* ]]; then continue; fi
  rm -rf "$OUT/$name"; mkdir -p "$OUT/$name"
  args=(run "$BASE/$path" -H "Authorization: Bearer $TOKEN" -H "Accept-Crs: EPSG:4326" -H "Content-Crs: EPSG:4326"
        --checks not_a_server_error,response_schema_conformance,unsupported_method
        --max-time "$SECONDS_EACH" --request-timeout 30 --report junit --report-dir "$OUT/$name")
  [[ -n "$header" ]] && args+=(-H "$header")
  (cd "$OUT/$name" && timeout $((SECONDS_EACH + 120)) "$VENV/bin/schemathesis" --no-color "${args[@]}") > "$OUT/$name.log" 2>&1
  status=$?
  counts=$(python3 - "$OUT/$name" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
files = glob.glob(sys.argv[1] + "/*.xml")
if not files:
    print("0 1"); sys.exit()
root = ET.parse(files[0]).getroot()
suite = root if root.tag == "testsuite" else root.find("testsuite")
tests = int(suite.get("tests", 0)); bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
print(tests - bad, bad)
PY
)
  read -r p f <<< "$counts"
  # a run that ended badly without reporting a failure (it could not load the document, it timed out) is one
  if [[ $status -ne 0 && $f -eq 0 ]]; then f=1; fi
  # what schemathesis only warns about, counted: e.g. "missing test data 36, schema validation mismatch 10"
  warned=$(sed -n 's/^ *⚠️ \([^:]*\): \([0-9]*\) .*/\2 \1/p' "$OUT/$name.log" | awk '{n=$1; $1=""; sub(/^ /,""); printf "%s%s %s", sep, tolower($0), n; sep=", "}')
  echo "  $name: $p passed, $f failed${warned:+ (warnings: $warned)} (log: ${OUT#$ROOT/}/$name.log)"
  passed=$((passed + p)); failed=$((failed + f))
  if [[ $f -ne 0 ]]; then rc=1; sed -n '/FAILURES/,/WARNINGS\|SUMMARY/p' "$OUT/$name.log" | head -60; fi
done
echo "fuzz: $passed passed, $failed failed"
exit $rc

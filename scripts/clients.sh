#!/usr/bin/env bash
# Generates the TypeScript types of the standard's own OpenAPI files (../shared/specs, or ZGW_SPECS) with
# openapi-typescript, for the test that drives the platform with a client generated from them
# (services/api/test/generated-client.test.ts, with openapi-fetch). They are the standard's, made on each test run,
# not kept in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
SPECS="${ZGW_SPECS:-../shared/specs}"
OUT=services/api/test/generated
mkdir -p "$OUT"
for f in zaken-1.5.1 catalogi-1.3.1 documenten-1.5.0 besluiten-1.0.2 notificaties-1.0.0; do
  [[ -f "$OUT/$f.d.ts" && "$OUT/$f.d.ts" -nt "$SPECS/$f.yaml" ]] && continue
  npx openapi-typescript "$SPECS/$f.yaml" -o "$OUT/$f.d.ts" > /dev/null
done

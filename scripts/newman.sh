#!/usr/bin/env bash
# newman for the VNG collections, with the token issuer stand-in's URL that run.sh does not pass itself
# (the OAS collection mints its token there). Used by .ci/run as NEWMAN.
exec npx --yes newman@6 "$@" --env-var "token-issuer_url=${TOKEN_ISSUER_URL:-http://127.0.0.1:8003/api/v1/register}"

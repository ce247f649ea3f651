#!/usr/bin/env bash
# newman for the VNG collections, with the token issuer stand-in's URL that run.sh does not pass itself
# (the OAS collection mints its token there). Used by .ci/run as NEWMAN.
# With NEWMAN_GLOBALS set, the collection's globals carry over from one run to the next (read from and written back
# to that file), so folders run one by one see what the folders before them set, as in one run of the collection
# (brc-006a creates its zaak from the `zaak_body` that the zrc folder sets).
globals=()
if [[ -n "${NEWMAN_GLOBALS:-}" ]]; then
  [[ -s "$NEWMAN_GLOBALS" ]] && globals+=(--globals "$NEWMAN_GLOBALS")
  globals+=(--export-globals "$NEWMAN_GLOBALS")
fi
exec npx --yes newman@6 "$@" "${globals[@]}" --env-var "token-issuer_url=${TOKEN_ISSUER_URL:-http://127.0.0.1:8003/api/v1/register}"

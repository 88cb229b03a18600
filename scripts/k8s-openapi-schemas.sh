#!/usr/bin/env bash
# The schemas the test server's OpenAPI v3 documents serve for built-in
# kinds (what `kubectl explain` reads): every `components.schemas` entry of
# the Kubernetes OpenAPI v3 documents in the shared data folder
# (`k8s/openapi-v3`, see its README), merged into one minified file.
#
#   scripts/k8s-openapi-schemas.sh [SHARED_DIR]    # default: ../shared
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
jq -c -S -s 'map(.components.schemas) | add' "$shared"/k8s/openapi-v3/*.json \
    > smp-k8s-types/src/server/handlers/openapi_schemas.json

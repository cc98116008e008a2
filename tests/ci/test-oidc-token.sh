#!/bin/sh
# Mint the tokens (mint-tokens.py, PyJWT), then check them (test_oidc_token).
# Usage: test-oidc-token.sh MINT_SCRIPT TEST_PROGRAM
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/ptoidc-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
if ! /usr/bin/python3 -c 'import jwt, cryptography' 2>/dev/null; then
	echo "1..0 # SKIP python3-jwt or python3-cryptography is not installed (Build-Depends)"
	exit 0
fi
/usr/bin/python3 "$1" "$dir" || { echo "Bail out! mint-tokens.py failed"; exit 1; }
"$2" "$dir"

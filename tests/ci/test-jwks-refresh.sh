#!/bin/bash
# postern-ci --refresh-jwks against a throwaway https issuer on loopback
# (oidc-issuer.py, its own CA): the JWKS is written root-owned 0644 and
# equal to what the issuer serves, then left alone while unchanged; every
# bad answer (a discovery document naming another issuer, an http://
# jwks_uri, a redirect, a JWKS with a weak key, one too large, a certificate
# not signed by the given CA, a 404) leaves the old file byte for byte.
#
# Usage: test-jwks-refresh.sh POSTERN_CI MINT_SCRIPT ISSUER_SCRIPT WORK_BASE
set -u
ci="$1"; mint="$2"; issuer_py="$3"; base="$4"
. "$(dirname "$0")/../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (the JWKS file is root's, in a root-owned directory)"
/usr/bin/python3 -c 'import jwt, cryptography' 2>/dev/null ||
	skip_all "python3-jwt or python3-cryptography is not installed (Build-Depends)"
w=$(mktemp -d "$base/ptjwks-XXXXXX")
chmod 755 "$w"
trap 'kill "$server" 2>/dev/null; rm -rf "$w"' EXIT
mkdir -m 755 "$w/etc" "$w/srv" "$w/srv/www" "$w/keys"
/usr/bin/python3 "$mint" "$w/keys" || { echo "Bail out! mint-tokens.py failed"; exit 1; }
/usr/bin/python3 "$issuer_py" "$w/srv" 120 & server=$!
for _ in $(seq 100); do [ -e "$w/srv/port" ] && break; sleep 0.1; done
[ -e "$w/srv/port" ] || { echo "Bail out! the test issuer did not start"; exit 1; }
iss="https://127.0.0.1:$(cat "$w/srv/port")"
www="$w/srv/www"
jwks="$w/etc/gitlab.jwks"
cat > "$w/etc/postern.yaml" <<EOC
ci:
  issuers:
    gitlab: {issuer: $iss, audience: https://release.example.org, jwks: $jwks}
EOC
chmod 644 "$w/etc/postern.yaml"
discovery() {   # discovery ISSUER JWKS_URI
	printf '{"issuer": "%s", "jwks_uri": "%s", "id_token_signing_alg_values_supported": ["RS256"]}' \
		"$1" "$2" > "$www/.well-known_openid-configuration"
}
refresh() {   # sets out, rc
	out=$("$ci" --refresh-jwks -C "$w/etc/postern.yaml" "$@" 2>&1); rc=$?
}

discovery "$iss" "$iss/jwks.json"
cp "$w/keys/jwks.json" "$www/jwks.json"
refresh --cacert "$w/srv/ca.pem"
[ "$rc" = 0 ] && grep -qxF "gitlab: 2 signing keys, written to $jwks" <<<"$out" &&
	cmp -s "$jwks" "$www/jwks.json" && [ "$(stat -c %U:%a "$jwks")" = root:644 ] &&
	ok "the issuer's JWKS is fetched and written, root-owned 0644" || not_ok "first refresh" "rc=$rc $out"
before=$(stat -c %Y.%i "$jwks")
refresh --cacert "$w/srv/ca.pem" --issuer gitlab
[ "$rc" = 0 ] && grep -qxF "gitlab: 2 signing keys, unchanged in $jwks" <<<"$out" &&
	[ "$(stat -c %Y.%i "$jwks")" = "$before" ] &&
	ok "an unchanged JWKS is not rewritten" ||
	not_ok "second refresh" "rc=$rc $out"
cp "$jwks" "$w/kept.jwks"

kept() {   # kept DESCRIPTION WORDS [OPTIONS...]: refused with WORDS, the file unchanged
	local what=$1 words=$2
	shift 2
	refresh "$@"
	[ "$rc" = 1 ] && grep -qF -- "$words" <<<"$out" &&
		grep -qF "ci.issuers.gitlab: the JWKS was not refreshed (the old file stays)" <<<"$out" &&
		cmp -s "$jwks" "$w/kept.jwks" && ok "$what" || not_ok "$what" "rc=$rc $out"
}
kept "a certificate the system does not trust is refused" "SSL"
discovery "https://gitlab.evil.example" "$iss/jwks.json"
kept "a discovery document naming another issuer is refused" "its issuer is not $iss" --cacert "$w/srv/ca.pem"
discovery "$iss" "http://127.0.0.1:1/jwks.json"
kept "an http:// jwks_uri is refused" "no https:// jwks_uri in it" --cacert "$w/srv/ca.pem"
discovery "$iss" "$iss/moved"
kept "a redirect is not followed" "the server answered HTTP 302" --cacert "$w/srv/ca.pem"
discovery "$iss" "$iss/jwks.json"
cp "$w/keys/jwks-weak-rsa.json" "$www/jwks.json"
kept "a JWKS with a weak key does not replace the file" "fewer than 2048 bits" --cacert "$w/srv/ca.pem"
head -c 300000 /dev/zero | tr '\0' ' ' > "$www/jwks.json"
kept "a JWKS larger than 256 KiB is refused" "larger than" --cacert "$w/srv/ca.pem"
rm "$www/jwks.json"
kept "a missing JWKS (404) is refused" "HTTP 404" --cacert "$w/srv/ca.pem"
refresh --issuer gitea
[ "$rc" = 1 ] && grep -qF "gitea: no such issuer under ci.issuers" <<<"$out" &&
	ok "an unknown issuer is named" || not_ok "unknown issuer" "rc=$rc $out"
"$ci" --help >/dev/null && ok "--help exits 0" || not_ok "--help"
finish

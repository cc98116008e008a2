#!/usr/bin/python3
"""Mint the OIDC tokens test_oidc_token checks, with keys made here.

A throwaway issuer: RSA and EC P-256 keys from python3-cryptography, a JWKS
of their public halves, and tokens signed by PyJWT (code postern did not
write), plus the hostile ones PyJWT refuses to make (alg none, HMAC keyed
with the public key, tampered, duplicate claims), assembled by hand.
Writes OUT/jwks.json, OUT/now, OUT/cases.tsv and OUT/<case>.jwt, and
JWKS files that must be refused, OUT/jwks-<case>.json, listed with the
refusal's words in OUT/jwks-cases.tsv.

Usage: mint-tokens.py OUT
"""
import base64
import hashlib
import hmac
import json
import os
import sys

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

OUT = sys.argv[1]
NOW = 1_800_000_000
ISS = "https://gitlab.example.org"
AUD = "https://release.example.org"
GH_ISS = "https://token.actions.githubusercontent.com"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk_of(key, kid):
    j = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())
                   if isinstance(key, rsa.RSAPrivateKey)
                   else jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    j["kid"] = kid
    j["use"] = "sig"
    return j


rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec_key = ec.generate_private_key(ec.SECP256R1())
stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
jwks = {"keys": [jwk_of(rsa_key, "rsa-1"), jwk_of(ec_key, "ec-1"),
                 {"kty": "oct", "kid": "hmac", "k": b64(b"secret")}]}
with open(os.path.join(OUT, "jwks.json"), "w") as f:
    json.dump(jwks, f)
with open(os.path.join(OUT, "now"), "w") as f:
    f.write(str(NOW))


def gitlab_claims(**over):
    c = {"iss": ISS, "aud": AUD, "sub": "project_path:GNOME/gtk:ref_type:tag:ref:4.16.0",
         "iat": NOW - 60, "nbf": NOW - 60, "exp": NOW + 240, "jti": "jti-" + os.urandom(6).hex(),
         "project_path": "GNOME/gtk", "ref": "4.16.0", "ref_type": "tag",
         "ref_protected": "true", "pipeline_id": "812345", "job_id": "4455667",
         "sha": "a" * 40, "user_login": "ebassi", "namespace_path": "GNOME"}
    c.update(over)
    return {k: v for k, v in c.items() if v is not None}


def github_claims(**over):
    c = {"iss": GH_ISS, "aud": AUD, "sub": "repo:gnome/gtk:ref:refs/tags/v4.16.0",
         "iat": NOW - 30, "nbf": NOW - 30, "exp": NOW + 270, "jti": "gh-" + os.urandom(6).hex(),
         "repository": "gnome/gtk", "ref": "refs/tags/v4.16.0", "ref_type": "tag",
         "ref_protected": "true", "run_id": "9988776655", "run_attempt": "1",
         "sha": "b" * 40, "actor": "ebassi",
         "workflow_ref": "gnome/gtk/.github/workflows/release.yml@refs/tags/v4.16.0",
         "environment": "release"}
    c.update(over)
    return c


def signed(claims, key=rsa_key, alg="RS256", kid="rsa-1"):
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid})


def by_hand(header, payload, key=b""):
    """header.payload signed with HMAC-SHA256 under key, or unsigned."""
    head = b64(json.dumps(header).encode()) + "." + b64(payload)
    if header.get("alg") == "HS256":
        return head + "." + b64(hmac.new(key, head.encode(), hashlib.sha256).digest())
    return head + "."


rsa_pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)
good = signed(gitlab_claims())
head, body, sig = good.split(".")
tampered_body = b64(json.dumps(gitlab_claims(project_path="GNOME/evil")).encode())
dup = b'{"iss": "%s", "iss": "https://evil", "aud": "%s"}' % (ISS.encode(), AUD.encode())

# name, forge, expected (ok FIELDS | the refusal's words), token
cases = [
    ("gitlab-rs256", "gitlab",
     "ok project=GNOME/gtk ref=4.16.0 ref_type=tag protected=1 pipeline=812345 job=4455667 user=ebassi",
     good),
    ("gitlab-es256", "gitlab", "ok project=GNOME/gtk ref=4.16.0 ref_type=tag protected=1 "
     "pipeline=812345 job=4455667 user=ebassi", signed(gitlab_claims(), ec_key, "ES256", "ec-1")),
    ("github-tag", "github", "ok project=gnome/gtk ref=v4.16.0 ref_type=tag protected=1 "
     "pipeline=9988776655 job=1 user=ebassi", signed(github_claims())),
    ("unprotected-branch", "gitlab", "ok project=GNOME/gtk ref=main ref_type=branch protected=0 "
     "pipeline=812345 job=4455667 user=ebassi",
     signed(gitlab_claims(ref="main", ref_type="branch", ref_protected="false"))),
    ("aud-array-of-one", "gitlab", "ok project=GNOME/gtk ref=4.16.0 ref_type=tag protected=1 "
     "pipeline=812345 job=4455667 user=ebassi", signed(gitlab_claims(aud=[AUD]))),
    ("aud-array-of-two", "gitlab", "audience is not", signed(gitlab_claims(aud=[AUD, "x"]))),
    ("wrong-audience", "gitlab", "audience is not", signed(gitlab_claims(aud="https://other"))),
    ("wrong-issuer", "gitlab", "issuer is not", signed(gitlab_claims(iss="https://gitlab.evil"))),
    ("github-token-to-gitlab", "gitlab", "issuer is not", signed(github_claims())),
    ("expired", "gitlab", "expired", signed(gitlab_claims(iat=NOW - 900, nbf=NOW - 900,
                                                          exp=NOW - 600))),
    ("not-yet-valid", "gitlab", "not valid for another",
     signed(gitlab_claims(nbf=NOW + 600, iat=NOW + 600, exp=NOW + 900))),
    ("too-long-lived", "gitlab", "lives longer than",
     signed(gitlab_claims(exp=NOW + 86400 * 30))),
    ("no-exp", "gitlab", "no exp or no iat", signed(gitlab_claims(exp=None))),
    ("no-jti", "gitlab", "no usable jti", signed(gitlab_claims(jti=None))),
    ("no-project", "gitlab", "project_path claim", signed(gitlab_claims(project_path=None))),
    ("control-in-project", "gitlab", "project_path claim",
     signed(gitlab_claims(project_path="GNOME/\u009bgtk"))),
    ("numeric-ref-protected", "gitlab", "ref_protected", signed(gitlab_claims(ref_protected=True))),
    ("unknown-kid", "gitlab", "not among", signed(gitlab_claims(), stranger, "RS256", "rsa-9")),
    ("stranger-with-known-kid", "gitlab", "does not verify",
     signed(gitlab_claims(), stranger, "RS256", "rsa-1")),
    ("es256-header-rsa-kid", "gitlab", "does not match",
     signed(gitlab_claims(), ec_key, "ES256", "rsa-1")),
    ("alg-none", "gitlab", "not a JWT",
     by_hand({"alg": "none", "kid": "rsa-1"}, json.dumps(gitlab_claims()).encode())),
    ("alg-none-with-signature", "gitlab", "not signed with RS256 or ES256",
     by_hand({"alg": "none", "kid": "rsa-1"}, json.dumps(gitlab_claims()).encode()) + sig),
    ("hs256-keyed-with-public-key", "gitlab", "not signed with RS256 or ES256",
     by_hand({"alg": "HS256", "kid": "rsa-1"}, json.dumps(gitlab_claims()).encode(), rsa_pem)),
    ("hs256-oct-key", "gitlab", "not signed with RS256 or ES256",
     by_hand({"alg": "HS256", "kid": "hmac"}, json.dumps(gitlab_claims()).encode(), b"secret")),
    ("crit-header", "gitlab", "critical header",
     jwt.encode(gitlab_claims(), rsa_key, algorithm="RS256",
                headers={"kid": "rsa-1", "crit": ["exp"], "exp": 1})),
    ("tampered-claims", "gitlab", "does not verify", head + "." + tampered_body + "." + sig),
    ("duplicate-claims", "gitlab", "not a JSON object",
     jwt.api_jws.encode(dup, rsa_key, algorithm="RS256", headers={"kid": "rsa-1"})),
    ("four-parts", "gitlab", "not a JWT", good + ".x"),
    ("part-of-4n-plus-1", "gitlab", "not a JWT", head + "." + body + "." + sig[:len(sig) - (len(sig) % 4) - 3]),
    ("padded", "gitlab", "not a JWT", good + "=="),
    ("empty", "gitlab", "not a JWT", ""),
]
with open(os.path.join(OUT, "cases.tsv"), "w") as f:
    for name, forge, expect, token in cases:
        with open(os.path.join(OUT, name + ".jwt"), "w") as t:
            t.write(token)
        f.write("%s\t%s\t%s\n" % (name, forge, expect))

weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
rsa_jwk, ec_jwk = jwk_of(rsa_key, "rsa-1"), jwk_of(ec_key, "ec-1")
bad_jwks = [
    ("weak-rsa", "fewer than 2048 bits", {"keys": [jwk_of(weak, "weak")]}),
    ("duplicate-kid", "two keys have the kid rsa-1", {"keys": [rsa_jwk, dict(ec_jwk, kid="rsa-1")]}),
    ("use-enc", "\"use\" is not \"sig\"", {"keys": [dict(rsa_jwk, use="enc")]}),
    ("rsa-claims-es256", "whose \"alg\" is not RS256", {"keys": [dict(rsa_jwk, alg="ES256")]}),
    ("no-kid", "no usable \"kid\"", {"keys": [{k: v for k, v in rsa_jwk.items() if k != "kid"}]}),
    ("only-hmac", "no RS256 or ES256 signing key", {"keys": [{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}]}),
    ("no-keys-array", "not a JWKS", {"key": []}),
    ("bad-modulus", "its \"n\" or \"e\" is not base64url", {"keys": [dict(rsa_jwk, n="!!")]}),
    # one character past a multiple of four: libcjose 0.6 aborts on it
    ("modulus-4n-plus-1", "its \"n\" or \"e\" is not base64url",
     {"keys": [dict(rsa_jwk, n=rsa_jwk["n"][:341])]}),
    ("padded-exponent", "its \"n\" or \"e\" is not base64url", {"keys": [dict(rsa_jwk, e="AQAB==")]}),
    ("private-part", "private key part", {"keys": [dict(ec_jwk, d="AAAA")]}),
    ("ec-point-too-short", "cannot be imported", {"keys": [dict(ec_jwk, x="AAAA")]}),
]
with open(os.path.join(OUT, "jwks-cases.tsv"), "w") as f:
    for name, words, doc in bad_jwks:
        with open(os.path.join(OUT, "jwks-%s.json" % name), "w") as j:
            json.dump(doc, j)
        f.write("%s\t%s\n" % (name, words))
    with open(os.path.join(OUT, "jwks-not-json.json"), "w") as j:
        j.write('{"keys": [')
    f.write("not-json\tnot JSON\n")

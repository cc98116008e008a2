#!/usr/bin/python3
"""Tokens of a throwaway GitLab issuer for the CI release end-to-end test.

Keys from python3-cryptography, tokens signed by PyJWT (code postern did
not write), valid around the real clock, since postern-ci runs on it; plus
the hostile ones PyJWT refuses to make (alg none, HMAC keyed with the public
key), assembled by hand.

Usage: e2e-tokens.py OUT ISSUER AUDIENCE PROJECT [TAG...]
Writes OUT/jwks.json and OUT/<case>.jwt for every case below, and
OUT/tag-TAG.jwt, a valid token of a protected tag TAG lasting 50 minutes
(for bench/e2e's CI releases), for each TAG.
"""
import base64
import json
import os
import sys
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

OUT, ISS, AUD, PROJECT = sys.argv[1:5]
TAGS = sys.argv[5:]
NOW = int(time.time())


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk_of(key, kid):
    pub = key.public_key()
    alg = jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else jwt.algorithms.ECAlgorithm
    j = json.loads(alg.to_jwk(pub))
    j.update(kid=kid, use="sig")
    return j


rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec_key = ec.generate_private_key(ec.SECP256R1())
stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
with open(os.path.join(OUT, "jwks.json"), "w") as f:
    json.dump({"keys": [jwk_of(rsa_key, "rsa-1"), jwk_of(ec_key, "ec-1")]}, f)


def claims(ref, **over):
    c = {"iss": ISS, "aud": AUD, "sub": "project_path:%s:ref_type:tag:ref:%s" % (PROJECT, ref),
         "iat": NOW - 30, "nbf": NOW - 30, "exp": NOW + 270, "jti": "e2e-" + os.urandom(8).hex(),
         "project_path": PROJECT, "ref": ref, "ref_type": "tag", "ref_protected": "true",
         "pipeline_id": "4711", "job_id": "815", "sha": "c" * 40, "user_login": "ebassi"}
    c.update(over)
    return c


def signed(c, key=rsa_key, alg="RS256", kid="rsa-1"):
    return jwt.encode(c, key, algorithm=alg, headers={"kid": kid})


def assembled(header, c, sign):
    head = b64(json.dumps(header).encode()) + "." + b64(json.dumps(c).encode())
    return head + "." + sign(head.encode())


def hmac_with_public_key(head):
    import hashlib
    import hmac
    pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return b64(hmac.new(pem, head, hashlib.sha256).digest())


cases = {
    "ok-1.0": signed(claims("1.0")),
    "ok-es256-v1.1": signed(claims("v1.1"), ec_key, "ES256", "ec-1"),
    "multi-2.0": signed(claims("2.0")),
    "signed-2.1": signed(claims("2.1")),
    "crash-1.8": signed(claims("1.8")),
    "after-crash-1.8": signed(claims("1.8")),
    "dup-1.0": signed(claims("1.0")),
    "unprotected": signed(claims("1.2", ref_protected="false")),
    "branch": signed(claims("main", ref_type="branch")),
    "tag-not-version": signed(claims("1.9")),
    "other-project": signed(claims("1.2", project_path="GNOME/other")),
    "wrong-audience": signed(claims("1.2", aud="https://elsewhere.example")),
    "wrong-issuer": signed(claims("1.2", iss="https://gitlab.evil.example")),
    "expired": signed(claims("1.2", iat=NOW - 900, nbf=NOW - 900, exp=NOW - 600)),
    "not-yet-valid": signed(claims("1.2", iat=NOW + 600, nbf=NOW + 600, exp=NOW + 900)),
    "unknown-kid": signed(claims("1.2"), stranger, "RS256", "rsa-9"),
    "alg-none": assembled({"alg": "none", "kid": "rsa-1"}, claims("1.2"), lambda h: ""),
    "hmac-public-key": assembled({"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}, claims("1.2"),
                                 hmac_with_public_key),
    "hostile-1.3": signed(claims("1.3")),
    "oversize-1.4": signed(claims("1.4")),
    "slow-1.5": signed(claims("1.5")),
    "malformed-1.6": signed(claims("1.6")),
    "bigger-1.7": signed(claims("1.7")),
}
for name, token in cases.items():
    with open(os.path.join(OUT, name + ".jwt"), "w") as f:
        f.write(token)
for tag in TAGS:
    token = signed(claims(tag, exp=NOW + 3000))
    with open(os.path.join(OUT, "tag-%s.jwt" % tag), "w") as f:
        f.write(token)

#!/usr/bin/python3
"""Print a security key's public key line as ssh-keygen writes its .pub:
TYPE BASE64 [COMMENT], with a fresh key (Ed25519 bytes, or a real P-256
point from python3-cryptography) and application "ssh:". No device is
involved: the PAM tests only need what sshd puts in SSH_AUTH_INFO_0.

Usage: sk-pubkey.py ed25519|ecdsa [COMMENT]
"""
import base64
import os
import struct
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def s(b):
    return struct.pack(">I", len(b)) + b


kind = sys.argv[1]
if kind == "ed25519":
    name = b"sk-ssh-ed25519@openssh.com"
    blob = s(name) + s(os.urandom(32)) + s(b"ssh:")
elif kind == "ecdsa":
    name = b"sk-ecdsa-sha2-nistp256@openssh.com"
    point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    blob = s(name) + s(b"nistp256") + s(point) + s(b"ssh:")
else:
    sys.exit("usage: sk-pubkey.py ed25519|ecdsa [COMMENT]")
line = name.decode() + " " + base64.b64encode(blob).decode()
if len(sys.argv) > 2:
    line += " " + sys.argv[2]
print(line)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""qperf 0.5 shared-secret peers, written from docs/protocol.md
("Authentication") with Python's own hmac, for tests/robust/auth.sh.

    authpeer.py client HOST PORT SECRETFILE MODE
        MODE conf     authenticate, run conf         -> "auth ok", "conf ..."
        MODE replay   authenticate a conf request; then send the same
                      request and the recorded proof on a new connection
                      (the server's nonce differs)   -> "replay nonce_differs=..",
                                                        "reply after ..."
                      and a fresh proof on a third   -> "fresh ok" / "fresh failed ..."
        MODE noproof  a proof block without the MAC item -> "reply after ..."
        MODE stall    request, then no proof         -> "reply after ..."
    ("reply after ..." is peer.py's wait: line.)
    authpeer.py fake-server PORTFILE SECRETFILE
        Asks for the secret, accepts any proof and answers with a wrong
        one (for 10 s), to check that our client refuses it.

Every wait is bounded.
"""
import hashlib
import hmac
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer import out, recv_exact, wait_reply  # noqa: E402

MAGIC = 0x32585051  # "QPX2"
LABEL_C = b"qperf-0.5 auth client"
LABEL_S = b"qperf-0.5 auth server"


def secret(path):
    b = open(path, "rb").read()
    if b.endswith(b"\r\n"):
        return b[:-2]
    if b.endswith(b"\n"):
        return b[:-1]
    return b


def block(items):
    body = b"".join(struct.pack("<HH", t, len(v)) + v for t, v in items)
    return struct.pack("<II", MAGIC, 8 + len(body)) + body


def items(blk):
    res, p = {}, 8
    while p + 4 <= len(blk):
        t, n = struct.unpack_from("<HH", blk, p)
        res[t] = blk[p + 4:p + 4 + n]
        p += 4 + n
    return res


def recv_block(s):
    h = recv_exact(s, 8, 5)
    if len(h) < 8:
        return None
    n = struct.unpack_from("<I", h, 4)[0]
    return h + recv_exact(s, n - 8, 5)


def request(idx=0):
    """A 0.5.0 REQ for test idx and its block with a fresh nonce."""
    req = struct.pack("<4H", 0, 5, 0, idx) + struct.pack(
        "<16I", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 5, 0) + b"\0" * 128
    ext = block([(6, b"0.5.0"), (1, struct.pack("<Q", 2 * 10**9)),
                 (2, struct.pack("<Q", 5 * 10**9)), (3, struct.pack("<I", 0)),
                 (8, os.urandom(32))])
    return req, ext


def connect(host, port):
    return socket.create_connection((host, int(port)), timeout=10)


def hello(s, req, ext):
    s.sendall(req + ext)
    return recv_block(s)


def client(host, port, path, mode):
    key = secret(path)
    s = connect(host, port)
    req, ext = request()
    rep = hello(s, req, ext)
    if not rep:
        out("no server block")
        wait_reply(s, 5)
        return 1
    nonce = items(rep).get(3)
    out("server nonce %s" % ("yes" if nonce and len(nonce) == 32 else "no"))
    t = req + ext + rep
    mac = hmac.new(key, LABEL_C + t, hashlib.sha256).digest()
    if mode == "stall":
        wait_reply(s, 30)
        return 0
    if mode == "noproof":
        s.sendall(block([(9, b"x" * 32)]))
        wait_reply(s, 8)
        return 0
    s.sendall(block([(1, mac)]))
    proof = recv_block(s)
    want = hmac.new(key, LABEL_S + t + mac, hashlib.sha256).digest()
    if not proof or items(proof).get(1) != want:
        out("auth failed")
        wait_reply(s, 8)
        return 1
    out("auth ok")
    conf = recv_exact(s, 256, 5)
    out("conf %d %s" % (len(conf), conf[:64].split(b"\0")[0].decode()))
    s.close()
    if mode != "replay":
        return 0
    # The recorded request and proof on a new connection.
    s = connect(host, port)
    rep2 = hello(s, req, ext)
    n2 = items(rep2 or b"").get(3)
    s.sendall(block([(1, mac)]))
    out("replay nonce_differs=%s" % ("yes" if n2 and n2 != nonce else "no"))
    wait_reply(s, 8)
    s.close()
    # The same request with a proof for the new nonce is accepted.
    s = connect(host, port)
    rep3 = hello(s, req, ext)
    t3 = req + ext + rep3
    mac3 = hmac.new(key, LABEL_C + t3, hashlib.sha256).digest()
    s.sendall(block([(1, mac3)]))
    proof = recv_block(s)
    ok = proof and items(proof).get(1) == hmac.new(
        key, LABEL_S + t3 + mac3, hashlib.sha256).digest()
    out("fresh ok" if ok else "fresh failed")
    if not ok:
        wait_reply(s, 8)
    return 0


def fake_server(portfile, path):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        r, _, _ = select.select([ls], [], [], 0.2)
        if not r:
            continue
        c, _ = ls.accept()
        req = recv_exact(c, 200, 5)
        ext = recv_block(c)
        rep = block([(1, struct.pack("<I", 0)), (2, b"0.5.0"),
                     (3, os.urandom(32))])
        c.sendall(rep)
        recv_block(c)  # any proof will do for this "server"
        c.sendall(block([(1, hmac.new(b"not the secret", LABEL_S + req + ext
                                      + rep, hashlib.sha256).digest())]))
        time.sleep(0.5)
        c.close()
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "client":
        return client(argv[2], argv[3], argv[4], argv[5])
    if len(argv) == 4 and argv[1] == "fake-server":
        return fake_server(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

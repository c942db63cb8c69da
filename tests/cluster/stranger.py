#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stranger (and a misbehaving rank) on cluster mode's rendezvous port.

Speaks cluster_msg.h's protocol by itself: TLV blocks, HELLO with rank
0's nonce, JOINs and RESULTs sealed with HMAC-SHA256 of the job secret.
If rank 0 sends no HELLO (a qperf from before the messages were sealed),
it falls back to that qperf's unsealed messages, so that the same checks
can be run against it and fail there for the right reason.

  stranger.py HOST PORT attack SIZE KEYFILE GOFILE
      Says "ready", waits for GOFILE to exist, then one connection per trick, each printed as "TRICK port LOCALPORT" (the
      source port rank 0 should name) as it is done:
        silent      6 connections that say nothing (held 4 s)
        partial     12 bytes of a JOIN, then nothing
        nomac       an unsealed JOIN for rank SIZE-1
        badmac      a JOIN for rank SIZE-1 sealed with another secret
        replay      a JOIN for rank SIZE-1 sealed for another connection
        beyond      a JOIN, sealed, for rank SIZE+5
        taken       a JOIN, sealed, for rank 1 (joined before)
  stranger.py HOST PORT fake RANK SIZE KEYFILE SERVERPORT STALL
      A rank of the job (it has the secret) whose server is SERVERPORT.
      Its first RESULT says recv_bw = inf; its second: 12 bytes, then
      STALL seconds of nothing, then the rest; the others: made-up figures.
"""
import hashlib
import hmac
import math
import os
import socket
import struct
import sys
import time

MAGIC = 0x32585051
JOIN, RUN, RESULT, DONE, PING, HELLO = 1, 2, 3, 4, 5, 6
(CI_TYPE, CI_RANK, CI_SIZE, CI_LOCAL, CI_PORT, CI_HOST, CI_JOB, CI_ITEM,
 CI_PEER, CI_STATUS, CI_ERR, CI_SEND_BW, CI_RECV_BW, CI_MSG_RATE, CI_LATENCY,
 CI_LAT, CI_PEER_LOCAL, CI_IVAL_LOW, CI_IVAL_N, CI_NONCE, CI_SEQ,
 CI_MAC) = range(1, 23)
TO_0 = b"qperf-0.5 cluster rank->0"


def item(t, v):
    return struct.pack("<HH", t, len(v)) + v


def u32(t, v):
    return item(t, struct.pack("<I", v))


def u64(t, v):
    return item(t, struct.pack("<Q", v))


def f64(t, v):
    return item(t, struct.pack("<d", v))


def block(items):
    body = b"".join(items)
    return struct.pack("<II", MAGIC, 8 + len(body)) + body


def read_key(path):
    k = open(path, "rb").read()
    if k.endswith(b"\n"):
        k = k[:-1]
        if k.endswith(b"\r"):
            k = k[:-1]
    return k


class Chan:
    """One connection to rank 0, as a rank."""

    def __init__(self, host, port, key):
        self.s = socket.create_connection((host, port))
        self.key = key
        self.nr = os.urandom(32)
        self.tx = 0
        self.n0 = None
        self.s.settimeout(1.0)
        try:  # rank 0's HELLO: its nonce
            blk = self.recv()
            it = items_of(blk)
            if it.get(CI_TYPE) == struct.pack("<I", HELLO):
                self.n0 = it[CI_NONCE]
        except socket.timeout:
            pass  # a qperf from before HELLO: unsealed messages
        self.s.settimeout(None)

    def port(self):
        return self.s.getsockname()[1]

    def seal(self, mtype, items, key=None, n0=None, nr=None):
        if self.n0 is None:  # old rank 0
            return block([u32(CI_TYPE, mtype)] + items)
        key = self.key if key is None else key
        n0 = self.n0 if n0 is None else n0
        nr = self.nr if nr is None else nr
        head = [u32(CI_TYPE, mtype)]
        if mtype == JOIN:
            head.append(item(CI_NONCE, nr))
        head.append(u64(CI_SEQ, self.tx))
        self.tx += 1
        blk = block(head + items + [item(CI_MAC, b"\0" * 32)])
        mac = hmac.new(key, TO_0 + n0 + nr + blk[:-32],
                       hashlib.sha256).digest()
        return blk[:-32] + mac

    def recv(self):
        hdr = self.recvn(8)
        magic, n = struct.unpack("<II", hdr)
        if magic != MAGIC or n < 8:
            raise ValueError("not a block")
        return hdr + self.recvn(n - 8)

    def recvn(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError("rank 0 closed the connection")
            b += c
        return b


def items_of(blk):
    out, p = {}, 8
    while p + 4 <= len(blk):
        t, n = struct.unpack_from("<HH", blk, p)
        out[t] = blk[p + 4:p + 4 + n]
        p += 4 + n
    return out


def join_items(rank, size, port=1):
    return [u32(CI_RANK, rank), u32(CI_SIZE, size), u32(CI_LOCAL, 0),
            u32(CI_PORT, port), item(CI_HOST, b"stranger")]


def say(*a):
    print(*a, flush=True)


def attack(host, port, size, key, go):
    say("ready")
    while not os.path.exists(go):
        time.sleep(0.02)
    silent = [socket.create_connection((host, port)) for _ in range(6)]
    for s in silent:
        say("silent port", s.getsockname()[1])
    last = size - 1
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(last, size))[:12])
    say("partial port", c.port())
    held = [c]
    c = Chan(host, port, key)
    c.s.sendall(block([u32(CI_TYPE, JOIN)] + join_items(last, size)))
    say("nomac port", c.port())
    held.append(c)
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(last, size), key=b"not the secret"))
    say("badmac port", c.port())
    held.append(c)
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(last, size), n0=os.urandom(32)))
    say("replay port", c.port())
    held.append(c)
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(size + 5, size)))
    say("beyond port", c.port())
    held.append(c)
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(1, size)))
    say("taken port", c.port())
    held.append(c)
    time.sleep(4)
    for s in silent:
        s.close()
    for c in held:
        c.s.close()


def result_items(job, bw):
    lat = struct.pack("<Q", 0) + b"\0" * 64
    return [u32(CI_JOB, job), u32(CI_STATUS, 0), item(CI_ERR, b""),
            f64(CI_SEND_BW, 1.2e9), f64(CI_RECV_BW, bw),
            f64(CI_MSG_RATE, 1e5), f64(CI_LATENCY, 1e-5), item(CI_LAT, lat)]


def fake(host, port, rank, size, key, srvport, stall):
    c = Chan(host, port, key)
    c.s.sendall(c.seal(JOIN, join_items(rank, size, srvport)))
    say("joined as rank", rank, "port", c.port())
    runs = 0
    while True:
        try:
            blk = c.recv()
        except EOFError:
            return
        it = items_of(blk)
        t = struct.unpack("<I", it[CI_TYPE])[0]
        if t == DONE:
            say("done")
            return
        if t != RUN:
            continue
        runs += 1
        job = struct.unpack("<I", it[CI_JOB])[0]
        bw = math.inf if runs == 1 else 1.2e9
        msg = c.seal(RESULT, result_items(job, bw))
        if runs == 2:
            c.s.sendall(msg[:12])
            say("stalled in a RESULT for", stall, "s")
            time.sleep(stall)
            c.s.sendall(msg[12:])
        else:
            c.s.sendall(msg)
        say("result", runs, "recv_bw", bw)


def main(a):
    host, port = a[1], int(a[2])
    if a[3] == "attack":
        attack(host, port, int(a[4]), read_key(a[5]), a[6])
    elif a[3] == "fake":
        fake(host, port, int(a[4]), int(a[5]), read_key(a[6]), int(a[7]),
             float(a[8]))
    else:
        sys.exit("stranger.py: unknown action " + a[3])


if __name__ == "__main__":
    main(sys.argv)

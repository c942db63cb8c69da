#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A scriptable qperf control peer for the robustness and interop suites.

Client mode plays a (mis)behaving client against a qperf server:

    peer.py client HOST PORT ACTION...

ACTIONs run in order; each prints one line the shell scripts grep:

    req[:k=v,...]     send a 200-byte request (spec §2.2).  Keys: ver=0.4.11,
                      idx, msg_size (default: the test's 0.4.11 default),
                      time (2), timeout (5), port, no_msgs, affinity,
                      sock_buf_size, access_recv
    part:N[:k=v,...]  send only the first N bytes of that request
    junk:N            send N bytes of deterministic garbage
    port              receive the 4-byte data port        -> "port N"
    data:tcp|udp      open the data socket to that port     -> "data ok"
    stream:SECS       write on the data socket for SECS
    pingpong:SECS[:GAP]  tcp_lat by hand, slowly: 1-byte round trips on
                      the data socket, GAP s apart (default 0.01), for
                      SECS, then close the data socket
                                                    -> "pingpong N round trips"
    sync              send, then receive the "before" sync   -> "sync ok"
    recv:N            receive N bytes on the control socket  -> "recv N"
    stat              receive STAT, send the "after" sync    -> "stat ..."
    conf              receive CONF, print its strings        -> "conf ..."
    sleep:SECS        do nothing for SECS
    wait:SECS         wait up to SECS for the server to react on the control
                      socket: urgent byte, text, end of stream ->
                      "reply after T urgent=X eof=Y text=REPR"
    close | rst       close (FIN) or abort (RST) the control socket
    exit              _exit(0) at once: the kernel closes every socket

    peer.py fuzz HOST PORT N SEED
        N connections with random plausible requests (never quit), each
        closed, aborted or half-followed at random.

Server modes play a fake server for our client:

    peer.py legacy-recorder PORTFILE OUTFILE
        Acts as a 0.4.11 server that rejects the 0.5 request with the
        "upgrade qperf on server" error, records (as hex) the 200 bytes of
        the legacy request that follows, answers it with an error and exits.
    peer.py error-server PORTFILE TEXT
        Answers every request (for 10 s) with urgent '?' and TEXT.
    peer.py vanish-server PORTFILE close|rst
        Syncs, takes data for 0.5 s, then closes or aborts every socket.
    peer.py silent-server PORTFILE
        Accepts and reads, never answers.
    peer.py junk-server PORTFILE N
        Answers every request with N bytes of garbage, then closes.
    peer.py dead-udp-server PORTFILE
        A 0.4.11-style server for udp_bw/udp_lat that announces a UDP port
        nobody listens on, runs the syncs, and reports zero received.
    peer.py ival-flood-server PORTFILE [GAP]
        A qperf 0.5 server with interval reports (capability 0x20) for
        one tcp_bw: after the "before" sync it drains the data and sends
        interval records every GAP s (default 0.005) for 30 s, never the
        done block.
    peer.py caps-server PORTFILE CAPS
        A qperf 0.5 server that reads one TLV request, records the types
        of its items (to PORTFILE.items) and answers with a server block
        announcing capability bits CAPS (an earlier 0.5 build), then waits
        for the client's error notice or close.

With QPERF_PEER_SRC=ADDR in the environment, client mode connects from
that source address (127.0.0.2 ... are all loopback), to play several
client hosts.

Every wait is bounded; nothing here can hang a test suite.
"""
import fcntl
import os
import select
import socket
import struct
import sys
import time

SYNC_BEFORE = b"synchronization before test"
SYNC_AFTER = b"synchronization after test"


def request(**kw):
    ver = tuple(int(x) for x in str(kw.get("ver", "0.4.11")).split("."))
    names = ["access_recv", "affinity", "alt_port", "flip", "msg_size",
             "mtu_size", "no_msgs", "poll_mode", "port", "rd_atomic", "sl",
             "sock_buf_size", "src_path_bits", "time", "timeout", "use_cm"]
    # 0.4.11's default message sizes (spec §3) unless msg_size is given.
    sizes = {8: 65536, 9: 1, 10: 32768, 11: 1}
    dflt = {"time": 2, "timeout": 5,
            "msg_size": sizes.get(int(kw.get("idx", 0)), 0)}
    vals = [int(kw.get(n, dflt.get(n, 0))) & 0xFFFFFFFF for n in names]
    b = struct.pack("<4H", ver[0], ver[1], ver[2], int(kw.get("idx", 0)))
    b += struct.pack("<16I", *vals) + b"\0" * 128
    assert len(b) == 200
    return b


def kv(s):
    d = {}
    for item in filter(None, s.split(",")):
        k, v = item.split("=", 1)
        d[k] = v
    return d


def out(*a):
    print(*a, flush=True)


def recv_exact(s, n, secs):
    """Receive n bytes within secs; returns bytes (short on EOF/timeout)."""
    buf = b""
    end = time.monotonic() + secs
    while len(buf) < n:
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, x = select.select([s], [], [s], left)
        if x:
            return buf  # urgent data: an error notice
        if not r:
            continue
        try:
            d = s.recv(n - len(buf))
        except (ConnectionResetError, BlockingIOError):
            break
        if not d:
            break
        buf += d
    return buf


SIOCATMARK = 0x8905


def at_mark(s):
    try:
        return struct.unpack("i", fcntl.ioctl(s.fileno(), SIOCATMARK,
                                              b"\0" * 4))[0] == 1
    except OSError:
        return False


def wait_reply(s, secs):
    """Collect the server's reaction: urgent byte, text, EOF.  As a reader
    of an error notice must (spec 2.8), in-band bytes before the urgent mark
    are skipped (counted in skipped=), the text is what follows it."""
    t0 = time.monotonic()
    end = t0 + secs
    urgent, text, eof, reset = None, b"", False, False
    before, past_mark = b"", False
    while time.monotonic() < end:
        r, _, x = select.select([s], [], [s], max(0, end - time.monotonic()))
        if x and urgent is None:
            try:
                urgent = s.recv(1, socket.MSG_OOB)
                continue
            except OSError:
                pass
        if r:
            if urgent is not None and not past_mark and at_mark(s):
                past_mark = True
            try:
                d = s.recv(4096)
            except ConnectionResetError:
                reset = True
                break
            except OSError:
                continue
            if not d:
                eof = True
                break
            if past_mark:
                text += d
            else:
                before += d
        if not r and not x:
            break
    if urgent is None:
        try:
            urgent = s.recv(1, socket.MSG_OOB)
        except OSError:
            pass
    if not past_mark and urgent is None:
        text, before = before, b""  # no notice: all of it is the reply
    elif not past_mark:
        text, before = b"", before
    dt = time.monotonic() - t0
    u = urgent.decode("latin-1") if urgent else "none"
    out("reply after %.2f urgent=%s eof=%s reset=%s len=%d skipped=%d "
        "text=%r" % (dt, u, "yes" if eof else "no", "yes" if reset else "no",
                     len(text), len(before), text.decode("latin-1")))


def client(host, port, actions):
    src = os.environ.get("QPERF_PEER_SRC")
    s = socket.create_connection((host, int(port)), timeout=10,
                                 source_address=(src, 0) if src else None)
    s.settimeout(None)
    data = None
    dport = None
    for a in actions:
        name, _, arg = a.partition(":")
        if name == "req":
            s.sendall(request(**kv(arg)))
            out("sent request")
        elif name == "part":
            n, _, rest = arg.partition(":")
            s.sendall(request(**kv(rest))[:int(n)])
            out("sent %s bytes" % n)
        elif name == "junk":
            n = int(arg)
            b = bytes((i * 131 + 17) & 0xFF for i in range(n))
            try:
                s.sendall(b)
                out("sent %d junk bytes" % n)
            except OSError as e:
                out("send failed: %s" % e)
        elif name == "port":
            b = recv_exact(s, 4, 30)
            if len(b) != 4:
                out("no port (%d bytes)" % len(b))
                wait_reply(s, 5)
                return 1
            dport = struct.unpack("<I", b)[0]
            out("port %d" % dport)
        elif name == "data":
            if arg == "udp":
                data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                data.connect((host, dport))
            else:
                data = socket.create_connection(
                    (host, dport), timeout=10,
                    source_address=(src, 0) if src else None)
            out("data ok")
        elif name == "stream":
            end = time.monotonic() + float(arg)
            buf = b"x" * 65536
            data.settimeout(0.2)
            n = 0
            while time.monotonic() < end:
                try:
                    n += data.send(buf)
                except socket.timeout:
                    pass
                except OSError as e:
                    out("stream error: %s" % e)
                    break
            out("streamed %d bytes" % n)
        elif name == "pingpong":
            secs, _, gap = arg.partition(":")
            gap = float(gap or 0.01)
            end = time.monotonic() + float(secs)
            data.settimeout(5)
            n = 0
            try:
                while time.monotonic() < end:
                    data.sendall(b"p")
                    if data.recv(1) != b"p":
                        raise OSError("closed")
                    n += 1
                    time.sleep(gap)
                out("pingpong %d round trips" % n)
            except OSError as e:
                out("pingpong error after %d round trips: %s" % (n, e))
            data.close()
        elif name == "sync":
            s.sendall(SYNC_BEFORE)
            b = recv_exact(s, len(SYNC_BEFORE), 30)
            out("sync ok" if b == SYNC_BEFORE else "sync bad %r" % b)
        elif name == "recv":
            b = recv_exact(s, int(arg), 30)
            out("recv %d" % len(b))
        elif name == "conf":
            b = recv_exact(s, 256, 30)
            f = [b[i:i + 64].split(b"\0")[0].decode("latin-1")
                 for i in range(0, len(b), 64)]
            # Bytes after each string's NUL must be zero (no leaked memory).
            tails = all(not any(b[i:i + 64].partition(b"\0")[2])
                        for i in range(0, len(b), 64))
            out("conf %d tails=%s %s" % (len(b), "zero" if tails else "DIRTY",
                                         "|".join(f)))
        elif name == "stat":
            # STAT (spec §2.5), then the "after" sync, as a 0.4.11 client.
            b = recv_exact(s, 256, 30)
            if len(b) != 256:
                out("no stat (%d bytes)" % len(b))
                wait_reply(s, 5)
                return 1
            cpus, ticks, _ = struct.unpack("<3I", b[:12])
            real = struct.unpack("<Q", b[84:92])[0] - \
                struct.unpack("<Q", b[12:20])[0]
            sb, sm, _, rb, rm, _ = struct.unpack("<6Q", b[156:204])
            out("stat cpus=%d ticks=%d real_ticks=%d s=%d/%d r=%d/%d pad=%s" %
                (cpus, ticks, real, sb, sm, rb, rm,
                 "zero" if b[252:] == b"\0" * 4 else b[252:].hex()))
            s.sendall(SYNC_AFTER)
        elif name == "sleep":
            time.sleep(float(arg))
        elif name == "wait":
            wait_reply(s, float(arg))
        elif name == "close":
            s.close()
            out("closed")
            return 0
        elif name == "rst":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
            s.close()
            out("reset")
            return 0
        elif name == "exit":
            out("exit")
            os._exit(0)
        else:
            out("unknown action %s" % a)
            return 2
    return 0


def listen(portfile):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(tmp, portfile)
    ls.settimeout(20)
    return ls


def send_error(c, text):
    """0.4.11's error path (spec §2.8): urgent '?', text, FIN, drain."""
    try:
        c.send(b"?", socket.MSG_OOB)
        c.sendall(text.encode())
        c.shutdown(socket.SHUT_WR)
        c.settimeout(1)
        while c.recv(4096):
            pass
    except OSError:
        pass
    c.close()


def legacy_recorder(portfile, outfile):
    ls = listen(portfile)
    for _ in range(4):
        c, _ = ls.accept()
        v = recv_exact(c, 6, 5)
        maj, mnr, inc = struct.unpack("<3H", v)
        if (maj, mnr) != (0, 4):
            send_error(c, "upgrade qperf on server from 0.4.11 to %d.%d.%d"
                       % (maj, mnr, inc))
            continue
        rest = recv_exact(c, 194, 5)
        with open(outfile, "w") as f:
            f.write((v + rest).hex() + "\n")
        send_error(c, "request recorded")
        return 0
    return 1


def error_server(portfile, text):
    ls = listen(portfile)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            break
        recv_exact(c, 200, 2)
        send_error(c, text)
    return 0


def silent_server(portfile):
    """Accept connections, read what comes, never answer (20 s)."""
    ls = listen(portfile)
    conns = []
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            break
        conns.append(c)
    return 0


def junk_server(portfile, n):
    """Answer every request with n bytes of junk, then close (20 s)."""
    ls = listen(portfile)
    end = time.monotonic() + 20
    junk = bytes((i * 97 + 13) & 0xFF for i in range(int(n)))
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            break
        recv_exact(c, 200, 2)
        try:
            c.sendall(junk)
            c.shutdown(socket.SHUT_WR)
            c.settimeout(1)
            while c.recv(4096):
                pass
        except OSError:
            pass
        c.close()
    return 0


def vanish_server(portfile, how):
    """A 0.4.11-style server that syncs, takes data for 0.5 s and then
    vanishes: closes (FIN) or aborts (RST) every socket, without STAT."""
    ls = listen(portfile)
    for _ in range(4):
        c, _ = ls.accept()
        v = recv_exact(c, 6, 5)
        maj, mnr, inc = struct.unpack("<3H", v)
        if (maj, mnr) != (0, 4):
            send_error(c, "upgrade qperf on server from 0.4.11 to %d.%d.%d"
                       % (maj, mnr, inc))
            continue
        rest = recv_exact(c, 194, 5)
        idx = struct.unpack("<H", rest[:2])[0]
        udp = idx in (10, 11)
        if udp:
            d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            d.bind(("127.0.0.1", 0))
        else:
            dl = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            dl.bind(("127.0.0.1", 0))
            dl.listen(1)
            d = None
        c.sendall(struct.pack("<I", (d or dl).getsockname()[1]))
        if not udp:
            dl.settimeout(5)
            d, _ = dl.accept()
        c.sendall(SYNC_BEFORE)
        recv_exact(c, len(SYNC_BEFORE), 5)
        end = time.monotonic() + 0.5
        d.settimeout(0.1)
        while time.monotonic() < end:
            try:
                b, a = d.recvfrom(65536)
                if idx in (9, 11) and b:  # echo for the latency tests
                    d.sendto(b, a) if udp else d.sendall(b)
            except OSError:
                pass
        for sk in (c, d):
            if how == "rst" and sk.type == socket.SOCK_STREAM:
                sk.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                              struct.pack("ii", 1, 0))
            sk.close()
        return 0
    return 1


def stat(no_ticks, secs, s_msgs, s_bytes, r_msgs, r_bytes):
    real = 1000
    ts = [real, 10, 0, 10, 10, 0, 0, 0, 0]
    te = [real + int(no_ticks * secs), 10, 0, 10, 10 + int(no_ticks * secs),
          0, 0, 0, 0]
    b = struct.pack("<3I", 2, no_ticks, 0) + struct.pack("<9Q", *ts)
    b += struct.pack("<9Q", *te)
    b += struct.pack("<3Q", s_bytes, s_msgs, 0)
    b += struct.pack("<3Q", r_bytes, r_msgs, 0)
    b += b"\0" * (256 - len(b))
    return b


def dead_udp_server(portfile):
    ls = listen(portfile)
    for _ in range(4):
        c, _ = ls.accept()
        v = recv_exact(c, 6, 5)
        maj, mnr, inc = struct.unpack("<3H", v)
        if (maj, mnr) != (0, 4):
            send_error(c, "upgrade qperf on server from 0.4.11 to %d.%d.%d"
                       % (maj, mnr, inc))
            continue
        rest = recv_exact(c, 194, 5)
        t = struct.unpack("<I", rest[54:58])[0] or 1
        # A UDP port nobody listens on: bind, learn it, close.
        u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        u.bind(("::", 0))
        dport = u.getsockname()[1]
        u.close()
        c.sendall(struct.pack("<I", dport))
        c.sendall(SYNC_BEFORE)
        recv_exact(c, len(SYNC_BEFORE), 5)
        time.sleep(t)
        c.sendall(stat(100, t, 0, 0, 0, 0))
        recv_exact(c, len(SYNC_AFTER), 5)
        c.close()
        return 0
    return 1


def fuzz(host, port, n, seed):
    """n connections with random but plausible requests (never quit), each
    followed by a random behaviour; prints a tally of what came back."""
    import random
    rnd = random.Random(int(seed))
    sizes = [0, 1, 100, 1400, 65536, 1 << 20, 1 << 30, (1 << 30) + 1,
             0xFFFFFFFF]
    tally = {}
    for _ in range(int(n)):
        idx = rnd.choice([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 20, 32,
                          33, 40, 0xFFFF])
        kw = dict(idx=idx, msg_size=rnd.choice(sizes),
                  time=rnd.choice([0, 1]), timeout=rnd.choice([0, 1, 2]),
                  port=rnd.choice([0, 0, rnd.randrange(1024, 65536),
                                   70000]),
                  affinity=rnd.choice([0, 1, 2, 5000, 0xFFFFFFFF]),
                  sock_buf_size=rnd.choice([0, 1, 4096, 1 << 31,
                                            0xFFFFFFFF]),
                  access_recv=rnd.choice([0, 1]),
                  no_msgs=rnd.choice([0, 1, 10]))
        b = bytearray(request(**kw))
        if rnd.random() < 0.3:
            b[2:4] = struct.pack("<H", 5)  # 0.5.x: an extension follows
            b += bytes(rnd.randrange(256) for _ in range(24))
        if rnd.random() < 0.2:  # flip some bytes of the strings
            for _ in range(8):
                b[rnd.randrange(72, 200)] = rnd.randrange(256)
        try:
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(bytes(b))
            how = rnd.choice(["close", "rst", "read", "port-sync"])
            if how == "rst":
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
            elif how == "read":
                s.settimeout(0.3)
                try:
                    s.recv(4096)
                except OSError:
                    pass
            elif how == "port-sync":
                s.settimeout(0.3)
                try:
                    if len(s.recv(4)) == 4:
                        s.sendall(SYNC_BEFORE)
                        s.recv(4096)
                except OSError:
                    pass
            s.close()
            tally[how] = tally.get(how, 0) + 1
        except OSError as e:
            tally["connect/send error"] = tally.get("connect/send error",
                                                    0) + 1
    out("fuzz done %s" % " ".join("%s=%d" % kv for kv in
                                  sorted(tally.items())))
    return 0


def accept_test(ls):
    """Accept the client's test request: a 0.5 client first sends a
    preflight (a conf request with item 11, core/pathrun.h) on a
    connection of its own, which this fake answers as a server with no
    host checks (capabilities 0, an empty CONF).  Returns the connection and
    the request block's item types."""
    while True:
        c, _ = ls.accept()
        recv_exact(c, 200, 5)
        magic, n = struct.unpack("<2I", recv_exact(c, 8, 5))
        body = recv_exact(c, n - 8, 5) if magic == 0x32585051 and n >= 8 \
            else b""
        types, off = [], 0
        while off + 4 <= len(body):
            t, ln = struct.unpack("<2H", body[off:off + 4])
            types.append(t)
            off += 4 + ln
        if 11 not in types:
            return c, types
        ver = b"0.5.0"
        items = struct.pack("<2HI", 1, 4, 0) + \
            struct.pack("<2H", 2, len(ver)) + ver
        try:  # a server with no host checks: hello, then an empty CONF
            c.sendall(struct.pack("<2I", 0x32585051, 8 + len(items)) + items)
            c.sendall(bytes(256))
        except OSError:
            pass
        c.close()


def caps_server(portfile, caps):
    ls = listen(portfile)
    c, types = accept_test(ls)
    with open(portfile + ".items", "w") as f:
        f.write(" ".join(str(t) for t in types) + "\n")
    ver = b"0.5.0"
    items = struct.pack("<2HI", 1, 4, int(caps, 0)) + \
        struct.pack("<2H", 2, len(ver)) + ver
    c.sendall(struct.pack("<2I", 0x32585051, 8 + len(items)) + items)
    out("hello sent")
    wait_reply(c, 5)
    c.close()
    return 0


def ival_flood_server(portfile, gap):
    import threading
    ls = listen(portfile)
    c, _ = accept_test(ls)
    ver = b"0.5.0"
    items = struct.pack("<2HI", 1, 4, 0x20) + \
        struct.pack("<2H", 2, len(ver)) + ver
    c.sendall(struct.pack("<2I", 0x32585051, 8 + len(items)) + items)
    dl = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    dl.bind(("127.0.0.1", 0))
    dl.listen(1)
    c.sendall(struct.pack("<I", dl.getsockname()[1]))
    dl.settimeout(5)
    d, _ = dl.accept()
    d.settimeout(30)

    def drain():
        try:
            while d.recv(1 << 16):
                pass
        except OSError:
            pass
    threading.Thread(target=drain, daemon=True).start()
    c.sendall(SYNC_BEFORE)
    recv_exact(c, len(SYNC_BEFORE), 5)
    end, k = time.monotonic() + 30, 0
    out("flooding")
    try:
        while time.monotonic() < end:
            it = struct.pack("<2HI", 1, 4, k)
            for t, v in ((2, k * 100000000), (3, (k + 1) * 100000000),
                         (4, 1000), (5, 1)):
                it += struct.pack("<2HQ", t, 8, v)
            c.sendall(struct.pack("<2I", 0x32585051, 8 + len(it)) + it)
            k += 1
            time.sleep(gap)
    except OSError:
        pass
    out("sent %d records" % k)
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    mode = argv[1]
    if mode == "client":
        return client(argv[2], argv[3], argv[4:])
    if mode == "fuzz":
        return fuzz(argv[2], argv[3], argv[4], argv[5])
    if mode == "legacy-recorder":
        return legacy_recorder(argv[2], argv[3])
    if mode == "error-server":
        return error_server(argv[2], argv[3])
    if mode == "vanish-server":
        return vanish_server(argv[2], argv[3])
    if mode == "silent-server":
        return silent_server(argv[2])
    if mode == "junk-server":
        return junk_server(argv[2], argv[3])
    if mode == "dead-udp-server":
        return dead_udp_server(argv[2])
    if mode == "ival-flood-server":
        return ival_flood_server(argv[2], float((argv[3:] or [0.005])[0]))
    if mode == "caps-server":
        return caps_server(argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

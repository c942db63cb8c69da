#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run a qperf server under a subreaper that watches what reaches it.

    reaper.py QPERF twoquit
        Two quit requests wait at their sync; the first then completes,
        then the second.  0.4.11's design (and qperf before the fix) made
        the second child kill(getppid(), SIGQUIT) the process that had
        adopted it: this one, a subreaper like tini or systemd --user.
    reaper.py QPERF term
        A tcp_bw request that never opens its data connection holds a
        child; the server gets SIGTERM.  Its children must end with it,
        not live on as orphans adopted by this process.

Prints one line: "sigquit=N server_exit=S orphans=N client=TEXT"
(orphans: processes still alive 5 s after the server ended that it had
started; client: what the waiting client got).  Every wait is bounded.
"""
import ctypes
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36
SYNC = b"synchronization before test"
got = {"quit": 0}


def on_quit(sig, frame):
    got["quit"] += 1


def request(idx, timeout=5, time_=2):
    b = struct.pack("<4H", 0, 4, 11, idx)
    vals = [0] * 16
    vals[4] = 65536 if idx == 8 else 0  # msg_size
    vals[13] = time_
    vals[14] = timeout
    return b + struct.pack("<16I", *vals) + b"\0" * 128


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(st[1]) == pid and st[0] != "Z":
            out.append(int(d))
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(cond, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def reply(s, secs):
    """What the server sent: the error text after its urgent byte."""
    s.settimeout(secs)
    text = b""
    try:
        while True:
            d = s.recv(4096)
            if not d:
                break
            text += d
    except OSError:
        pass
    return text.decode("latin-1").replace("\n", " ")


def main(qperf, mode):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGQUIT, on_quit)
    pf = os.path.join(tempfile.mkdtemp(), "port")
    srv = subprocess.Popen([qperf, "-lp", "0", "-lpf", pf],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    if not wait_until(lambda: os.path.exists(pf), 10):
        print("server did not start")
        return 1
    port = int(open(pf).read())
    conns = []
    for _ in range(2 if mode == "twoquit" else 1):
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        c.sendall(request(1) if mode == "twoquit" else
                  request(8, timeout=30))
        conns.append(c)
    want = len(conns)
    wait_until(lambda: len(children(srv.pid)) >= want, 10)
    kids = children(srv.pid)
    client = ""
    if mode == "twoquit":
        for i, c in enumerate(conns):
            if i:
                # Let the server act on the first quit (it may end).
                try:
                    srv.wait(timeout=4)
                except subprocess.TimeoutExpired:
                    pass
            try:
                c.sendall(SYNC)
                c.settimeout(5)
                c.recv(len(SYNC))
            except OSError:
                pass
    else:
        conns[0].settimeout(10)
        conns[0].recv(4)  # the data port; never connect to it
        srv.send_signal(signal.SIGTERM)
        client = reply(conns[0], 8)
    try:
        status = srv.wait(timeout=15)
    except subprocess.TimeoutExpired:
        status = "running"
        srv.kill()
        srv.wait()
    # Any orphan the server left was adopted by us; give it 5 s.
    wait_until(lambda: not any(alive(k) for k in kids), 5)
    orphans = [k for k in kids if alive(k)]
    for k in orphans:
        os.kill(k, signal.SIGKILL)  # adopted by us: ours to end
    time.sleep(0.5)  # a late SIGQUIT would land here
    print("sigquit=%d server_exit=%s orphans=%d client=%s" %
          (got["quit"], status, len(orphans), client))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

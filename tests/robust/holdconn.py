#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hold silent connections to a server (tests/robust/server17.sh).

    holdconn.py HOST PORT SOURCES PER SECS [reopen | deaf]

Opens PER connections from each source address in SOURCES (comma
separated, e.g. 127.0.0.2,127.0.0.3), sends nothing and keeps them for
SECS.  With "reopen", a connection the server closes (or answers) is
opened again at once, as a client without the secret that wants to keep
the server's slots would.  With "deaf", nothing the server sends is read
and nothing is closed before the end (an idle client that never looks at
its sockets).  Prints "ready" once the first connections are open, and
one line at the end (after SECS, or on SIGTERM):

    held OPENED opened DROPPED dropped-by-server LIVE live-at-end
"""
import selectors
import signal
import socket
import sys
import time

STATS = {"opened": 0, "dropped": 0}


class Stopped(Exception):
    pass


def stop(_sig, _frame):
    raise Stopped()


def open_one(sel, host, port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((src, 0))
        s.setblocking(False)
        try:
            s.connect((host, port))
        except BlockingIOError:
            pass
        sel.register(s, selectors.EVENT_READ, src)
        STATS["opened"] += 1
    except OSError:
        s.close()


def hold(sel, host, port, secs, mode):
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        if mode == "deaf":
            time.sleep(left)
            continue
        for key, _ in sel.select(min(left, 0.2)):
            s, src = key.fileobj, key.data
            sel.unregister(s)
            s.close()
            STATS["dropped"] += 1
            if mode == "reopen":
                time.sleep(0.005)  # not a busy loop of the test's own
                open_one(sel, host, port, src)


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    sources = sys.argv[3].split(",")
    per, secs = int(sys.argv[4]), float(sys.argv[5])
    mode = sys.argv[6] if len(sys.argv) > 6 else ""
    sel = selectors.DefaultSelector()
    signal.signal(signal.SIGTERM, stop)
    try:
        for src in sources:
            for _ in range(per):
                open_one(sel, host, port, src)
        print("ready", flush=True)
        hold(sel, host, port, secs, mode)
    except Stopped:
        pass
    live = len(sel.get_map())
    print(f"held {STATS['opened']} opened {STATS['dropped']} dropped-by-server "
          f"{live} live-at-end", flush=True)
    for key in list(sel.get_map().values()):
        key.fileobj.close()


if __name__ == "__main__":
    main()

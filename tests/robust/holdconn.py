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
its sockets).  Prints one line at the end:

    held OPENED opened DROPPED dropped-by-server LIVE live-at-end
"""
import selectors
import socket
import sys
import time


def open_one(host, port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.setblocking(False)
    try:
        s.connect((host, port))
    except BlockingIOError:
        pass
    return s


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    sources = sys.argv[3].split(",")
    per, secs = int(sys.argv[4]), float(sys.argv[5])
    mode = sys.argv[6] if len(sys.argv) > 6 else ""
    reopen, deaf = mode == "reopen", mode == "deaf"
    sel = selectors.DefaultSelector()
    opened = dropped = 0
    for src in sources:
        for _ in range(per):
            try:
                sel.register(open_one(host, port, src), selectors.EVENT_READ,
                             src)
                opened += 1
            except OSError:
                pass
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        if deaf:
            time.sleep(left)
            continue
        for key, _ in sel.select(min(left, 0.2)):
            s, src = key.fileobj, key.data
            sel.unregister(s)
            s.close()
            dropped += 1
            if reopen:
                time.sleep(0.005)  # not a busy loop of the test's own
                try:
                    sel.register(open_one(host, port, src),
                                 selectors.EVENT_READ, src)
                    opened += 1
                except OSError:
                    pass
    live = len(sel.get_map())
    print(f"held {opened} opened {dropped} dropped-by-server {live} live-at-end",
          flush=True)
    for key in list(sel.get_map().values()):
        key.fileobj.close()


if __name__ == "__main__":
    main()

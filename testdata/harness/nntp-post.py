"""Post the test articles to the harness's INN and wait until each is readable.

usage: nntp-post.py HOST PORT USER PASS FILE...

Each FILE is an article (headers, blank line, body) with LF line ends. It is
sent with POST after AUTHINFO USER/PASS, with CRLF line ends and dot-stuffing.
Then STAT <message-id> is retried until every article answers 223.
Exits non-zero, naming the article, when one is refused or never appears.
"""
import re
import socket
import sys
import time


class NNTP:
    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=30)
        self.rfile = self.sock.makefile("rb")
        code, text = self.reply()
        if code not in (200, 201):
            raise SystemExit(f"nntp-post: greeting {code} {text}")

    def reply(self):
        line = self.rfile.readline().decode("utf-8", "replace").rstrip("\r\n")
        if len(line) < 3 or not line[:3].isdigit():
            raise SystemExit(f"nntp-post: bad reply {line!r}")
        return int(line[:3]), line[4:]

    def cmd(self, text: str):
        self.sock.sendall(text.encode() + b"\r\n")
        return self.reply()

    def send_article(self, data: bytes) -> None:
        out = bytearray()
        for line in data.split(b"\n"):
            if line.startswith(b"."):
                line = b"." + line
            out += line + b"\r\n"
        # data ends with "\n": the split leaves one empty tail line
        if data.endswith(b"\n"):
            out = out[:-2]
        out += b".\r\n"
        self.sock.sendall(bytes(out))

    def close(self) -> None:
        try:
            self.cmd("QUIT")
        finally:
            self.sock.close()


def main() -> None:
    host, port, user, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    files = sys.argv[5:]
    conn = NNTP(host, port)
    code, text = conn.cmd("AUTHINFO USER " + user)
    if code == 381:
        code, text = conn.cmd("AUTHINFO PASS " + password)
    if code != 281:
        raise SystemExit(f"nntp-post: AUTHINFO refused: {code} {text}")
    ids = []
    for name in files:
        with open(name, "rb") as f:
            data = f.read()
        m = re.search(rb"^Message-ID:\s*(<[^>]+>)", data, re.M | re.I)
        if not m:
            raise SystemExit(f"nntp-post: {name}: no Message-ID")
        msgid = m.group(1).decode()
        ids.append((name, msgid))
        code, text = conn.cmd("POST")
        if code != 340:
            raise SystemExit(f"nntp-post: POST refused: {code} {text}")
        conn.send_article(data)
        code, text = conn.reply()
        # 441 with "435 Duplicate" means it is already there from an earlier post
        if code != 240 and "Duplicate" not in text:
            raise SystemExit(f"nntp-post: {name} {msgid}: {code} {text}")
    deadline = time.time() + 30
    for name, msgid in ids:
        while True:
            code, text = conn.cmd("STAT " + msgid)
            if code == 223:
                break
            if time.time() > deadline:
                raise SystemExit(f"nntp-post: {name} {msgid} not readable: {code} {text}")
            time.sleep(0.2)
    conn.close()
    print(" ".join(m for _, m in ids))


if __name__ == "__main__":
    main()

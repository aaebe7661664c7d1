"""pyftpdlib FTP server for fetch's integration tests.

Run with Debian's interpreter (/usr/bin/python3): python3-pyftpdlib is
installed there. Serves ROOT read-only to anonymous and to USER/PASS.

usage: pyftpd-server.py HOST PORT ROOT USER PASS PASV_MIN PASV_MAX
"""
import logging
import sys

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer


def main() -> None:
    host, port, root, user, password, pmin, pmax = sys.argv[1:8]
    # read-only permissions: e=cd, l=list, r=retrieve
    auth = DummyAuthorizer()
    auth.add_anonymous(root, perm="elr")
    auth.add_user(user, password, root, perm="elr")

    handler = FTPHandler
    handler.authorizer = auth
    handler.banner = "fetch test pyftpdlib ready"
    handler.passive_ports = range(int(pmin), int(pmax) + 1)
    handler.masquerade_address = None
    handler.permit_foreign_addresses = False
    handler.timeout = 120

    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    server = FTPServer((host, int(port)), handler)
    server.max_cons = 100
    server.max_cons_per_ip = 100
    server.serve_forever()


if __name__ == "__main__":
    main()
